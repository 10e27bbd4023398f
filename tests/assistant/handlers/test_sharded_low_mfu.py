"""Low MFU under FSDP / ZeRO-3 is named as such and answered from the knowledge about exposed all-gathers and
reduce-scatters, not only from the general low-MFU advice."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest
from service.assistant.handlers.diagnostics import recognise


@pytest.mark.parametrize("text", ["FSDP 训 13B，MFU 只有 25%", "deepspeed zero-3 run is slow, 20% mfu", "our throughput with FSDP is bad"])
def test_sharded_training_with_low_throughput_is_its_own_signature(text) -> None:
    assert [s.name for s, _ in recognise(text)][:1] == ["sharded_low_mfu"]


def test_plain_low_mfu_keeps_the_general_signature() -> None:
    assert [s.name for s, _ in recognise("our MFU is only 25% on 64 H100s")][:1] == ["low_mfu"]


def test_the_answer_cites_the_fsdp_knowledge(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="our FSDP run on 32 H100s for a 30B model only gets 22% MFU, where do I look?"))
    assert answer.intent == "diagnostics" and "reduce-scatter" in answer.answer
    assert any("fsdp" in c.url.lower() or "FSDP" in c.title for c in answer.citations)
