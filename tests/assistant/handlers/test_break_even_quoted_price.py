"""Rent or buy with the user's own rental rate: the break-even uses it, says so, and keeps the user's currency."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask


def _break_even_call(answer):
    return next(c for c in answer.tool_calls if c.tool == "break-even")


def test_a_quoted_dollar_rate_replaces_the_catalog_price(advisor) -> None:
    answer = ask(advisor, "We rent 8xH100 at $1.9/GPU-hr; at 80% yearly utilization is owning cheaper?")
    call = _break_even_call(answer)
    assert call.input["cloud_price_per_gpu_hour"] == 1.9 and call.input["gpus"] == 8
    assert call.output["cloud_price_per_gpu_hour"] == 1.9
    assert "your quoted $1.9 per GPU-hour" in answer.answer


def test_a_yuan_rate_per_card_hour_is_used_in_yuan(advisor) -> None:
    answer = ask(advisor, "A100 租的话每卡每小时 9 块，年利用率 70%，自建还是上云划算？")
    call = _break_even_call(answer)
    assert call.input["cloud_price_per_gpu_hour"] == 9 and call.input["cloud_price_currency"] == "CNY"
    assert call.output["currency"] == "CNY" and call.output["cloud_price_per_gpu_hour"] == 9
    assert "每卡每小时 ¥9" in answer.answer or "每卡每小时 9" in answer.answer, answer.answer[:600]


def test_without_a_quoted_rate_the_catalog_price_is_used(advisor) -> None:
    answer = ask(advisor, "年利用率80%的话自建还是上云划算？8卡H100")
    call = _break_even_call(answer)
    assert "cloud_price_per_gpu_hour" not in call.input
    assert "每卡每小时" not in answer.answer


@pytest.mark.parametrize(
    "question, total, lang",
    [("What would 2,000 GPU-hours on H100 cost us at $1.8/GPU-hr?", "$3,600", "en"),
     ("A100 80G 跑 500 GPU 小时，按每卡每小时 10 块算要多少钱", "¥5,000", "zh")],
)
def test_a_run_is_billed_at_the_quoted_rate(advisor, question: str, total: str, lang: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "sizing" and answer.language == lang
    assert total in answer.blocks[0].text, answer.answer[:300]
    cost = next(c for c in answer.tool_calls if c.tool == "cost")
    assert cost.output["cheapest"]["price"]["price_basis"] == "quoted"
