"""Requests and answers as every channel sees them (REST, SSE, widget, Slack, CLI)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.contract.blocks import Block

Language = Literal["zh", "en"]
Intent = Literal[
    "faq", "spec", "sizing", "recommend", "compare", "cloud_vs_onprem", "claim_check", "diagnostics", "preflight", "smalltalk",
    "out_of_scope",
]
Channel = Literal["api", "widget", "slack", "cli"]

CONVERSATION_KEY_PATTERN = r"^[a-z][a-z0-9_-]{0,15}:[A-Za-z0-9_.:-]{1,200}$"


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    message: str = Field(min_length=1, max_length=100_000, description="the user's question, in Chinese or English (the server bounds it further)")
    conversation_id: str | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    conversation_key: str | None = Field(
        default=None, max_length=220, pattern=CONVERSATION_KEY_PATTERN,
        description="a channel's own name for the conversation (`slack:T1:C2:1712345.678`, `widget:<session>`): the same key "
                    "continues the same conversation across requests and restarts; keys are scoped to the API key that used them",
    )
    language: Language | None = Field(default=None, description="answer language; default: the question's")


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


class Neighbour(BaseModel):
    intent: str
    exemplar: str
    similarity: float


class CaseFact(BaseModel):
    """One fact read from the message: its name, its value, and the line it came from (1-based) with that line's words."""

    name: str
    value: str | int | float | bool
    line: int
    quote: str
    parser: str


class UnderstandingTrace(BaseModel):
    """Why the question was read the way it was: scores per intent and the evidence behind them."""

    intent: str
    runner_up: str | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    neighbours: list[Neighbour] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list, description="structured evidence that moved the scores")
    act: str | None = Field(default=None, description="what the question literally asks: quantity, yes_no, cause, choice, procedure, consequence, explain")
    subject: str | None = Field(default=None, description="what the case is about, when a capability answers it (training_oom, serving_memory, error, ...)")
    signatures: list[str] = Field(default_factory=list, description="error signatures found in what was pasted, most specific first")
    facts: list[CaseFact] = Field(default_factory=list, description="facts read from the message (commands, configs, logs, tool output, prose)")


class Answer(BaseModel):
    conversation_id: str
    conversation_key: str | None = None
    message_id: str
    answer: str = Field(description="the blocks rendered as Markdown")
    blocks: list[Block] = Field(default_factory=list, description="the answer's structure: render these, never parse `answer`")
    language: Language
    intent: Intent
    citations: list[Citation] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    recommendation: dict[str, Any] | None = Field(default=None, description="the recommend tool's full output (typed form: the `recommendation` block)")
    follow_up_questions: list[str] = Field(default_factory=list)
    writer: Literal["deterministic", "llm"] = "deterministic"
    clarification: Clarification | None = None
    grounding: Grounding
    slots: dict[str, Any] = Field(default_factory=dict, description="workload values understood so far in this conversation")
    understanding: UnderstandingTrace | None = None
    llm_fallback_reason: str | None = None
    timings_ms: dict[str, float] = Field(
        default_factory=dict,
        description="milliseconds spent in each pipeline stage of this answer (understand, retrieve, tools, compose, grounding, llm)",
    )


class Feedback(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    message_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    rating: Literal["up", "down"]
    comment: str | None = Field(default=None, max_length=2000)
