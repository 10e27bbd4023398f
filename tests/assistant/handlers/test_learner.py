"""A student with no money for GPUs who wants to learn gets a recommendation to rent entry-level GPUs by the hour,
from the knowledge base and cited, not a rent-or-buy break-even and not a question back."""

from __future__ import annotations

import pytest

from service.contract import ChatRequest


@pytest.mark.parametrize(
    "message",
    [
        "I'm a student, can't afford any GPU, and want to get hands-on with distributed training. Where do I start?",
        "本科生，没钱买显卡，想学一下分布式训练，有什么办法",
    ],
)
def test_a_learner_without_budget_is_told_where_to_rent(advisor, message) -> None:
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.intent == "recommend" and answer.clarification is None
    assert not any(c.tool == "break-even" for c in answer.tool_calls)
    text = answer.answer
    assert any(p in text for p in ("RunPod", "Vast.ai", "AutoDL", "Lambda")), text  # platforms that rent by the hour
    assert any(g in text for g in ("T4", "L4", "A10")), text  # an entry-level card, not a cluster
    assert answer.citations and answer.grounding.ungrounded == []
