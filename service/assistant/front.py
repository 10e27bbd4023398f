"""The one front door channels use: answer, stream, feedback and conversation lookup.

A channel (REST, SSE, widget, Slack, CLI) receives an `Advisor` from the runtime and
never reaches into the store or the pipeline's parts. `owner` scopes conversations:
the REST layer passes a stable digest of the caller's API key (None when auth is off),
Slack passes `slack:<team>`, the widget its publishable key's digest.
"""

from __future__ import annotations

from collections.abc import Iterator

from service.assistant.store import Conversation
from service.contract import Answer, Channel, ChatRequest, Feedback, StreamEvent


class Advisor:
    def __init__(self, assistant) -> None:  # service.assistant.pipeline.Assistant
        self._assistant = assistant

    def answer(self, request: ChatRequest, *, channel: Channel = "api", owner: str | None = None) -> Answer:
        return self._assistant.answer(request, channel=channel, owner=owner)

    def stream(self, request: ChatRequest, *, channel: Channel = "api", owner: str | None = None) -> Iterator[StreamEvent]:
        """Events as the work happens; bad input raises InputError before the first one.

        The iterator also has `cancel()`: call it when the client goes away, and the work stops at the next step.
        """
        return self._assistant.stream(request, channel=channel, owner=owner)

    def feedback(self, item: Feedback, *, owner: str | None = None) -> str | None:
        """The feedback id, or None when the message is unknown to this owner."""
        return self._assistant.feedback(item, owner=owner)

    def conversation(self, *, conversation_id: str | None = None, conversation_key: str | None = None,
                     owner: str | None = None) -> Conversation | None:
        return self._assistant.conversation(conversation_id=conversation_id, conversation_key=conversation_key, owner=owner)

    def delete_conversation(self, conversation_id: str, *, owner: str | None = None) -> bool:
        """Delete the owner's conversation with its messages and feedback; False when it is not theirs or does not exist."""
        deleted = self._assistant.store.delete(conversation_id, owner=owner)
        if deleted:
            self._assistant.forget(conversation_id)  # and any question text analytics kept of it
        return deleted
