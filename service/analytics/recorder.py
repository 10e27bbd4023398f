"""The Recorder: turns a finished turn into a QuestionRecord and stores it, never failing the user's answer.

A store that is down, full or read-only costs the record, not the answer: the failure is logged (without
the question) and counted in advisor_analytics_record_errors.
"""

from __future__ import annotations

import logging

from prometheus_client import Counter

from service.analytics.records import Outcome, QuestionRecord, TurnFacts, build_record
from service.analytics.store import AnalyticsStore
from service.observability.metrics import REGISTRY

log = logging.getLogger("advisor.analytics")
RECORD_ERRORS = Counter("advisor_analytics_record_errors", "Question records that could not be stored", registry=REGISTRY)


class Recorder:
    def __init__(self, store: AnalyticsStore, *, store_questions: bool = False) -> None:
        self.store = store
        self.store_questions = store_questions

    def record(self, facts: TurnFacts, *, outcome: Outcome, tools: list[str]) -> QuestionRecord | None:
        try:
            record = build_record(facts, outcome=outcome, tools=tools, store_text=self.store_questions)
            self.store.add(record)
            return record
        except Exception as exc:  # noqa: BLE001 — recording is best effort by design
            RECORD_ERRORS.inc()
            log.warning("question record not stored: %s", type(exc).__name__)
            return None

    def forget(self, conversation_id: str) -> None:
        """A deleted conversation's question texts go too (its counts stay)."""
        try:
            self.store.forget_text(conversation_id)
        except Exception as exc:  # noqa: BLE001
            RECORD_ERRORS.inc()
            log.warning("question texts of a deleted conversation not cleared: %s", type(exc).__name__)
