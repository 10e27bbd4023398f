"""A general question about how things work, asked with no model, is answered from the knowledge instead of asking
which model; a question that does depend on the workload still asks."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest


@pytest.mark.parametrize("text", ["how does activation memory grow when I go from 8k to 64k context?", "激活显存随序列长度怎么增长"])
def test_a_general_question_is_answered_not_asked_about(advisor, text) -> None:
    answer = advisor.answer(ChatRequest(message=text))
    assert answer.clarification is None and answer.intent == "faq" and answer.citations


def test_a_question_that_needs_the_workload_still_asks(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="how many GPUs do I need?"))
    assert answer.clarification is not None
