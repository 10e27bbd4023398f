"""Chroma collections for the knowledge index and the pointer to the active one.

Every ingest builds a fresh collection ("advisor-kb-<time>-<random>") and then
flips a pointer: the metadata of the tiny collection "advisor-index-pointer",
changed in one Chroma write. Readers follow the pointer, so a crash at any
moment leaves either the old or the new index serving, never a half-built one.
Because the pointer lives in Chroma itself, it works the same for the embedded
client and for a shared Chroma server.

Embedded mode (default): chromadb.PersistentClient under settings.index_dir.
Server mode: chromadb.HttpClient when settings.chroma_url is set.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

from service.config import Settings
from service.errors import RetrievalError

# The one sanctioned environment write: Chroma's client reports usage unless told not to
# (Settings(anonymized_telemetry=False) below covers the client; this covers import-time code).
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

import chromadb  # noqa: E402  (must follow the telemetry default above)
from chromadb.api import ClientAPI  # noqa: E402
from chromadb.api.models.Collection import Collection  # noqa: E402
from chromadb.config import Settings as ChromaSettings  # noqa: E402
from chromadb.errors import NotFoundError  # noqa: E402

BUILD_PREFIX = "advisor-kb-"
POINTER_NAME = "advisor-index-pointer"
# Cosine distance on unit vectors; a larger search breadth than the default because
# the collection is small and recall matters more than microseconds.
COLLECTION_CONFIG: dict[str, Any] = {"hnsw": {"space": "cosine", "ef_construction": 200, "ef_search": 200}}


def connect(settings: Settings) -> ClientAPI:
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    try:
        if settings.chroma_url:
            url = urlparse(settings.chroma_url)
            if url.scheme not in ("http", "https") or not url.hostname:
                raise RetrievalError(f"CHROMA_URL must look like http://host:port, got {settings.chroma_url!r}")
            ssl = url.scheme == "https"
            return chromadb.HttpClient(
                host=url.hostname, port=url.port or (443 if ssl else 8000), ssl=ssl, settings=chroma_settings
            )
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(settings.index_dir), settings=chroma_settings)
    except RetrievalError:
        raise
    except Exception as exc:  # connection refused, unreadable directory, ...
        raise RetrievalError(f"cannot open the Chroma store: {exc}") from exc


@contextmanager
def _backend_errors(action: str) -> Iterator[None]:
    """Chroma's own errors (server gone, disk full) become RetrievalError: HTTP 503, CLI exit 1."""
    try:
        yield
    except (NotFoundError, RetrievalError):
        raise
    except Exception as exc:
        raise RetrievalError(f"Chroma failed while {action}: {exc}") from exc


class ChromaStore:
    def __init__(self, settings: Settings) -> None:
        self.client = connect(settings)
        self.location = settings.chroma_url or str(settings.index_dir)

    # -- the pointer ---------------------------------------------------------
    def active_name(self) -> str | None:
        with _backend_errors("reading the active-index pointer"):
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
        with _backend_errors("opening the active index"):
            try:
                return self.client.get_collection(name, embedding_function=None)
            except NotFoundError:
                return None

    def activate(self, collection: Collection) -> None:
        """Flip the pointer: one metadata write, atomic in both the embedded and the server store."""
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with _backend_errors("switching the active index"):
            pointer = self.client.get_or_create_collection(
                POINTER_NAME, metadata={"active": collection.name, "swapped_at": now}, embedding_function=None
            )
            pointer.modify(metadata={"active": collection.name, "swapped_at": now})

    # -- building collections ------------------------------------------------
    def create_building(self, manifest: dict[str, str | int]) -> Collection:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dt%H%M%S")
        name = f"{BUILD_PREFIX}{stamp}-{secrets.token_hex(3)}"
        with _backend_errors("creating a collection"):
            return self.client.create_collection(
                name, configuration=COLLECTION_CONFIG, metadata=dict(manifest), embedding_function=None
            )

    def orphans(self) -> list[str]:
        """Index collections the pointer does not name: left over from a crashed or replaced build."""
        active = self.active_name()
        with _backend_errors("listing collections"):
            return [c.name for c in self.client.list_collections() if c.name.startswith(BUILD_PREFIX) and c.name != active]

    def drop(self, name: str) -> None:
        with _backend_errors(f"deleting collection {name}"):
            try:
                self.client.delete_collection(name)
            except NotFoundError:
                pass
