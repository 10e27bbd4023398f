"""Follow-ups that ask again in other terms. After a KV-cache or serving answer, "how many N-context requests fit on a card" is the inference tool's
concurrency ceiling for that model on that card; "cheaper option?" after a plan steps the method down (full -> LoRA -> QLoRA).
Both languages; questions written for these tests."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask, lead


@pytest.mark.parametrize(
    ("first", "follow", "context"),
    [
        ("KV cache per token for Mistral 7B in bf16?", "so how many 8k-context requests fit in the rest of an 80GB card?", 8192),
        ("Qwen2.5-7B 一个 token 的 KV cache 占多少", "那一张 48G 的卡剩下的显存能同时跑多少个 4k 上下文的请求", 4096),
    ],
)
def test_a_concurrency_follow_up_leads_with_the_ceiling(advisor, first: str, follow: str, context: int) -> None:
    answer = ask(advisor, first, follow)
    assert answer.intent == "sizing" and answer.clarification is None
    runs = [c.output for c in answer.tool_calls if c.tool == "inference" and c.output.get("max_concurrency")]
    assert runs, [c.tool for c in answer.tool_calls]
    run = runs[0]
    assert run["context_len"] == context
    assert f"{run['max_concurrency']:,}" in lead(answer) and f"{context:,}" in lead(answer)


def test_a_gpu_count_question_in_serving_words_is_still_a_count(advisor) -> None:
    answer = ask(advisor, "how many H100s to serve Llama 3 70B in bf16?")
    assert any(c.tool == "inference" and c.input.get("gpus", 1) > 1 for c in answer.tool_calls)


@pytest.mark.parametrize(
    ("first", "follow", "was", "now"),
    [
        ("what setup to fine-tune Qwen2.5-14B, full fine-tuning?", "cheaper option?", "full", "lora"),
        ("Qwen2.5-32B 用 LoRA 微调，推荐个配置", "有没有便宜点的方案", "lora", "qlora"),
    ],
)
def test_a_cheaper_follow_up_steps_down_the_method(advisor, first: str, follow: str, was: str, now: str) -> None:
    before = ask(advisor, first)
    answer = ask(advisor, first, follow)
    assert answer.intent != "out_of_scope" and answer.clarification is None
    methods = [c.input.get("method") for c in answer.tool_calls if c.tool == "recommend"]
    assert methods == [now], methods
    old = [c.output for c in before.tool_calls if c.tool == "recommend"][0]["recommended"]["cost_per_hour"]
    new = [c.output for c in answer.tool_calls if c.tool == "recommend"][0]["recommended"]["cost_per_hour"]
    assert new < old
