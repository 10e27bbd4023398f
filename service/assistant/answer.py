"""The answer contract every channel serialises (REST, SSE, Slack, CLI)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.assistant.understand import Intent, Language


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    message: str = Field(min_length=1, max_length=100_000, description="the user's question, in Chinese or English (the server bounds it further)")
    conversation_id: str | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    language: Literal["zh", "en"] | None = Field(default=None, description="answer language; default: the question's")


class Citation(BaseModel):
    id: str
    title: str
    source: str
    url: str
    snippet: str


class ToolCall(BaseModel):
    tool: str
    input: dict[str, Any]
    output: dict[str, Any]


class Clarification(BaseModel):
    question: str
    suggestions: list[str]


class Grounding(BaseModel):
    numbers_checked: int
    ungrounded: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.ungrounded


class Answer(BaseModel):
    conversation_id: str
    message_id: str
    answer: str = Field(description="Markdown")
    language: Language
    intent: Intent
    citations: list[Citation] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    recommendation: dict[str, Any] | None = None
    follow_up_questions: list[str] = Field(default_factory=list)
    writer: Literal["deterministic", "llm"] = "deterministic"
    clarification: Clarification | None = None
    grounding: Grounding
    slots: dict[str, Any] = Field(default_factory=dict, description="workload values understood so far in this conversation")
    llm_fallback_reason: str | None = None


class Feedback(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    message_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    rating: Literal["up", "down"]
    comment: str | None = Field(default=None, max_length=2000)
