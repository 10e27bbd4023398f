"""Asking the advisor in tests: one or more turns of one conversation, each answer checked for ungrounded numbers."""

from __future__ import annotations

from service.contract import ChatRequest


def ask(advisor, *messages: str):
    answer, conversation_id = None, None
    for message in messages:
        answer = advisor.answer(ChatRequest(message=message, conversation_id=conversation_id))
        conversation_id = answer.conversation_id
        assert answer.grounding.ungrounded == [], (message, answer.grounding.ungrounded)
    return answer


def lead(answer) -> str:
    return answer.blocks[0].text
