"""What is wrong with a SQLite store file, found the same way when a store opens, while it serves and in /readyz.

A sqlite3 exception becomes StoreDamagedError (permanent: corrupt, read-only, cannot be opened) or StoreUnavailableError
(transient: locked or busy), so a damaged store is a 503 naming its repair instead of a bare 500 (issue 28).

Nothing here writes to a damaged file: a store is checked (open for writing, then `PRAGMA quick_check`) before its
schema statements run, and the probe opens it read-only. The damaged file stays exactly as found, for a backup or a
forensic copy; moving it aside is the operator's call, never ours.
"""

from __future__ import annotations

import errno
import functools
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from service.errors import StoreDamagedError, StoreUnavailableError

T = TypeVar("T")
_READ_ONLY_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)


def fault_from(path: Path, exc: BaseException) -> Exception | None:
    """The advisor's error for a sqlite3 (or OS) error met on `path`; None for one that is not the file's fault (a
    constraint, a misuse: IntegrityError, ProgrammingError), which stays as it is."""
    if isinstance(exc, OSError):
        kind = "read_only" if exc.errno in _READ_ONLY_ERRNOS else "unopenable"
        return StoreDamagedError(str(path), kind, exc.strerror or str(exc))
    if type(exc) not in (sqlite3.OperationalError, sqlite3.DatabaseError):
        return None
    text, name = str(exc), getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
        return StoreUnavailableError(f"the conversation store {path} is busy ({text})")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or type(exc) is sqlite3.DatabaseError:
        return StoreDamagedError(str(path), "corrupt", text)  # "malformed", "file is not a database"
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return StoreDamagedError(str(path), "read_only", text)
    return StoreDamagedError(str(path), "unopenable", text)  # cannot open, I/O error, disk full


@contextmanager
def store_faults(path: Path) -> Iterator[None]:
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        fault = fault_from(path, exc)
        if fault is None:
            raise
        raise fault from exc


def guarded(method: Callable[..., T]) -> Callable[..., T]:
    """A store method whose sqlite3 errors become the advisor's (the store keeps its file in `self.path`)."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> T:
        with store_faults(self.path):
            return method(self, *args, **kwargs)

    return wrapper


def check_writable(path: Path) -> None:
    """Open the file for writing and close it again (nothing is written). Permission bits say nothing for root; an
    immutable file or a read-only mount refuses here, before SQLite quietly falls back to read-only."""
    if path.exists():
        os.close(os.open(path, os.O_RDWR))


def damage(connection: sqlite3.Connection) -> str | None:
    """The first problem `PRAGMA quick_check` finds (every page's structure, not the indexes' contents), or None."""
    rows = connection.execute("PRAGMA quick_check(1)").fetchall()
    return None if rows == [("ok",)] else str(rows[0][0])


def open_checked(path: Path) -> sqlite3.Connection:
    """A connection to a store that is writable and whole, checked before anything writes to it."""
    with store_faults(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        check_writable(path)
        connection = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        try:
            problem = damage(connection)
        except BaseException:
            connection.close()
            raise
        if problem:
            connection.close()
            raise StoreDamagedError(str(path), "corrupt", problem)
        return connection


# The probe's quick check, per file state: it reads every page, so it is repeated only when the file changed.
_CHECKED: dict[Path, tuple[tuple[int, int, int], str | None]] = {}
_CHECKED_LOCK = threading.Lock()


def probe(path: Path) -> Exception | None:
    """Readiness: the store's fault (StoreDamagedError, or StoreUnavailableError while a writer holds it) or None.
    Read-only: opening for writing writes nothing, and the connection is `mode=ro`."""
    try:
        check_writable(path)
        stat = path.stat()
        state = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)
        with _CHECKED_LOCK:
            cached = _CHECKED.get(path)
        if cached is not None and cached[0] == state:
            problem = cached[1]
        else:
            connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
            try:
                problem = damage(connection)
            finally:
                connection.close()
            with _CHECKED_LOCK:
                _CHECKED[path] = (state, problem)
    except (sqlite3.Error, OSError) as exc:
        return fault_from(path, exc) or StoreDamagedError(str(path), "unopenable", str(exc))
    return StoreDamagedError(str(path), "corrupt", problem) if problem else None
