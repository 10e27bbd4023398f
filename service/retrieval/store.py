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
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

from service.config import Settings
from service.errors import IndexCorruptError, RetrievalError

# The one sanctioned environment write: Chroma's client reports usage unless told not to
# (Settings(anonymized_telemetry=False) below covers the client; this covers import-time code).
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

import chromadb  # noqa: E402  (must follow the telemetry default above)
from chromadb.api import ClientAPI  # noqa: E402
from chromadb.api.models.Collection import Collection  # noqa: E402
from chromadb.config import Settings as ChromaSettings  # noqa: E402
from chromadb.api.shared_system_client import SharedSystemClient  # noqa: E402
from chromadb.errors import NotFoundError  # noqa: E402

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
    except (NotFoundError, RetrievalError):
        raise
    except Exception as exc:
        raise backend_failure(location, action, exc) from exc


class ChromaStore:
    def __init__(self, settings: Settings) -> None:
        self.client = connect(settings)
        self.location = settings.chroma_url or str(settings.index_dir)
        # Embedded: the index's vectors can be held in the searching process (see KnowledgeIndex).
        self.embedded = not settings.chroma_url

    # -- the pointer ---------------------------------------------------------
    def active_name(self) -> str | None:
        with _backend_errors("reading the active-index pointer", self.location):
            try:
                pointer = self.client.get_collection(POINTER_NAME, embedding_function=None)
            except NotFoundError:
                return None
            return (pointer.metadata or {}).get("active")

    def active(self) -> Collection | None:
        """The collection the pointer names, or None before the first complete ingest."""
        name = self.active_name()
        if name is None:
            return None
        with _backend_errors("opening the active index", self.location):
            try:
                return self.client.get_collection(name, embedding_function=None)
            except NotFoundError:
                return None

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
            except NotFoundError:
                pass
