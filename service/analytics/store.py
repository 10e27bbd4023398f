"""Question records in SQLite: a `question_records` table in the conversation database's file.

The analytics store opens its own connection to the same file (WAL lets it write beside the conversation
store), so the conversation store's code is untouched and the table can also live in a file of its own
(tests do that to scan the bytes for question text). Records have no foreign key to conversations:
deleting a conversation keeps its counts but `forget_text` clears any stored question text.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from service.analytics.records import QuestionRecord
from service.sqlite_faults import guarded, open_checked, store_faults

SCHEMA = """
CREATE TABLE IF NOT EXISTS question_records (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    channel TEXT NOT NULL,
    language TEXT,
    intent TEXT,
    runner_up TEXT,
    intent_score REAL,
    domain_similarity REAL,
    tools TEXT NOT NULL DEFAULT '[]',
    outcome TEXT NOT NULL,
    retrieval_confidence REAL,
    total_ms REAL NOT NULL,
    stages_ms TEXT NOT NULL DEFAULT '{}',
    conversation_id TEXT,
    message_id TEXT,
    question TEXT
);
CREATE INDEX IF NOT EXISTS question_records_by_time ON question_records(created_at);
CREATE INDEX IF NOT EXISTS question_records_by_message ON question_records(message_id);
CREATE INDEX IF NOT EXISTS question_records_by_conversation ON question_records(conversation_id);
"""
COLUMNS = (
    "id",
    "created_at",
    "channel",
    "language",
    "intent",
    "runner_up",
    "intent_score",
    "domain_similarity",
    "tools",
    "outcome",
    "retrieval_confidence",
    "total_ms",
    "stages_ms",
    "conversation_id",
    "message_id",
    "question",
)
JSON_COLUMNS = ("tools", "stages_ms")


class FeedbackItem(BaseModel):
    message_id: str
    rating: str
    comment: str | None
    created_at: float


class AnalyticsStore(Protocol):
    def add(self, record: QuestionRecord) -> None: ...
    def records(self, since: float) -> list[QuestionRecord]: ...
    def feedback(self, since: float) -> list[FeedbackItem]: ...
    def forget_text(self, conversation_id: str) -> int: ...
    def delete_older_than(self, cutoff: float) -> int: ...
    def close(self) -> None: ...


def row_values(record: QuestionRecord) -> tuple:
    data = record.model_dump()
    return tuple(json.dumps(data[c], ensure_ascii=False) if c in JSON_COLUMNS else data[c] for c in COLUMNS)


def from_row(row: tuple | dict) -> QuestionRecord:
    data = dict(zip(COLUMNS, row, strict=True)) if not isinstance(row, dict) else dict(row)
    for column in JSON_COLUMNS:
        if isinstance(data[column], str):
            data[column] = json.loads(data[column])
    return QuestionRecord.model_validate(data)


class SqliteAnalyticsStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = open_checked(path)  # the conversation store's file: checked the same way before anything writes
        with store_faults(path):
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            # Deleted rows are overwritten, so text cleared by forget_text or retention does not linger in free pages.
            self._conn.execute("PRAGMA secure_delete=ON")
            self._conn.executescript(SCHEMA)
        self._lock = threading.Lock()

    @guarded
    def add(self, record: QuestionRecord) -> None:
        with self._lock:
            self._conn.execute(f"INSERT INTO question_records ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})", row_values(record))

    @guarded
    def records(self, since: float) -> list[QuestionRecord]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {', '.join(COLUMNS)} FROM question_records WHERE created_at >= ? ORDER BY created_at, id", (since,)).fetchall()
        return [from_row(r) for r in rows]

    @guarded
    def feedback(self, since: float) -> list[FeedbackItem]:
        """Feedback on recorded answers, from the conversation store's table when it shares this file (else none)."""
        with self._lock:
            if self._conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'feedback'").fetchone() is None:
                return []
            rows = self._conn.execute(
                "SELECT message_id, rating, comment, created_at FROM feedback WHERE created_at >= ? ORDER BY created_at DESC, id", (since,)
            ).fetchall()
        return [FeedbackItem(message_id=r[0], rating=r[1], comment=r[2], created_at=r[3]) for r in rows]

    @guarded
    def forget_text(self, conversation_id: str) -> int:
        with self._lock:
            return self._conn.execute(
                "UPDATE question_records SET question = NULL WHERE conversation_id = ? AND question IS NOT NULL", (conversation_id,)
            ).rowcount

    @guarded
    def delete_older_than(self, cutoff: float) -> int:
        with self._lock:
            return self._conn.execute("DELETE FROM question_records WHERE created_at < ?", (cutoff,)).rowcount

    @guarded
    def close(self) -> None:
        with self._lock:
            self._conn.close()
