"""Retention: delete conversations (with their messages and feedback) not updated for ADVISOR_RETENTION_DAYS,
and analytics question records older than that (any store passed as `also`).

One daemon thread per process sweeps at start-up and then hourly. Several workers sweeping the same
store is harmless: the delete is idempotent. A store that is down is retried at the next sweep.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from service.assistant.store import ConversationStore

log = logging.getLogger("advisor.retention")
SWEEP_INTERVAL_S = 3600.0


class Prunable(Protocol):
    def delete_older_than(self, cutoff: float) -> int: ...


def sweep(store: ConversationStore, retention_days: float, *, now: float | None = None, also: tuple[Prunable, ...] = ()) -> int:
    """Delete what is older than the retention age; returns how many conversations went. 0 days keeps everything."""
    if retention_days <= 0:
        return 0
    cutoff = (now if now is not None else time.time()) - retention_days * 86400
    deleted = store.delete_older_than(cutoff)
    for other in also:  # analytics records (service/analytics/store.py)
        pruned = other.delete_older_than(cutoff)
        if pruned:
            log.info("retention: deleted %d %s rows older than %g days", pruned, type(other).__name__, retention_days)
    if deleted:
        log.info("retention: deleted %d conversations older than %g days", deleted, retention_days)
    return deleted


class RetentionSweeper:
    def __init__(self, store: ConversationStore, retention_days: float, interval_s: float = SWEEP_INTERVAL_S, *,
                 also: tuple[Prunable, ...] = ()) -> None:
        self._store, self._days, self._interval, self._also = store, retention_days, interval_s, also
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> RetentionSweeper:
        if self._days > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="advisor-retention", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sweep(self._store, self._days, also=self._also)
            except Exception as exc:  # a store that is down now is swept next time
                log.warning("retention sweep failed: %s", type(exc).__name__)
            self._stop.wait(self._interval)

    def stop(self) -> None:
        self._stop.set()
