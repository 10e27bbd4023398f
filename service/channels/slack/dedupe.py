"""Exactly one reply per Slack event, command and click, across retries, duplicates, replays and restarts.

Slack retries an event it thinks was not acknowledged (X-Slack-Retry-Num) and sends a mention
in a DM both as `app_mention` and as `message.im`, with different event ids. Each delivery
claims its event id and its message (channel + ts); a slash command or an interaction claims its
signature, which repeats only when a signed request is replayed unchanged. Only the first claim wins. Claims live in
SQLite in the data directory, so a restart between a delivery and its retry does not answer
twice, and expire after a day (Slack stops retrying after about an hour).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

SCHEMA = "CREATE TABLE IF NOT EXISTS slack_seen (key TEXT PRIMARY KEY, seen_at REAL NOT NULL)"
DEFAULT_TTL_S = 24 * 3600


class EventDeduper:
    def __init__(self, path: Path, *, ttl_s: float = DEFAULT_TTL_S) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(SCHEMA)
        self._lock = threading.Lock()
        self._ttl_s = ttl_s

    def claim(self, *keys: str, now: float | None = None) -> bool:
        """True when none of the keys was seen (all are then recorded); False for a duplicate. Atomic."""
        now = time.time() if now is None else now
        keys = tuple(k for k in keys if k)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM slack_seen WHERE seen_at < ?", (now - self._ttl_s,))
                marks = ",".join("?" * len(keys))
                seen = self._conn.execute(f"SELECT 1 FROM slack_seen WHERE key IN ({marks}) LIMIT 1", keys).fetchone() if keys else None
                if seen is None:
                    self._conn.executemany("INSERT INTO slack_seen (key, seen_at) VALUES (?, ?)", [(k, now) for k in keys])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return seen is None

    def close(self) -> None:
        with self._lock:
            self._conn.close()
