"""A measured training rate is judged as the MFU it implies, against the training-time tool's band."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest
from service.assistant.handlers.measured_speed import OBSERVED, measured_rate
from tests.assistant.asking import ask


@pytest.mark.parametrize(
    "text, rate", [("tokens/s 只有 9000", 9000), ("we get 3,000 tokens/s per GPU", 3000), ("throughput is only 90k tokens/s", 90000), ("how many H100?", None)]
)
def test_the_measured_rate_is_read_with_its_multiplier(text, rate) -> None:
    assert measured_rate(text) == rate


def test_a_target_rate_is_not_a_measurement() -> None:
    assert not OBSERVED.search("I need 90k tokens/s training Llama 3 8B, how many H100?")


@pytest.mark.parametrize(
    "question, verdict",
    [
        ("nvidia-smi 显示 8 张 H100 利用率 35%，训练 Llama 3 8B，tokens/s 只有 9000，正常吗", "low"),
        ("training Llama 3 8B on 8 H100, we get 45k tokens/s, is that normal?", "normal"),
        ("we get 900 tokens/s per GPU fine-tuning 72B on 16x 4090, too slow?", "impossible"),
    ],
)
def test_a_measured_rate_gets_the_mfu_it_implies(advisor, question, verdict) -> None:
    answer = ask(advisor, question)  # asserts every number is grounded
    call = next(c for c in answer.tool_calls if c.tool == "measured-throughput")
    assert call.output["verdict"] == verdict
    expected = call.output["cluster_tokens_per_s"] / call.output["expected_tokens_per_s"] * call.output["mfu_typical"]
    assert call.output["implied_mfu"] == pytest.approx(expected)
    assert answer.language == ("zh" if verdict == "low" else "en")
    if verdict == "impossible":  # a per-GPU rate is multiplied by the GPUs, and the answer shows both
        assert call.output["cluster_tokens_per_s"] == 900 * 16 and "14,400" in answer.answer


def test_a_step_time_and_a_global_batch_are_a_measured_rate(advisor) -> None:
    from service.assistant.handlers.measured_speed import step_rate

    assert step_rate("step time 2 s, global batch 512×4096", None) == 512 * 4096 / 2
    assert step_rate("每步 800 毫秒，每步 2M token", None) == 2e6 / 0.8
    answer = advisor.answer(ChatRequest(message="Llama 3 8B on 32 H100s: step time 1.5 s with global batch 256×8192, what's my MFU?"))
    assert answer.intent == "diagnostics"
    measured = next(c for c in answer.tool_calls if c.tool == "measured-throughput")
    assert measured.input["measured_tokens_per_s"] == 256 * 8192 / 1.5 and answer.grounding.ungrounded == []
