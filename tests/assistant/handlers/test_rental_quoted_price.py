"""A rental bill for a period on a platform, at the rate the user quotes (issue 7: the user's numbers are the inputs)."""

from __future__ import annotations

from service.assistant.answer import ChatRequest


def test_a_period_on_a_platform_at_a_quoted_rate(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="在AutoDL上租4张4090跑一个月，每天10小时，按每卡每小时2块算要多少钱"))
    (cost,) = [c for c in answer.tool_calls if c.tool == "cost"]
    assert cost.input["cloud_price_per_gpu_hour"] == 2 and cost.input["cloud_price_currency"] == "CNY"
    assert "¥2,400" in answer.answer and answer.grounding.ungrounded == []


def test_a_quoted_rate_replaces_the_listed_price_for_a_period(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="renting 8 H100s on Lambda for two weeks around the clock at $2/GPU-hr, what's the bill?"))
    (cost,) = [c for c in answer.tool_calls if c.tool == "cost"]
    assert cost.input["cloud_price_per_gpu_hour"] == 2
    assert "$5,376" in answer.answer  # 8 GPUs x 24 h x 14 days x $2
