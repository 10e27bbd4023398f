"""First-turn answers kept by question, so a question asked again is not understood, retrieved and composed again.

With no LLM the pipeline is a pure function of (question text, requested language, conversation state, catalog,
knowledge index). A first turn has no conversation state, and a process opens its catalog and index once, so
the same first question always gets the same answer: the widget's suggested questions, a Slack channel's
recurring "what should I check before a run?", a load test. The memo keeps that answer and hands out copies
with the new turn's ids; the turn is still persisted, recorded and counted like any other.

Not memoised: follow-ups (they depend on the conversation), streamed turns (their events are the work as it
happens), and any answer when an LLM writer is configured (its prose is not a function of the question).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from service.contract import Answer


@dataclass(frozen=True)
class MemoEntry:
    """A finished first-turn answer, with what the turn's analytics record needs."""

    answer: Answer
    stored: dict[str, Any]  # answer.model_dump(mode="json"), as the conversation store keeps it
    slots: dict[str, Any]  # the follow-up state the turn leaves behind
    language: str
    intent: str
    trace: Any
    top_score: float | None


class AnswerMemo:
    """A thread-safe LRU of first-turn answers keyed by (question text, requested language)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, str | None], MemoEntry] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str, language: str | None) -> MemoEntry | None:
        with self._lock:
            entry = self._entries.get((text, language))
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end((text, language))
            self.hits += 1
            return entry

    def put(self, text: str, language: str | None, entry: MemoEntry) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._entries[(text, language)] = entry
            self._entries.move_to_end((text, language))
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def for_turn(entry: MemoEntry, *, conversation_id: str, conversation_key: str | None, message_id: str) -> tuple[Answer, dict[str, Any]]:
    """The memoised answer as this turn's: its own ids (a shallow copy; blocks and citations are never mutated after
    composing), and the stored form with the same ids."""
    ids = {"conversation_id": conversation_id, "conversation_key": conversation_key, "message_id": message_id}
    return entry.answer.model_copy(update=ids), {**entry.stored, **ids}
