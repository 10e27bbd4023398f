"""Answers held to the user's own figures: a serving plan against a latency target (decode speed per sequence, replicas
when one copy is too slow), and a rent-or-buy with the user's purchase price, depreciation years and running costs."""

from __future__ import annotations

from service.assistant.answer import ChatRequest


def _tools(answer) -> list[str]:
    return [c.tool for c in answer.tool_calls]


def test_a_latency_target_too_tight_for_one_copy_is_met_with_replicas(advisor) -> None:
    answer = advisor.answer(
        ChatRequest(message="Serving Llama 3 8B to 100 concurrent users, p95 latency under 10 seconds for 400 token answers. How many L40S?")
    )
    check = next(c for c in answer.tool_calls if c.tool == "latency-target")
    assert check.output["meets_target"] is False
    assert check.output["required_tokens_per_second_per_sequence"] > check.input["decode_tokens_per_second_per_sequence"]
    replicas = next(c for c in answer.tool_calls if c.tool == "latency-replicas")
    assert (
        replicas.output["replicas"] > 1 and replicas.output["decode_tokens_per_second_per_sequence"] >= check.output["required_tokens_per_second_per_sequence"]
    )
    assert f"Run {replicas.output['replicas']} replicas" in answer.answer and answer.grounding.ungrounded == []


def test_a_per_user_speed_target_is_checked_in_chinese(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="Qwen2.5-32B 在线服务，首字延迟 1 秒以内、每路每秒不低于 20 token，50 个并发，要几张 H100"))
    assert {"latency-target", "first-token-target"} <= set(_tools(answer))
    assert "每路每秒 20 个 token" in answer.answer and "首 token" in answer.answer
    assert answer.language == "zh" and answer.grounding.ungrounded == []


def test_a_bare_70b_is_sized_with_grouped_query_attention(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="a 70B chatbot for 200 concurrent users, how many H100s?"))
    assert "does NOT fit" not in answer.answer and answer.recommendation is not None
    assert answer.recommendation["recommended"]["configuration"]["gpus"] <= 8


def test_a_break_even_with_the_owners_own_figures(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="8卡H100服务器报价220万，按三年折旧，每月电费加运维大概2万，租的话每卡时15元，利用率70%，哪个划算"))
    call = next(c for c in answer.tool_calls if c.tool == "break-even")
    assert call.input["capex_total"] == 2_200_000 and call.input["years"] == 3 and call.input["opex_per_month"] == 20_000
    assert call.input["capex_currency"] == call.input["opex_currency"] == "CNY"
    assert "按 3 年折旧" in answer.answer and "¥20,000" in answer.answer
    inputs = {i["name"]: i for i in call.output["work"]["inputs"]}
    assert inputs["utilization"]["provenance"] == "user"  # "利用率70%" is the user's, not an assumption
    assert answer.grounding.ungrounded == []


def test_the_latency_to_expect_leads_with_time_per_token_and_per_answer(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="Qwen2.5-7B 部署在一张 4090 上，响应延迟大概多少"))
    assert answer.intent == "sizing" and "latency-estimate" in _tools(answer)
    estimate = next(c for c in answer.tool_calls if c.tool == "latency-estimate")
    speed = estimate.input["decode_tokens_per_second_per_sequence"]
    assert estimate.output["ms_per_output_token"]["typical"] == 1000 / speed["typical"]
    assert answer.answer.startswith("**预计") and "毫秒" in answer.answer and answer.grounding.ungrounded == []


def test_a_bare_price_with_no_gpu_count_is_one_cards(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="rent H100 at $2/hr vs buy at $25k, 3 years — which is cheaper at 70% utilisation?"))
    call = next(c for c in answer.tool_calls if c.tool == "break-even")
    assert call.input["capex_per_gpu"] == 25_000 and call.input["years"] == 3 and "capex_total" not in call.input
    assert "price of one GPU" in answer.answer and answer.grounding.ungrounded == []


def test_how_many_sequences_at_once_leads_with_the_ceiling(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="Llama 2 13B上下文3.2万，一张MI300X能同时跑几条序列"))
    runs = [c for c in answer.tool_calls if c.tool == "inference" and c.output.get("max_concurrency")]
    assert runs and runs[0].input["context_len"] == 32_000
    ceiling = [c.output["max_concurrency"] for c in runs]
    assert ceiling and answer.answer.startswith("**在 1 张 AMD Instinct MI300X 上") and f"同时约能跑 {ceiling[0]:,} 条" in answer.answer
