"""Stream events of `/v1/chat/stream`, in the order they are sent.

    meta -> tool_result* -> citations -> (block delta*)* -> done      (or error, last)

meta leaves right after understanding; each tool_result as its tool finishes; citations once the
sources are chosen, before any text; each block is followed by the `delta`s carrying its Markdown
(with an LLM writer, the deltas of the rewritten text follow the blocks instead).

The SSE `event:` name is the model's `event` field; `data:` is the model as JSON.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from service.contract.answer import Answer, Citation, Intent, Language
from service.contract.blocks import Block


class MetaEvent(BaseModel):
    event: Literal["meta"] = "meta"
    conversation_id: str
    conversation_key: str | None = None
    message_id: str
    language: Language
    intent: Intent


class CitationsEvent(BaseModel):
    event: Literal["citations"] = "citations"
    citations: list[Citation]


class ToolResultEvent(BaseModel):
    event: Literal["tool_result"] = "tool_result"
    tool: str
    input: dict[str, Any]
    output: dict[str, Any]


class BlockEvent(BaseModel):
    event: Literal["block"] = "block"
    index: int = Field(description="position of the block in `Answer.blocks`")
    block: Block


class DeltaEvent(BaseModel):
    """A piece of the Markdown rendering, for clients that only show text."""

    event: Literal["delta"] = "delta"
    text: str


class DoneEvent(BaseModel):
    event: Literal["done"] = "done"
    answer: Answer


class ErrorEvent(BaseModel):
    event: Literal["error"] = "error"
    code: str
    message: str = Field(description="in the user's language")


StreamEvent = Annotated[MetaEvent | CitationsEvent | ToolResultEvent | BlockEvent | DeltaEvent | DoneEvent | ErrorEvent, Field(discriminator="event")]
