"""The assistant over HTTP: POST /v1/chat, POST /v1/chat/stream (SSE), conversations and feedback.

Every route goes through the front door (`runtime.advisor`) with channel and owner: the caller's
API key (as a digest), or a widget caller's key and visitor session (service/api/widget_access.py),
scopes which conversations it can read, continue, rate or delete.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import RootModel
from sse_starlette import EventSourceResponse

from service.api.deps import AdvisorDep, CallerDep, LanguageDep
from service.assistant.store import Conversation
from service.contract import Answer, ChatRequest, Feedback, StreamEvent

router = APIRouter(tags=["chat"])
NOT_FOUND = {"en": "No such conversation.", "zh": "没有这个会话。"}
UNKNOWN_MESSAGE = {"en": "Unknown message_id '{id}'.", "zh": "未知的 message_id '{id}'。"}


class EventStreamResponse(EventSourceResponse, JSONResponse):
    """sse-starlette's response, declared so FastAPI documents the event models under text/event-stream.

    Only OpenAPI generation looks at the JSONResponse base (it then uses the declared model's schema rather
    than a bare string); sending is sse-starlette's own (EventSourceResponse comes first in the MRO).
    """

    media_type = "text/event-stream"  # on the class: sse-starlette sets it per instance


class StreamEvents(RootModel[StreamEvent]):
    """The `data:` of one server-sent event of /v1/chat/stream: one of the event models, as JSON."""


@router.post("/chat", response_model=Answer, responses={422: {"description": "invalid message, conversation id or key"}})
def chat(request: ChatRequest, advisor: AdvisorDep, caller: CallerDep) -> Answer:
    """Ask a question; the answer cites its sources and shows the tool calls behind every number."""
    return advisor.answer(request, channel=caller.channel, owner=caller.owner)


STREAM_DESCRIPTION = """Server-sent events, in this order:

- `meta` (conversation and message ids, language, intent) right after the question is understood;
- `tool_result`, one per sizing-tool call, as each finishes;
- `citations` once the sources are chosen, before any text;
- `block` (each typed answer block, with its index in `Answer.blocks`), each followed by `delta` events carrying its Markdown
  (concatenated, the deltas are `Answer.answer`);
- `done` with the full Answer, last; or `error` (code and message in the user's language) if the answer fails after the start.

Bad input is a 422 JSON response before the stream starts."""


@router.post("/chat/stream", response_class=EventStreamResponse, response_model=None,
             responses={200: {"model": StreamEvents, "description": STREAM_DESCRIPTION},
                        422: {"description": "invalid message, conversation id or key (sent before any event)"}})
async def chat_stream(request: ChatRequest, advisor: AdvisorDep, caller: CallerDep) -> EventStreamResponse:
    """The same answer as server-sent events, sent as the work happens."""
    # Validation and the conversation lookup run now: bad input is a 422, not an event.
    events = await anyio.to_thread.run_sync(lambda: advisor.stream(request, channel=caller.channel, owner=caller.owner))
    iterator = iter(events)

    def following() -> Any:
        return next(iterator, None)

    async def body() -> AsyncIterator[dict[str, str]]:
        try:
            while True:
                # abandon_on_cancel: a disconnect does not wait for the next event; cancel() below stops the work.
                event = await anyio.to_thread.run_sync(following, abandon_on_cancel=True)
                if event is None:
                    return
                yield {"event": event.event, "data": event.model_dump_json()}
        finally:
            _cancel(events)

    async def on_disconnect(*_: Any) -> None:
        _cancel(events)

    return EventStreamResponse(body(), headers={"Cache-Control": "no-cache"}, client_close_handler_callable=on_disconnect)


def _cancel(events: Any) -> None:
    cancel = getattr(events, "cancel", None)
    if cancel is not None:
        cancel()


@router.get("/conversations/{conversation_id}", response_model=Conversation, responses={404: {"description": "unknown conversation"}})
def get_conversation(conversation_id: str, advisor: AdvisorDep, caller: CallerDep, language: LanguageDep) -> Any:
    """A conversation with its messages and the workload understood so far (only the caller's own)."""
    conversation = advisor.conversation(conversation_id=conversation_id, owner=caller.owner)
    if conversation is None:
        return JSONResponse(status_code=404, content={"error": "not_found", "message": NOT_FOUND["zh" if language == "zh" else "en"]})
    return conversation


@router.delete("/conversations/{conversation_id}", status_code=204, response_model=None,
               responses={404: {"description": "unknown conversation (or another owner's)"}})
def delete_conversation(conversation_id: str, advisor: AdvisorDep, caller: CallerDep, language: LanguageDep) -> Any:
    """Delete a conversation with its messages and feedback (only the caller's own: another owner's is a 404, like GET)."""
    if not advisor.delete_conversation(conversation_id, owner=caller.owner):
        return JSONResponse(status_code=404, content={"error": "not_found", "message": NOT_FOUND["zh" if language == "zh" else "en"]})
    return Response(status_code=204)


@router.post("/feedback", status_code=201, responses={404: {"description": "unknown message id"}})
def feedback(item: Feedback, advisor: AdvisorDep, caller: CallerDep, language: LanguageDep) -> Any:
    """Thumbs up or down on an answer, with an optional comment."""
    feedback_id = advisor.feedback(item, owner=caller.owner)
    if feedback_id is None:
        message = UNKNOWN_MESSAGE["zh" if language == "zh" else "en"].format(id=item.message_id)
        return JSONResponse(status_code=404, content={"error": "not_found", "message": message})
    return {"id": feedback_id, "status": "recorded"}
