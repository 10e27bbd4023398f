"""Conversation persistence: an interface and its SQLite implementation (WAL mode).

A server database can replace SQLite by implementing `ConversationStore`.
Message text is stored (it is the conversation), but never logged.

Conversations belong to an owner (a digest of the API key that started them, `slack:<team>`,
or None when auth is off) and may carry a channel's external key (`slack:T1:C2:1712.5`):
lookups by id or key only find the caller's own conversations.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from service.sqlite_faults import guarded, open_checked, store_faults


class StoredMessage(BaseModel):
    id: str
    role: str
    content: str
    created_at: float
    answer: dict[str, Any] | None = None
    channel: str | None = Field(default=None, description="the channel the turn came through (api, widget, slack, cli)")


class Conversation(BaseModel):
    id: str
    conversation_key: str | None = None
    created_at: float
    updated_at: float
    language: str | None
    slots: dict[str, Any]
    messages: list[StoredMessage]


class ConversationStore(Protocol):
    def create(self, *, owner: str | None = None, key: str | None = None) -> str: ...
    def exists(self, conversation_id: str, *, owner: str | None = None) -> bool: ...
    def find_key(self, key: str, *, owner: str | None = None) -> str | None: ...
    def bind_key(self, key: str, *, owner: str | None = None, conversation_id: str | None = None) -> str | None: ...
    def get(self, conversation_id: str, *, owner: str | None = None) -> Conversation | None: ...
    def slots(self, conversation_id: str) -> dict[str, Any]: ...
    def save_turn(self, conversation_id: str, user_text: str, answer: dict[str, Any], slots: dict[str, Any], language: str, *,
                  channel: str | None = None) -> None: ...
    def message_exists(self, message_id: str, *, owner: str | None = None) -> bool: ...
    def add_feedback(self, message_id: str, rating: str, comment: str | None) -> str: ...
    def delete(self, conversation_id: str, *, owner: str | None = None) -> bool: ...
    def delete_older_than(self, cutoff: float) -> int: ...
    def ping(self) -> None: ...
    def close(self) -> None: ...


SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    language TEXT,
    slots TEXT NOT NULL DEFAULT '{}',
    owner TEXT,
    conversation_key TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    answer TEXT,
    created_at REAL NOT NULL,
    channel TEXT
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
# Columns added after the first release: (table, column, declaration). Older files gain them in place.
MIGRATIONS = (("conversations", "owner", "TEXT"), ("conversations", "conversation_key", "TEXT"), ("messages", "channel", "TEXT"))
# Created after the migrations, since they name the added columns. '' stands for "no owner" so NULLs collide too.
INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS conversations_by_key ON conversations(COALESCE(owner, ''), conversation_key) WHERE conversation_key IS NOT NULL;
"""


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class SqliteConversationStore:
    """One connection guarded by a lock: SQLite serialises writers anyway, and WAL keeps readers unblocked.

    Every sqlite3 error is the advisor's (service/sqlite_faults.py): a damaged or read-only file is StoreDamagedError.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # Checked (writable, every page readable) before the schema statements below could write to a damaged file.
        self._conn = open_checked(path)
        with store_faults(path):
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(SCHEMA)
            self._migrate()
            self._conn.executescript(INDEXES)
        self._lock = threading.Lock()

    def _migrate(self) -> None:
        for table, column, declaration in MIGRATIONS:
            present = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    @guarded
    def create(self, *, owner: str | None = None, key: str | None = None) -> str:
        cid = new_id("conv")
        now = time.time()
        with self._lock:
            self._conn.execute("INSERT INTO conversations (id, created_at, updated_at, owner, conversation_key) VALUES (?, ?, ?, ?, ?)",
                               (cid, now, now, owner, key))
        return cid

    @guarded
    def exists(self, conversation_id: str, *, owner: str | None = None) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM conversations WHERE id = ? AND owner IS ?", (conversation_id, owner)).fetchone()
        return row is not None

    @guarded
    def find_key(self, key: str, *, owner: str | None = None) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT id FROM conversations WHERE conversation_key = ? AND owner IS ?", (key, owner)).fetchone()
        return row[0] if row else None

    @guarded
    def bind_key(self, key: str, *, owner: str | None = None, conversation_id: str | None = None) -> str | None:
        """The owner's conversation for `key`: the existing one, else `conversation_id` (given the key), else a new one.

        None when `conversation_id` already has another key (a conversation answers to one key).

        One transaction, so two first requests with the same new key end in the same conversation.
        """
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                row = self._conn.execute("SELECT id FROM conversations WHERE conversation_key = ? AND owner IS ?", (key, owner)).fetchone()
                if row is not None:
                    cid = row[0]
                elif conversation_id is not None:
                    updated = self._conn.execute("UPDATE conversations SET conversation_key = ? WHERE id = ? AND owner IS ? AND conversation_key IS NULL",
                                                 (key, conversation_id, owner)).rowcount
                    cid = conversation_id if updated else None  # it already answers to another key
                else:
                    cid = new_id("conv")
                    self._conn.execute("INSERT INTO conversations (id, created_at, updated_at, owner, conversation_key) VALUES (?, ?, ?, ?, ?)",
                                       (cid, now, now, owner, key))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return cid

    @guarded
    def slots(self, conversation_id: str) -> dict[str, Any]:
        with self._lock:
            row = self._conn.execute("SELECT slots FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    @guarded
    def get(self, conversation_id: str, *, owner: str | None = None) -> Conversation | None:
        with self._lock:
            conv = self._conn.execute("SELECT id, created_at, updated_at, language, slots, conversation_key FROM conversations WHERE id = ? AND owner IS ?",
                                      (conversation_id, owner)).fetchone()
            if conv is None:
                return None
            rows = self._conn.execute(
                "SELECT id, role, content, created_at, answer, channel FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
            ).fetchall()
        messages = [StoredMessage(id=r[0], role=r[1], content=r[2], created_at=r[3], answer=json.loads(r[4]) if r[4] else None, channel=r[5])
                    for r in rows]
        return Conversation(id=conv[0], conversation_key=conv[5], created_at=conv[1], updated_at=conv[2], language=conv[3], slots=json.loads(conv[4]),
                            messages=messages)

    @guarded
    def save_turn(self, conversation_id: str, user_text: str, answer: dict[str, Any], slots: dict[str, Any], language: str, *,
                  channel: str | None = None) -> None:
        """The question, the answer and the updated slots, in one transaction."""
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ?", (conversation_id,)).fetchone()[0]
                self._conn.execute("INSERT INTO messages (id, conversation_id, seq, role, content, created_at, channel) VALUES (?, ?, ?, 'user', ?, ?, ?)",
                                   (new_id("msg"), conversation_id, seq + 1, user_text, now, channel))
                self._conn.execute(
                    "INSERT INTO messages (id, conversation_id, seq, role, content, answer, created_at, channel) VALUES (?, ?, ?, 'assistant', ?, ?, ?, ?)",
                    (answer["message_id"], conversation_id, seq + 2, answer["answer"], json.dumps(answer, ensure_ascii=False), now, channel))
                self._conn.execute("UPDATE conversations SET updated_at = ?, language = ?, slots = ? WHERE id = ?",
                                   (now, language, json.dumps(slots, ensure_ascii=False), conversation_id))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    @guarded
    def message_exists(self, message_id: str, *, owner: str | None = None) -> bool:
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                                     "WHERE m.id = ? AND m.role = 'assistant' AND c.owner IS ?", (message_id, owner)).fetchone()
        return row is not None

    @guarded
    def add_feedback(self, message_id: str, rating: str, comment: str | None) -> str:
        fid = new_id("fb")
        with self._lock:
            self._conn.execute("INSERT INTO feedback (id, message_id, rating, comment, created_at) VALUES (?, ?, ?, ?, ?)",
                               (fid, message_id, rating, comment, time.time()))
        return fid

    @guarded
    def delete(self, conversation_id: str, *, owner: str | None = None) -> bool:
        """Delete the owner's conversation with its messages and feedback (foreign keys cascade); False when not theirs or absent."""
        with self._lock:
            return self._conn.execute("DELETE FROM conversations WHERE id = ? AND owner IS ?", (conversation_id, owner)).rowcount > 0

    @guarded
    def delete_older_than(self, cutoff: float) -> int:
        """Retention: delete conversations last updated before `cutoff` (epoch seconds); returns how many."""
        with self._lock:
            return self._conn.execute("DELETE FROM conversations WHERE updated_at < ?", (cutoff,)).rowcount

    @guarded
    def ping(self) -> None:
        """Raise when the store cannot answer a trivial query (readiness)."""
        with self._lock:
            self._conn.execute("SELECT 1").fetchone()

    @guarded
    def close(self) -> None:
        with self._lock:
            self._conn.close()
