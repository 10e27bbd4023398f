""""With ZeRO-3 offload one 4090 can full fine-tune a 70B": feasible in memory, impractical in time, with the
model-state bytes from the memory tool, the host memory and PCIe time, and the practical alternative (en and zh)."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask
from tests.assistant.test_claim_checks import _run


@pytest.mark.parametrize(
    "text",
    [
        "Someone claims that with ZeRO-3 offload a single RTX 4090 can full fine-tune a 70B model. Is that realistic?",
        "A blog says ZeRO-Infinity lets you fully fine-tune Llama 3 70B on one RTX 4090 by offloading to NVMe.",
        "听说用 ZeRO-3 offload 一张 4090 就能全参微调 70B，真的吗？",
        "有博客说开 DeepSpeed ZeRO-3 把优化器卸载到 CPU，单卡 4090 可以全量训练 Qwen-72B",
    ],
)
def test_offload_is_feasible_but_impractical_with_the_numbers(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "offload" and finding.verdict == "impractical"
    memory = next(c.output for c in ctx.tool_calls if c.tool == "training-memory")
    assert memory["bytes_per_param"] == 16
    estimate = next(c.output for c in ctx.tool_calls if c.tool == "offload-estimate")
    assert estimate["model_states_tb"] > 1.0  # more than a terabyte of host memory or NVMe
    assert estimate["total_days"] > 1 and estimate["pcie_seconds_per_step"] > 5
    body = " ".join([finding.lead, *finding.points])
    assert "16" in finding.lead and f"{estimate['model_states_gb']:,.0f}" in body
    assert "PCIe" in body and "QLoRA" in body and "ZeRO-3" in body
    zh = "听说" in text or "博客" in text
    assert ("时间上不现实" in finding.lead) if zh else ("impractical" in finding.lead)


def test_the_alternative_names_a_sharded_layout_that_fits() -> None:
    _, finding, ctx = _run("Someone claims ZeRO-3 offload lets one RTX 4090 full fine-tune a 70B model")
    fits = [c.output for c in ctx.tool_calls if c.tool == "training-memory" and c.output.get("sharding") == "zero3"]
    assert fits and fits[-1]["fit"] != "does_not_fit"
    assert "does not fit" not in finding.points[-1]


def test_lora_with_offload_is_not_this_check() -> None:
    kind, _, _ = _run("someone says QLoRA with CPU offload fits a 70B on one 4090")
    assert kind != "offload"


@pytest.mark.parametrize("text", ["Someone claims that with ZeRO-3 offload a single RTX 4090 can full fine-tune a 70B model. Is that realistic?",
                                  "听说用 ZeRO-3 offload 一张 4090 就能全参微调 70B，真的吗？"])
def test_offload_answer_is_grounded_and_has_one_verdict(advisor, text: str) -> None:
    answer = ask(advisor, text)
    assert answer.intent == "claim_check"
    assert "does NOT fit" not in answer.answer and "放不下。" not in answer.answer.split("\n")[0]
