"""Serving plans from a request rate and latency targets (handlers/serving_load.py)."""

from __future__ import annotations

from service.assistant.handlers.serving_load import lengths_in, qps_in
from service.contract import ChatRequest


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], answer.grounding.ungrounded
    return answer


def test_rates_and_lengths_are_read_in_both_languages() -> None:
    assert qps_in("about 12 requests per second") == 12
    assert qps_in("QPS 30，输入 800 token") == 30
    assert qps_in("每秒 5 个请求") == 5
    assert qps_in("a chatbot for our team") is None
    assert lengths_in("prompts of 1,200 tokens and outputs of 250 tokens") == (1200, 250)
    assert lengths_in("输入 3000 token，输出 400 token") == (3000, 400)


def test_a_request_rate_becomes_token_throughput_and_requests_in_flight(advisor) -> None:
    answer = ask(advisor, "Serve Qwen2.5-7B at 15 requests/s with 1000-token prompts and 200 output tokens — what hardware?")
    text = answer.answer
    assert "15,000 tokens/s of prefill" in text and "3,000 tokens/s of decode" in text
    assert "Little's law" in text
    throughput = next(c for c in answer.tool_calls if c.tool == "serving-throughput")
    assert throughput.output["total_tokens_per_second"] == 18_000
    assert any(c.tool == "serving-concurrency" for c in answer.tool_calls)
    replicas = next(c for c in answer.tool_calls if c.tool == "serving-replicas-for-rate").output
    assert replicas["replicas"] >= 1 and replicas["gpus"] >= replicas["replicas"]


def test_a_long_prompt_latency_target_is_answered_with_prefill_time(advisor) -> None:
    answer = ask(advisor, "Qwen2.5-72B on 8x H100: can the time to first token stay under 1 s for a 64k-token prompt?")
    first = answer.blocks[0].text
    assert "prefill" in first and "65,536" in first
    assert first.lstrip("*").startswith(("Yes", "No"))
    assert "chunked prefill" in answer.answer


def test_a_chinese_ttft_question_talks_about_prefill(advisor) -> None:
    answer = ask(advisor, "Llama 3 70B 用 8 张 H100，64k token 的长文档首 token 能在 3 秒内吗？")
    assert "prefill" in answer.blocks[0].text
