"""Build the knowledge index: documents and spec cards -> chunks -> vectors -> a new Chroma collection.

The steps, in the order that keeps the serving index safe:

1. Read and validate every document (a bad file raises KnowledgeFileError here,
   before Chroma is touched) and render the spec cards from the catalog.
2. Fingerprint the chunks' content hashes plus the embedder identity. If the
   active collection carries the same fingerprint, stop: nothing changed.
3. Build a new collection. Chunks whose text is unchanged get the vector
   stored in the active collection; only new or edited text is embedded.
4. Flip the pointer to the new collection, then delete the old one.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from service.catalog import Catalog
from service.config import Settings
from service.errors import KnowledgeFileError, RetrievalError
from service.retrieval.cards import spec_cards
from service.retrieval.chunking import Chunk, chunk_document
from service.retrieval.documents import load_documents
from service.retrieval.embeddings import IndexEmbeddings, embedder_identity, make_embedder
from service.retrieval.models import IngestReport
from service.retrieval.store import ChromaStore, Collection

# Bump when what is stored per chunk changes, so existing indexes are rebuilt.
SCHEMA_VERSION = 1
WRITE_BATCH = 32


def collect_chunks(settings: Settings, catalog: Catalog) -> tuple[list[Chunk], int]:
    """Every chunk of the written documents and the spec cards, plus the number of documents."""
    written = load_documents(settings.resolved_knowledge_dir())
    cards = spec_cards(catalog)
    card_ids = {card.id for card in cards}
    for doc in written:
        if doc.id in card_ids:
            raise KnowledgeFileError(doc.path, 2, f"id '{doc.id}' is taken by a spec card generated from the catalog")
    documents = written + cards
    chunks = [chunk for doc in documents for chunk in chunk_document(doc)]
    return chunks, len(documents)


def fingerprint(chunks: Sequence[Chunk], embedder: str) -> str:
    digest = hashlib.sha256(f"{SCHEMA_VERSION}|{embedder}".encode())
    for chunk in sorted(chunks, key=lambda c: c.id):
        digest.update(f"|{chunk.id}={chunk.record_hash}".encode())
    return digest.hexdigest()


def chunk_metadata(chunk: Chunk) -> dict[str, object]:
    metadata: dict[str, object] = {
        "doc_id": chunk.doc_id,
        "language": chunk.language,
        "title": chunk.title,
        "heading": chunk.heading,
        "context": chunk.context,
        "topics": list(chunk.topics),
        "sources": json.dumps(list(chunk.sources), ensure_ascii=False),
        "kind": chunk.kind,
        "position": chunk.position,
        "embed_hash": chunk.embed_hash,
        "record_hash": chunk.record_hash,
    }
    if chunk.names:  # Chroma refuses empty lists
        metadata["names"] = list(chunk.names)
    return metadata


def ingest(settings: Settings, catalog: Catalog, *, progress: bool = False, rebuild: bool = False) -> IngestReport:
    """Bring the index up to date with the knowledge files and the catalog (see the module docstring).

    progress: show a progress bar (plain lines when not on a terminal). rebuild: embed everything again.
    Raises KnowledgeFileError for a malformed file (nothing is touched) and RetrievalError when Chroma fails.
    """
    started = time.perf_counter()
    chunks, document_count = collect_chunks(settings, catalog)
    identity = embedder_identity(settings)
    corpus = fingerprint(chunks, identity)
    with _ingest_lock(settings.index_dir):
        store = ChromaStore(settings)
        active = store.active()
        manifest = (active.metadata or {}) if active is not None else {}
        if not rebuild and manifest.get("fingerprint") == corpus:
            for name in store.orphans():
                store.drop(name)
            return IngestReport(
                unchanged=len(chunks), chunks=len(chunks), documents=document_count, skipped=True,
                collection=active.name, embedder=identity, seconds=time.perf_counter() - started,
            )  # fmt: skip
        reuse = active is not None and not rebuild and manifest.get("embedder") == identity
        previous = _stored_records(active) if active is not None else {}
        vectors = _stored_vectors(active) if reuse else {}
        report = _compare(chunks, previous, identity, document_count)
        report.full_rebuild = not reuse
        building = store.create_building(
            {"embedder": identity, "fingerprint": corpus, "schema": SCHEMA_VERSION, "chunks": len(chunks),
             "documents": document_count, "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        )  # fmt: skip
        try:
            report.embedded = _write(building, chunks, vectors, settings, progress)
            store.activate(building)
        except BaseException:
            store.drop(building.name)  # best effort; a SIGKILL leaves it for the next run's clean-up
            raise
        for name in store.orphans():
            store.drop(name)
    report.collection = building.name
    report.seconds = time.perf_counter() - started
    return report


@contextmanager
def _ingest_lock(index_dir: Path) -> Iterator[None]:
    """One ingest at a time per data directory; a second one waits, then usually finds nothing to do."""
    index_dir.mkdir(parents=True, exist_ok=True)
    with open(index_dir / "ingest.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _stored_records(collection: Collection) -> dict[str, str]:
    stored = collection.get(include=["metadatas"])
    return {cid: str(meta.get("record_hash", "")) for cid, meta in zip(stored["ids"], stored["metadatas"], strict=True)}


def _stored_vectors(collection: Collection) -> dict[str, np.ndarray]:
    """Stored vectors by the hash of the text they embed."""
    stored = collection.get(include=["metadatas", "embeddings"])
    return {
        str(meta["embed_hash"]): np.asarray(vector, dtype=np.float32)
        for meta, vector in zip(stored["metadatas"], stored["embeddings"], strict=True)
        if meta.get("embed_hash")
    }


def _compare(chunks: Sequence[Chunk], previous: dict[str, str], identity: str, document_count: int) -> IngestReport:
    current = {c.id: c.record_hash for c in chunks}
    return IngestReport(
        added=sum(1 for cid in current if cid not in previous),
        updated=sum(1 for cid, h in current.items() if cid in previous and previous[cid] != h),
        unchanged=sum(1 for cid, h in current.items() if previous.get(cid) == h),
        removed=sum(1 for cid in previous if cid not in current),
        chunks=len(chunks),
        documents=document_count,
        embedder=identity,
    )


def _write(collection: Collection, chunks: Sequence[Chunk], vectors: dict[str, np.ndarray], settings: Settings, progress: bool) -> int:
    """Upsert every chunk in batches, embedding only texts without a stored vector; returns how many were embedded."""
    embedder: IndexEmbeddings | None = None
    embedded = 0
    with _progress_reporter(len(chunks), progress) as advance:
        for start in range(0, len(chunks), WRITE_BATCH):
            batch = chunks[start : start + WRITE_BATCH]
            missing = list({c.embed_hash: c.embed_text for c in batch if c.embed_hash not in vectors}.items())
            if missing:
                embedder = embedder or make_embedder(settings)
                for (embed_hash, _), vector in zip(missing, embedder.encode([text for _, text in missing]), strict=True):
                    vectors[embed_hash] = vector
                embedded += len(missing)
            try:
                collection.upsert(
                    ids=[c.id for c in batch],
                    embeddings=np.stack([vectors[c.embed_hash] for c in batch]),
                    documents=[c.text for c in batch],
                    metadatas=[chunk_metadata(c) for c in batch],
                )
            except Exception as exc:
                raise RetrievalError(f"writing to the Chroma collection {collection.name} failed: {exc}") from exc
            advance(len(batch))
            if settings.ingest_batch_delay_s:
                time.sleep(settings.ingest_batch_delay_s)
    return embedded


@contextmanager
def _progress_reporter(total: int, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on a terminal; one plain line per batch in logs and pipes."""
    if not enabled:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console()
    if not console.is_terminal:
        done = 0

        def print_line(n: int) -> None:
            nonlocal done
            done += n
            print(f"ingest: {done}/{total} chunks written", flush=True)

        yield print_line
        return
    columns = (TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("chunks", total=total)
        yield lambda n: bar.advance(task, n)
