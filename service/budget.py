"""The work one turn may cost: a CPU-time budget carried with the turn and checked between its steps.

The input bounds (input_bounds.py) make every reader's work grow with the message's length; the budget is what stops
a turn whose steps add up anyway (a new reader, a new handler, a pasted log that walks every branch). It is CPU time of
the thread running the turn (`time.thread_time`), so a turn waiting for the GIL, a lock or the LLM is not charged for
the other turns' work, and a busy server does not make ordinary questions run out. What a process does once (reading
and compiling its data files, jieba's dictionary) is not the message's work either: loaders run `not_charged`
(`@loader` caches a data-file loader that way), so the first question after a start does not run out.

The pipeline opens it (`TurnBudget` for the turn's thread, in a context variable, so understanding, handlers and
whatever reads the text later can `check` it without being handed it); `check` raises OverBudget at the first step
after the budget is spent: each tool call and retrieval (handlers' Context.check_cancelled), the stages of
understanding, composing and grounding. The pipeline then answers with a short notice in the user's language, counts
the turn in /metrics and stores nothing of it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from prometheus_client import Counter

from service.observability import metrics

OVER_BUDGET = Counter("advisor_turns_over_budget", "Turns stopped because they used up their CPU budget, by the step that found it",
                      ["stage"], registry=metrics.REGISTRY)


class OverBudget(Exception):  # noqa: N818 — a signal that ends the turn, like handlers.base.Cancelled
    def __init__(self, stage: str, spent_s: float) -> None:
        self.stage, self.spent_s = stage, spent_s
        super().__init__(f"the turn used {spent_s:.3f} s of CPU by {stage}")


@dataclass
class TurnBudget:
    limit_s: float
    started: float = field(default_factory=lambda: time.thread_time())

    @property
    def spent_s(self) -> float:
        return time.thread_time() - self.started

    def check(self, stage: str) -> None:
        spent = self.spent_s
        if spent > self.limit_s:
            raise OverBudget(stage, spent)


_CURRENT: ContextVar[TurnBudget | None] = ContextVar("advisor_turn_budget", default=None)


@contextmanager
def turn_budget(limit_s: float | None) -> Iterator[TurnBudget | None]:
    """The budget of the turn run inside this block (None: unlimited), for `check` anywhere in this thread."""
    budget = TurnBudget(limit_s) if limit_s is not None else None
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def check(stage: str) -> None:
    """Raise OverBudget when the current turn's budget is spent; nothing outside a turn."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.check(stage)


def count(stage: str) -> None:
    OVER_BUDGET.labels(stage.split(":")[0][:40]).inc()


@contextmanager
def not_charged() -> Iterator[None]:
    """CPU spent inside is not charged to the current turn (one-time loading)."""
    budget = _CURRENT.get()
    if budget is None:
        yield
        return
    started = time.thread_time()
    try:
        yield
    finally:
        budget.started += time.thread_time() - started


T = TypeVar("T")


def loader(function: Callable[..., T]) -> Callable[..., T]:
    """functools.cache for a loader of data files: its first call per arguments is not charged to the turn making it."""
    results: dict[Any, T] = {}

    @functools.wraps(function)
    def load(*args: Any) -> T:
        try:
            return results[args]
        except KeyError:
            pass
        with not_charged():  # two threads may both load on a first call, as with functools.cache: the same value
            results[args] = function(*args)
        return results[args]

    load.cache_clear = results.clear  # type: ignore[attr-defined]
    return load
