"""Conversation persistence: an interface and its SQLite implementation (WAL mode).

A server database can replace SQLite by implementing `ConversationStore`.
Message text is stored (it is the conversation), but never logged.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel


class StoredMessage(BaseModel):
    id: str
    role: str
    content: str
    created_at: float
    answer: dict[str, Any] | None = None


class Conversation(BaseModel):
    id: str
    created_at: float
    updated_at: float
    language: str | None
    slots: dict[str, Any]
    messages: list[StoredMessage]


class ConversationStore(Protocol):
    def create(self) -> str: ...
    def exists(self, conversation_id: str) -> bool: ...
    def get(self, conversation_id: str) -> Conversation | None: ...
    def slots(self, conversation_id: str) -> dict[str, Any]: ...
    def save_turn(self, conversation_id: str, user_text: str, answer: dict[str, Any], slots: dict[str, Any], language: str) -> None: ...
    def message_exists(self, message_id: str) -> bool: ...
    def add_feedback(self, message_id: str, rating: str, comment: str | None) -> str: ...
    def close(self) -> None: ...


SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    language TEXT,
    slots TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    answer TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, seq);
CREATE TABLE IF NOT EXISTS feedback (
    id TEXT PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    rating TEXT NOT NULL CHECK (rating IN ('up', 'down')),
    comment TEXT,
    created_at REAL NOT NULL
);
"""


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class SqliteConversationStore:
    """One connection guarded by a lock: SQLite serialises writers anyway, and WAL keeps readers unblocked."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(SCHEMA)
        self._lock = threading.Lock()

    def create(self) -> str:
        cid = new_id("conv")
        now = time.time()
        with self._lock:
            self._conn.execute("INSERT INTO conversations (id, created_at, updated_at) VALUES (?, ?, ?)", (cid, now, now))
        return cid

    def exists(self, conversation_id: str) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        return row is not None

    def slots(self, conversation_id: str) -> dict[str, Any]:
        with self._lock:
            row = self._conn.execute("SELECT slots FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def get(self, conversation_id: str) -> Conversation | None:
        with self._lock:
            conv = self._conn.execute("SELECT id, created_at, updated_at, language, slots FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
            if conv is None:
                return None
            rows = self._conn.execute(
                "SELECT id, role, content, created_at, answer FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
            ).fetchall()
        messages = [StoredMessage(id=r[0], role=r[1], content=r[2], created_at=r[3], answer=json.loads(r[4]) if r[4] else None) for r in rows]
        return Conversation(id=conv[0], created_at=conv[1], updated_at=conv[2], language=conv[3], slots=json.loads(conv[4]), messages=messages)

    def save_turn(self, conversation_id: str, user_text: str, answer: dict[str, Any], slots: dict[str, Any], language: str) -> None:
        """The question, the answer and the updated slots, in one transaction."""
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ?", (conversation_id,)).fetchone()[0]
                self._conn.execute("INSERT INTO messages (id, conversation_id, seq, role, content, created_at) VALUES (?, ?, ?, 'user', ?, ?)",
                                   (new_id("msg"), conversation_id, seq + 1, user_text, now))
                self._conn.execute("INSERT INTO messages (id, conversation_id, seq, role, content, answer, created_at) VALUES (?, ?, ?, 'assistant', ?, ?, ?)",
                                   (answer["message_id"], conversation_id, seq + 2, answer["answer"], json.dumps(answer, ensure_ascii=False), now))
                self._conn.execute("UPDATE conversations SET updated_at = ?, language = ?, slots = ? WHERE id = ?",
                                   (now, language, json.dumps(slots, ensure_ascii=False), conversation_id))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def message_exists(self, message_id: str) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM messages WHERE id = ? AND role = 'assistant'", (message_id,)).fetchone()
        return row is not None

    def add_feedback(self, message_id: str, rating: str, comment: str | None) -> str:
        fid = new_id("fb")
        with self._lock:
            self._conn.execute("INSERT INTO feedback (id, message_id, rating, comment, created_at) VALUES (?, ?, ?, ?, ?)",
                               (fid, message_id, rating, comment, time.time()))
        return fid

    def close(self) -> None:
        with self._lock:
            self._conn.close()
