"""Build the knowledge index: documents and spec cards -> chunks -> vectors -> a new Chroma collection.

The steps, in the order that keeps the serving index safe:

1. Read and validate every document (a bad file raises KnowledgeFileError here,
   before Chroma is touched) and render the spec cards from the catalog.
   Each question a section declares becomes a record of its own (questions.py).
2. Fingerprint the records' content hashes plus the embedder identity. If the
   active collection carries the same fingerprint, stop: nothing changed.
3. Build a new collection. Records whose text is unchanged get the vector
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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from service.catalog import Catalog
from service.config import Settings
from service.errors import IndexCorruptError, KnowledgeFileError, RetrievalError
from service.retrieval.cards import spec_cards
from service.retrieval.chunking import Chunk, chunk_document
from service.retrieval.documents import load_documents
from service.retrieval.embeddings import IndexEmbeddings, embedder_identity, make_embedder
from service.retrieval.models import IngestReport
from service.retrieval.questions import QUESTION_KIND, QuestionRecord, question_metadata, question_records
from service.retrieval.store import ChromaStore, backend_failure, reset_embedded_files

if TYPE_CHECKING:
    from chromadb.api.models.Collection import Collection

# Bump when what is stored per chunk changes, so existing indexes are rebuilt.
# 2: chunks carry their section and its source; section questions are records of their own.
SCHEMA_VERSION = 2
WRITE_BATCH = 32


@dataclass(frozen=True)
class _Record:
    """What one Chroma row needs, for a chunk or a question."""

    id: str
    embed_hash: str
    embed_text: str
    document: str
    metadata: dict[str, object]


def collect_records(settings: Settings, catalog: Catalog) -> tuple[list[Chunk], list[QuestionRecord], int]:
    """Every chunk of the written documents and the spec cards, the sections' questions, and the number of documents."""
    written = load_documents(settings.resolved_knowledge_dir())
    cards = spec_cards(catalog)
    card_ids = {card.id for card in cards}
    for doc in written:
        if doc.id in card_ids:
            raise KnowledgeFileError(doc.path, 2, f"id '{doc.id}' is taken by a spec card generated from the catalog")
    documents = written + cards
    chunks = [chunk for doc in documents for chunk in chunk_document(doc)]
    return chunks, question_records(documents, chunks), len(documents)


def fingerprint(records: Sequence[Chunk | QuestionRecord], embedder: str) -> str:
    digest = hashlib.sha256(f"{SCHEMA_VERSION}|{embedder}".encode())
    for record in sorted(records, key=lambda r: r.id):
        digest.update(f"|{record.id}={record.record_hash}".encode())
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
        "source": json.dumps(chunk.source or {}, ensure_ascii=False),
        "section": chunk.section,
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

    progress: show a progress bar (plain lines when not on a terminal). rebuild: embed everything again,
    and if the embedded store is corrupt, remove its files and start an empty one (the repair).
    Raises KnowledgeFileError for a malformed file (nothing is touched), IndexCorruptError for a damaged
    store (without rebuild) and RetrievalError when Chroma fails.
    """
    started = time.perf_counter()
    chunks, questions, document_count = collect_records(settings, catalog)
    identity = embedder_identity(settings)
    corpus = fingerprint([*chunks, *questions], identity)
    with _ingest_lock(settings.index_dir):
        store, active, repaired = _open_store(settings, repair=rebuild)
        manifest = (active.metadata or {}) if active is not None else {}
        if not rebuild and manifest.get("fingerprint") == corpus:
            for name in store.orphans():
                store.drop(name)
            return IngestReport(
                unchanged=len(chunks), chunks=len(chunks), questions=len(questions), documents=document_count, skipped=True,
                collection=active.name, embedder=identity, seconds=time.perf_counter() - started,
            )  # fmt: skip
        reuse = active is not None and not rebuild and manifest.get("embedder") == identity
        previous = _stored_records(active, store.location) if active is not None else {}
        vectors = _stored_vectors(active) if reuse else {}
        report = _compare(chunks, previous, identity, document_count)
        report.full_rebuild = not reuse
        report.questions = len(questions)
        report.repaired = repaired
        building = store.create_building(
            {"embedder": identity, "fingerprint": corpus, "schema": SCHEMA_VERSION, "chunks": len(chunks),
             "questions": len(questions), "documents": document_count,
             "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        )  # fmt: skip
        records = [_Record(c.id, c.embed_hash, c.embed_text, c.text, chunk_metadata(c)) for c in chunks]
        records += [_Record(q.id, q.embed_hash, q.embed_text, q.text, question_metadata(q)) for q in questions]
        try:
            report.embedded = _write(building, records, vectors, settings, progress)
            store.activate(building)
        except BaseException:
            store.drop(building.name)  # best effort; a SIGKILL leaves it for the next run's clean-up
            raise
        for name in store.orphans():
            store.drop(name)
    report.collection = building.name
    report.seconds = time.perf_counter() - started
    return report


def _open_store(settings: Settings, *, repair: bool) -> tuple[ChromaStore, Collection | None, bool]:
    """The store, its active collection, and whether a corrupt embedded store was replaced by an empty one (repair)."""
    try:
        store = ChromaStore(settings)
        active = store.active()
        if repair and active is not None:
            _stored_records(active, store.location)  # reading every record is what finds damage past the first pages
        return store, active, False
    except IndexCorruptError:
        if not repair:
            raise
    reset_embedded_files(settings)
    store = ChromaStore(settings)
    return store, store.active(), True


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


def _stored_records(collection: Collection, location: str) -> dict[str, str]:
    """Record hash per stored chunk (question records are not counted in the report)."""
    try:
        stored = collection.get(include=["metadatas"])
    except Exception as exc:
        raise backend_failure(location, "reading the active index", exc) from exc
    return {
        cid: str(meta.get("record_hash", ""))
        for cid, meta in zip(stored["ids"], stored["metadatas"], strict=True)
        if meta.get("kind") != QUESTION_KIND
    }


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


def _write(collection: Collection, records: Sequence[_Record], vectors: dict[str, np.ndarray], settings: Settings, progress: bool) -> int:
    """Upsert every record in batches, embedding only texts without a stored vector; returns how many were embedded."""
    embedder: IndexEmbeddings | None = None
    embedded = 0
    with _progress_reporter(len(records), progress) as advance:
        for start in range(0, len(records), WRITE_BATCH):
            batch = records[start : start + WRITE_BATCH]
            missing = list({c.embed_hash: c.embed_text for c in batch if c.embed_hash not in vectors}.items())
            if missing:
                embedder = embedder or make_embedder(settings)
                for (embed_hash, _), vector in zip(missing, embedder.encode_many([text for _, text in missing]), strict=True):
                    vectors[embed_hash] = vector
                embedded += len(missing)
            try:
                collection.upsert(
                    ids=[c.id for c in batch],
                    embeddings=np.stack([vectors[c.embed_hash] for c in batch]),
                    documents=[c.document for c in batch],
                    metadatas=[c.metadata for c in batch],
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
            print(f"ingest: {done}/{total} chunks written", flush=True)  # questions included

        yield print_line
        return
    columns = (TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("chunks", total=total)
        yield lambda n: bar.advance(task, n)
