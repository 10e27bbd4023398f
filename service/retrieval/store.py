"""Chroma collections for the knowledge index and the pointer to the active one.

Every ingest builds a fresh collection ("advisor-kb-<time>-<random>") and then
flips a pointer: the metadata of the tiny collection "advisor-index-pointer",
changed in one Chroma write. Readers follow the pointer, so a crash at any
moment leaves either the old or the new index serving, never a half-built one.
Because the pointer lives in Chroma itself, it works the same for the embedded
client and for a shared Chroma server.

Embedded mode (default): chromadb.PersistentClient under settings.index_dir.
Server mode: chromadb.HttpClient when settings.chroma_url is set.

Damaged embedded files (chroma.sqlite3 "file is not a database", "database
disk image is malformed") raise IndexCorruptError, a permanent fault that
names its repair: `advisor ingest --rebuild`, which calls reset_embedded_files.

chromadb is imported when a client is first needed (ingest, a Chroma server, a first read of a collection): it costs
most of a second, and an embedded index that was read before opens from its stored copy (snapshot_files.py), finding
the pointer by reading chroma.sqlite3 directly (embedded_pointer).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from service.config import Settings
from service.errors import IndexCorruptError, RetrievalError

# The one sanctioned environment write: Chroma's client reports usage unless told not to
# (Settings(anonymized_telemetry=False) below covers the client; this covers import-time code).
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

BUILD_PREFIX = "advisor-kb-"
POINTER_NAME = "advisor-index-pointer"
# Cosine distance on unit vectors; a larger search breadth than the default because
# the collection is small and recall matters more than microseconds.
COLLECTION_CONFIG: dict[str, Any] = {"hnsw": {"space": "cosine", "ef_construction": 200, "ef_search": 200}}
# SQLite's own words for a damaged file (SQLITE_NOTADB = 26, SQLITE_CORRUPT = 11), as Chroma passes them on.
_CORRUPTION = re.compile(r"file is not a database|database disk image is malformed|\(code: (?:11|26)\)|database corrupt", re.I)
# What Chroma keeps in an embedded store: the SQLite file (and its journals) and one directory per vector segment.
_CHROMA_FILES = re.compile(r"^chroma\.sqlite3(?:-wal|-shm|-journal)?$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def is_corruption(exc: BaseException) -> bool:
    return bool(_CORRUPTION.search(str(exc)))


def backend_failure(settings_or_location: Settings | str, action: str, exc: BaseException) -> RetrievalError:
    """The error for a failed Chroma call: IndexCorruptError for damaged embedded files, else RetrievalError."""
    if isinstance(settings_or_location, Settings):
        embedded, location = not settings_or_location.chroma_url, str(settings_or_location.index_dir)
    else:
        embedded, location = not settings_or_location.startswith(("http://", "https://")), settings_or_location
    if embedded and is_corruption(exc):
        return IndexCorruptError(location, str(exc))
    return RetrievalError(f"Chroma failed while {action}: {exc}")


def connect(settings: Settings) -> ClientAPI:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    try:
        if settings.chroma_url:
            url = urlparse(settings.chroma_url)
            if url.scheme not in ("http", "https") or not url.hostname:
                raise RetrievalError(f"CHROMA_URL must look like http://host:port, got {settings.chroma_url!r}")
            ssl = url.scheme == "https"
            return chromadb.HttpClient(host=url.hostname, port=url.port or (443 if ssl else 8000), ssl=ssl, settings=chroma_settings)
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(settings.index_dir), settings=chroma_settings)
    except RetrievalError:
        raise
    except Exception as exc:  # connection refused, unreadable directory, damaged files ...
        raise backend_failure(settings, "opening the store", exc) from exc


def reset_embedded_files(settings: Settings) -> list[str]:
    """Remove a damaged embedded store so the next connect() starts empty; returns what was removed.

    Only Chroma's own files go (chroma.sqlite3 and its journals, the segment directories);
    ingest.lock and anything else a user put in the directory stay. The files are first moved
    into one quarantine directory (a rename each), so a crash midway leaves no half-deleted store
    for Chroma to half-read, then that directory is deleted.
    """
    if settings.chroma_url:
        raise RetrievalError("a Chroma server's files are repaired on the server, not by `advisor ingest --rebuild`")
    from chromadb.api.shared_system_client import SharedSystemClient

    index_dir = settings.index_dir
    # This process may hold the damaged store open; drop Chroma's cached handle so the next client opens the new files.
    system = SharedSystemClient._identifier_to_system.pop(str(index_dir), None)
    SharedSystemClient._identifier_to_refcount.pop(str(index_dir), None)
    if system is not None:
        try:
            system.stop()
        except Exception:  # noqa: BLE001  (a damaged store may fail to close; it is being deleted anyway)
            pass
    if not index_dir.is_dir():
        return []
    doomed = sorted(p for p in index_dir.iterdir() if _CHROMA_FILES.match(p.name))
    quarantine = index_dir / f".corrupt-{dt.datetime.now(dt.UTC).strftime('%Y%m%dt%H%M%S')}-{secrets.token_hex(3)}"
    quarantine.mkdir()
    for path in doomed:
        path.rename(quarantine / path.name)
    shutil.rmtree(quarantine)
    return [p.name for p in doomed]


@contextmanager
def _backend_errors(action: str, location: str) -> Iterator[None]:
    """Chroma's own errors (server gone, disk full) become RetrievalError: HTTP 503, CLI exit 1."""
    try:
        yield
    except RetrievalError:
        raise
    except Exception as exc:
        if is_not_found(exc):
            raise
        raise backend_failure(location, action, exc) from exc


def is_not_found(exc: BaseException) -> bool:
    """Whether Chroma said a collection does not exist (only asked after a Chroma call, so chromadb is loaded)."""
    from chromadb.errors import NotFoundError

    return isinstance(exc, NotFoundError)


# The pointer and the active collection's metadata, as Chroma 1.x keeps them in chroma.sqlite3 (the version is pinned;
# a schema this query does not fit makes embedded_pointer answer None, and the client is asked instead).
_POINTER_SQL = """SELECT m.str_value FROM collections c JOIN collection_metadata m ON m.collection_id = c.id
WHERE c.name = ? AND m.key = 'active'"""
_METADATA_SQL = """SELECT m.key, m.str_value, m.int_value, m.float_value, m.bool_value
FROM collections c JOIN collection_metadata m ON m.collection_id = c.id WHERE c.name = ?"""


def embedded_pointer(index_dir: Path) -> tuple[str, dict[str, Any]] | None:
    """(the active collection's name, its metadata) read from an embedded store's SQLite file without chromadb, or None
    whenever that read is not sure: no store or no pointer, a pointer to a missing collection, a file shorter than its
    own header says (a torn write), one SQLite cannot read. The caller then asks Chroma, which also names any damage."""
    path = index_dir / "chroma.sqlite3"
    try:
        size = path.stat().st_size
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            pages = db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]
            if not pages or pages > size:
                return None
            row = db.execute(_POINTER_SQL, (POINTER_NAME,)).fetchone()
            if row is None or not row[0]:
                return None
            metadata: dict[str, Any] = {}
            for key, text, integer, real, flag in db.execute(_METADATA_SQL, (row[0],)):
                metadata[key] = text if text is not None else integer if integer is not None else real if real is not None else (
                    None if flag is None else bool(flag))
    except (OSError, sqlite3.Error):
        return None
    return (row[0], metadata) if metadata else None


class ChromaStore:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.location = settings.chroma_url or str(settings.index_dir)
        # Embedded: the index's vectors can be held in the searching process (see KnowledgeIndex).
        self.embedded = not settings.chroma_url
        self.index_dir = settings.index_dir
        # A server is connected now, so a bad CHROMA_URL fails here; an embedded store when a client is first needed.
        self._client: ClientAPI | None = None if self.embedded else connect(settings)

    @property
    def client(self) -> ClientAPI:
        if self._client is None:
            self._client = connect(self._settings)
        return self._client

    # -- the pointer ---------------------------------------------------------
    def active_name(self) -> str | None:
        if self.embedded and (found := embedded_pointer(self.index_dir)) is not None:
            return found[0]
        with _backend_errors("reading the active-index pointer", self.location):
            try:
                pointer = self.client.get_collection(POINTER_NAME, embedding_function=None)
            except Exception as exc:
                if is_not_found(exc):
                    return None
                raise
            return (pointer.metadata or {}).get("active")

    def active_manifest(self) -> dict[str, Any] | None:
        """The active collection's metadata (ingest.py's manifest), or None before the first complete ingest."""
        if self.embedded and (found := embedded_pointer(self.index_dir)) is not None:
            return found[1]
        active = self.active()
        return None if active is None else dict(active.metadata or {})

    def active(self) -> Collection | None:
        """The collection the pointer names, or None before the first complete ingest."""
        name = self.active_name()
        if name is None:
            return None
        with _backend_errors("opening the active index", self.location):
            try:
                return self.client.get_collection(name, embedding_function=None)
            except Exception as exc:
                if is_not_found(exc):
                    return None
                raise

    def activate(self, collection: Collection) -> None:
        """Flip the pointer: one metadata write, atomic in both the embedded and the server store."""
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with _backend_errors("switching the active index", self.location):
            pointer = self.client.get_or_create_collection(
                POINTER_NAME, metadata={"active": collection.name, "swapped_at": now}, embedding_function=None
            )
            pointer.modify(metadata={"active": collection.name, "swapped_at": now})

    # -- building collections ------------------------------------------------
    def create_building(self, manifest: dict[str, str | int]) -> Collection:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dt%H%M%S")
        name = f"{BUILD_PREFIX}{stamp}-{secrets.token_hex(3)}"
        with _backend_errors("creating a collection", self.location):
            return self.client.create_collection(name, configuration=COLLECTION_CONFIG, metadata=dict(manifest), embedding_function=None)

    def orphans(self) -> list[str]:
        """Index collections the pointer does not name: left over from a crashed or replaced build."""
        active = self.active_name()
        with _backend_errors("listing collections", self.location):
            return [c.name for c in self.client.list_collections() if c.name.startswith(BUILD_PREFIX) and c.name != active]

    def drop(self, name: str) -> None:
        with _backend_errors(f"deleting collection {name}", self.location):
            try:
                self.client.delete_collection(name)
            except Exception as exc:
                if not is_not_found(exc):
                    raise
