"""Latency per pipeline stage (understand, retrieve, tools, compose), timed from the outside.

The pipeline logs only the total time of a turn, so each stage is timed here by calling the same
public pieces the pipeline calls, in the same order, on single-turn questions (no conversation
state): the pipeline's understander; the intent's handler with the index wrapped so that
searches are timed apart from the rest of the handler (sizing tools and the handler's own logic:
"tools"); then composing (work blocks, Markdown rendering, numeric grounding). Persisting the turn
(SQLite) is not a stage here; the total turn latency in the assistant evaluation includes it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

STAGES = ("understand", "retrieve", "tools", "compose")


class TimingSearcher:
    """The index, with the time spent inside `search` added up."""

    def __init__(self, index: Any) -> None:
        self._index = index
        self.seconds = 0.0

    def search(self, query: str, **kwargs: Any) -> list:
        started = time.perf_counter()
        try:
            return self._index.search(query, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started


def time_stages(messages: Iterable[str], catalog: Any, index: Any, understander: Any, *,
                on_message: Callable[[], None] | None = None) -> dict[str, list[float]]:
    """{stage: [milliseconds per message]} for every message; `understander` is the pipeline's own (Assistant.understander)."""
    from service.assistant.compose.work import work_block
    from service.assistant.grounding import check
    from service.assistant.handlers import HANDLERS
    from service.assistant.handlers.base import Context, Draft
    from service.errors import InputError
    from service.render import markdown

    timings: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for text in messages:
        t0 = time.perf_counter()
        und = understander.understand(text, state={})
        t1 = time.perf_counter()
        searcher = TimingSearcher(index)
        ctx = Context(text=text, understanding=und, catalog=catalog, index=searcher)
        draft = Draft()
        if und.clarification is None:
            try:
                draft = HANDLERS[understander.handler(und.intent)](ctx)
            except InputError:
                pass  # the pipeline turns a refused workload into a sentence; the time spent is what counts here
        t2 = time.perf_counter()
        blocks = list(draft.blocks) + [work_block(work, und.language, tool=label) for label, work in draft.works[:2]]
        rendered = markdown.render(blocks, und.language)
        cited = [f"{h.title} {h.heading} {h.source} {h.text}" for h in draft.hits]
        check(rendered, catalog, [c.model_dump() for c in ctx.tool_calls], cited)
        t3 = time.perf_counter()
        timings["understand"].append((t1 - t0) * 1000)
        timings["retrieve"].append(searcher.seconds * 1000)
        timings["tools"].append(max(t2 - t1 - searcher.seconds, 0.0) * 1000)
        timings["compose"].append((t3 - t2) * 1000)
        if on_message is not None:
            on_message()
    return timings


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "max": float("nan")}
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"n": len(ordered), "p50": at(0.5), "p95": at(0.95), "max": ordered[-1]}
