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


def test_a_serving_plan_names_the_engine_the_card_and_the_quantisation_options(advisor) -> None:
    answer = ask(advisor, "We need to serve Llama-3-70B to about 300 concurrent users in production. Which GPUs and how many?")
    rec = answer.recommendation
    assert rec and rec["task"] == "inference" and rec["recommended"]["configuration"]["gpus"] >= 1
    text = answer.answer
    assert "vLLM" in text and "paged KV cache" in text
    assert "FP8" in text and "INT4 (AWQ or GPTQ)" in text and "INT8" in text
    sizes = next(c for c in answer.tool_calls if c.tool == "weights-by-format").output
    assert sizes["bf16_gb"] == 2 * sizes["fp8_gb"] == 4 * sizes["int4_gb"]
    assert rec["recommended"]["configuration"]["gpu_name"] in text


def test_a_chinese_serving_plan_says_the_same_in_chinese(advisor) -> None:
    answer = ask(advisor, "Qwen2-72B 做内部问答，大约 200 人同时在线，部署要几张什么卡？")
    assert "量化选项" in answer.answer and "AWQ" in answer.answer and "vLLM" in answer.answer
    from service.assistant.messages import say

    assert sum(b.type == "paragraph" and b.text == say("consult.serving_stack", "zh") for b in answer.blocks) == 1  # said once


def test_a_load_with_no_gpu_count_is_answered_with_a_plan_that_names_card_and_count(advisor) -> None:
    answer = ask(advisor, "How much GPU memory would serving Llama-3-70B for 150 concurrent users at 4k context take?")
    assert {"inference", "recommend"} <= {c.tool for c in answer.tool_calls}
    configuration = answer.recommendation["recommended"]["configuration"]
    assert configuration["gpus"] >= 2  # 141 GB of 16-bit weights need tensor parallelism on any card in the catalog
    assert f"{configuration['gpus']} × {configuration['gpu_name']}" in answer.answer
    total = next(c for c in answer.tool_calls if c.tool == "serving-memory-total").output
    assert total["total_gib"] > 131  # the weights alone are 131 GiB
    assert "Memory in all" in answer.answer


def test_a_ttft_target_with_no_gpu_count_uses_the_fewest_gpus_that_hold_the_model(advisor) -> None:
    answer = ask(advisor, "Llama-3-70B 用 H100，4k 提示词的首 token 延迟能不能压到 1 秒以内？")
    run = next(c for c in answer.tool_calls if c.tool == "inference" and c.output.get("fit") != "does_not_fit")
    assert run.input["gpus"] >= 2 and "显存检查" not in answer.answer
