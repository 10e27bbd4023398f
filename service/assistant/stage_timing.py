"""Per-stage timing of one answer-pipeline turn (understand, retrieve, tools, compose, grounding, llm, persist).

The times go three ways: onto the answer (`timings_ms`), into the stage histogram of GET /metrics, and into
the turn's analytics record. Handlers retrieve and call tools in one go, so retrieval is timed at the index
(TimedSearcher) and `tools` is the handler's remaining time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from service.analytics.records import TurnFacts
from service.assistant.handlers.base import Searcher
from service.observability import metrics


class StageClock:
    """Milliseconds per pipeline stage of one turn, each also observed in the stage histogram (GET /metrics).

    `within` names an enclosing stage whose time already includes this one, so it is subtracted there:
    stages never double-count and their sum stays below the turn's total.
    """

    def __init__(self, into: dict[str, float]) -> None:
        self.ms = into
        self._nested: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str, *, plus: float = 0.0) -> Iterator[None]:
        """Time the block as `name`; `plus` adds seconds of this stage spent elsewhere (e.g. inside the handler)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - started - self._nested.pop(name, 0.0) + plus
            self.add(name, seconds)

    def add(self, name: str, seconds: float, *, within: str | None = None) -> None:
        seconds = max(seconds, 0.0)
        if within is not None:
            self._nested[within] = self._nested.get(within, 0.0) + seconds
        self.ms[name] = self.ms.get(name, 0.0) + seconds * 1000
        metrics.observe_stage(name, seconds)

    def answer_view(self) -> dict[str, float]:
        return {name: round(ms, 3) for name, ms in self.ms.items()}


class TimedSearcher:
    """The index as handlers see it, timing each search and keeping the turn's best score (retrieval confidence)."""

    def __init__(self, index: Searcher, facts: TurnFacts) -> None:
        self._index, self._facts = index, facts
        self.seconds = 0.0  # searching
        self.compose_seconds = 0.0  # embedding sentences to quote (inside the handler, but composition)

    def search(self, query: str, **kwargs) -> list:
        started = time.perf_counter()
        try:
            hits = self._index.search(query, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
        if hits:
            self._facts.saw_score(max(float(hit.score) for hit in hits))
        return hits

    def __getattr__(self, name: str):  # anything else a handler uses of the index (absent stays absent)
        attr = getattr(self._index, name)
        if name != "embed":
            return attr

        def embed(texts: list[str]):
            # The FAQ composer ranks the sentences it may quote by meaning: that is composing, not a tool.
            started = time.perf_counter()
            try:
                return attr(texts)
            finally:
                self.compose_seconds += time.perf_counter() - started

        return embed


def fallback_code(reason: str) -> str:
    """A bounded metric label for an LLM fallback reason (the reason itself names numbers and sources)."""
    if reason.startswith("llm error: "):
        return "error_" + reason.removeprefix("llm error: ").strip()[:40]
    if "ungrounded" in reason:
        return "ungrounded_numbers"
    if "cited sources" in reason:
        return "invalid_citations"
    return "other"
