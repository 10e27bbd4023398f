"""What is recorded about each answered question (QuestionRecord), and how a turn's facts become one.

The pipeline fills a TurnFacts as the turn goes (language, intent, retrieval score, stage times) and
hands it to a Recorder when the turn ends, answered or failed. Nothing derived from the question's
text is kept except the intent, the language and the numbers below; the text itself only when
ADVISOR_STORE_QUESTIONS is on.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

# over_budget: the turn used up its CPU budget (service/assistant/budget.py) and got a short notice instead.
Outcome = Literal["answered", "clarified", "refused_out_of_scope", "abstained", "over_budget", "error"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)
# Pipeline stages in the order they run; `persist` is recorded but not on the answer (it happens after the answer is built).
STAGES = ("understand", "retrieve", "tools", "compose", "grounding", "llm", "persist")
# Intents that never consult the knowledge base or the tools for a domain answer.
NOT_DOMAIN_INTENTS = frozenset({"out_of_scope", "smalltalk"})

# The hybrid retrieval score (service/retrieval/fusion.py) is a sum of evidence whose scale differs by question
# language (Chinese questions get a larger BM25 share). Dividing by the median top score of the labelled in-domain
# retrieval questions (evaluators/datasets/retrieval_queries.part_*.jsonl, measured 2026-11-30: en 1.19, zh 1.61)
# makes one 0..1 confidence comparable across languages: 1 = as well matched as a typical answerable question.
FUSED_REFERENCE = {"en": 1.19, "zh": 1.61}


def retrieval_confidence(score: float, language: str | None) -> float:
    reference = FUSED_REFERENCE.get(language or "en", FUSED_REFERENCE["en"])
    return round(min(1.0, max(0.0, float(score) / reference)), 4)


class QuestionRecord(BaseModel):
    id: str
    created_at: float = Field(description="epoch seconds")
    channel: str
    language: str | None = None
    intent: str | None = None
    runner_up: str | None = Field(default=None, description="the understanding's second reading, when there was one")
    intent_score: float | None = Field(default=None, description="the router's score of the winning intent")
    domain_similarity: float | None = Field(default=None, description="cosine similarity to the nearest in-domain exemplar")
    tools: list[str] = Field(default_factory=list, description="sizing tools and checks called, in order")
    outcome: Outcome
    retrieval_confidence: float | None = Field(default=None, description="top retrieval score on a 0..1 scale; None when nothing was searched")
    total_ms: float
    stages_ms: dict[str, float] = Field(default_factory=dict)
    conversation_id: str | None = None
    message_id: str | None = Field(default=None, description="the answer's id: feedback joins on it")
    question: str | None = Field(default=None, description="the question's text, only when ADVISOR_STORE_QUESTIONS is on")


@dataclass
class TurnFacts:
    """What the pipeline knows about a turn so far; a failed turn is recorded with whatever was known."""

    channel: str
    conversation_id: str | None
    text: str
    created_at: float = field(default_factory=time.time)
    started: float = field(default_factory=time.perf_counter)
    language: str | None = None
    intent: str | None = None
    message_id: str | None = None
    trace: Any = None  # contract.UnderstandingTrace
    top_score: float | None = None  # best hybrid score over the turn's searches
    stages_ms: dict[str, float] = field(default_factory=dict)

    def saw_score(self, score: float) -> None:
        self.top_score = score if self.top_score is None else max(self.top_score, score)

    @property
    def confidence(self) -> float | None:
        return None if self.top_score is None else retrieval_confidence(self.top_score, self.language)


def outcome_of(answer: Any) -> Outcome:
    """answered / clarified / refused_out_of_scope / abstained, read from a finished contract.Answer."""
    if answer.clarification is not None:
        return "clarified"
    if answer.intent == "out_of_scope":
        return "refused_out_of_scope"
    if answer.intent not in NOT_DOMAIN_INTENTS and not answer.citations and not answer.tool_calls:
        return "abstained"  # a domain question answered from neither the knowledge base nor a tool
    return "answered"


def domain_similarity(trace: Any) -> float | None:
    """The nearest in-domain exemplar's similarity (router neighbours are named like `faq` or `sizing/memory`)."""
    if trace is None:
        return None
    sims = [n.similarity for n in trace.neighbours if n.intent.split("/")[0] not in NOT_DOMAIN_INTENTS]
    return round(max(sims), 4) if sims else None


def build_record(facts: TurnFacts, *, outcome: Outcome, tools: list[str], store_text: bool) -> QuestionRecord:
    trace = facts.trace
    total_ms = (time.perf_counter() - facts.started) * 1000
    return QuestionRecord(
        id=f"q_{uuid.uuid4().hex[:20]}",
        created_at=facts.created_at,
        channel=facts.channel,
        language=facts.language,
        intent=facts.intent,
        runner_up=getattr(trace, "runner_up", None),
        intent_score=round(trace.scores[facts.intent], 4) if trace is not None and facts.intent in trace.scores else None,
        domain_similarity=domain_similarity(trace),
        tools=tools,
        outcome=outcome,
        retrieval_confidence=facts.confidence,
        total_ms=round(total_ms, 3),
        stages_ms={k: round(v, 3) for k, v in facts.stages_ms.items()},
        conversation_id=facts.conversation_id,
        message_id=facts.message_id,
        question=facts.text if store_text else None,
    )
