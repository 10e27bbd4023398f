"""The assistant over HTTP: POST /v1/chat, POST /v1/chat/stream (SSE), conversations and feedback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse

from service.api.deps import LanguageDep, RuntimeDep
from service.assistant.answer import Answer, ChatRequest, Feedback
from service.assistant.store import Conversation

router = APIRouter(tags=["chat"])


@router.post("/chat", response_model=Answer, responses={422: {"description": "invalid message or conversation id"}})
def chat(request: ChatRequest, runtime: RuntimeDep) -> Answer:
    """Ask a question; the answer cites its sources and shows the tool calls behind every number."""
    return runtime.assistant.answer(request)


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.post("/chat/stream", responses={200: {"content": {"text/event-stream": {}}, "description": "meta, citations, tool_result*, delta*, done"}})
def chat_stream(request: ChatRequest, runtime: RuntimeDep) -> StreamingResponse:
    """The same answer as server-sent events: `meta`, `citations` (before any text), `tool_result`, `delta`, `done`; `error` on failure."""
    events = runtime.assistant.stream(request)
    first = next(events)  # runs the pipeline: bad input becomes a 422 before the stream starts

    def body() -> Iterator[str]:
        yield _sse(*first)
        try:
            for event in events:
                yield _sse(*event)
        except Exception as exc:  # the status line is already sent: report in-band
            yield _sse("error", {"error": type(exc).__name__, "message": "the answer could not be completed"})

    return StreamingResponse(body(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/conversations/{conversation_id}", response_model=Conversation, responses={404: {"description": "unknown conversation"}})
def get_conversation(conversation_id: str, runtime: RuntimeDep, language: LanguageDep) -> Any:
    """A conversation with its messages and the workload understood so far."""
    conversation = runtime.assistant.store.get(conversation_id)
    if conversation is None:
        message = "没有这个会话。" if language == "zh" else "No such conversation."
        return JSONResponse(status_code=404, content={"error": "not_found", "message": message})
    return conversation


@router.post("/feedback", status_code=201, responses={404: {"description": "unknown message id"}})
def feedback(item: Feedback, runtime: RuntimeDep) -> Any:
    """Thumbs up or down on an answer, with an optional comment."""
    store = runtime.assistant.store
    if not store.message_exists(item.message_id):
        return JSONResponse(status_code=404, content={"error": "not_found", "message": f"unknown message_id '{item.message_id}'"})
    return {"id": store.add_feedback(item.message_id, item.rating, item.comment), "status": "recorded"}
