"""Loose parity claims between two GPUs ("basically an H100", "基本就是 H100"): for training false on compute; for
inference only partly true, since decode is bandwidth-bound and prefill is not (issue 7: a claim check for any claim)."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("our reseller keeps saying the H20 is pretty much an H100 for serving LLMs, fair?", "partly"),
        ("供应商说 H20 做推理基本就是 H100，靠谱吗", "只对了一部分"),
        ("a colleague says the H20 is basically an H100 for pretraining, is that right?", "false"),
    ],
)
def test_loose_parity_claims(advisor, text, verdict):
    answer = advisor.answer(ChatRequest(message=text))
    assert answer.intent == "claim_check"
    assert verdict in answer.answer.split("\n")[0]
    assert "148" in answer.answer and answer.grounding.ungrounded == []


def test_a_speed_up_between_cards_with_the_same_compute_says_so(advisor):
    answer = advisor.answer(ChatRequest(message="the rep told us H200 trains twice as fast as H100, really?"))
    assert answer.intent == "claim_check"
    assert "same dense BF16 compute" in answer.answer and "141 GB" in answer.answer
    assert answer.grounding.ungrounded == []
