"""The in-memory snapshot a knowledge search reads and how it is read from the store, kept apart from the
search itself (index.py) because loading is the one part that knows the stored layout of chunks and questions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from service.errors import RetrievalError
from service.retrieval.bm25 import BM25
from service.retrieval.embeddings import unit_rows
from service.retrieval.names import name_index
from service.retrieval.questions import QUESTION_KIND
from service.retrieval import snapshot_files
from service.retrieval.store import ChromaStore, backend_failure, embedded_pointer
from service.retrieval.text import Sentences
from service.retrieval.token_cache import bm25_index

if TYPE_CHECKING:
    from chromadb.api.models.Collection import Collection


@dataclass(frozen=True)
class Snapshot:
    """Everything a search reads, for one collection."""

    name: str  # the collection's
    manifest: dict[str, Any]  # the collection's metadata (ingest.py: embedder, fingerprint, counts)
    collection: Collection | None  # for queries to a Chroma server; None for an embedded store (vectors below)
    ids: list[str]
    texts: list[str]
    metadatas: list[dict[str, Any]]
    row_of: dict[str, int]
    bm25: BM25
    languages: np.ndarray  # per row
    doc_numbers: dict[str, int]  # doc_id -> a number shared by both languages' chunks
    doc_of_row: np.ndarray  # per row: its doc number
    names: dict[str, str]  # normalized catalog name -> card doc_id
    question_row_of: dict[str, int]  # question id -> its position among the question records
    question_targets: list[np.ndarray]  # per question: the chunk rows of its section
    question_metadatas: list[dict[str, Any]]
    vectors: np.ndarray | None = None  # embedded store: unit rows, chunks then questions (None: ask the server)
    sentences: dict[int, Sentences] = field(default_factory=dict)  # per row, filled as rows are first shown
    masks: dict[tuple[str | None, tuple[str, ...]], np.ndarray] = field(default_factory=dict)  # filter -> allowed rows


def load_snapshot(store: ChromaStore, embedder_identity: str, token_cache: Path) -> Snapshot:
    """The active collection read into memory: chunks, section questions, BM25 over both, and the vectors (embedded store).

    An embedded store's collection comes from its stored copy (snapshot_files.py) when there is one, without Chroma."""
    rows, collection = _stored_rows(store, token_cache)
    stored_embedder = rows.metadata.get("embedder")
    if stored_embedder != embedder_identity:
        raise RetrievalError(
            f"the index was built with {stored_embedder}, but the configured embedder is "
            f"{embedder_identity}; run `advisor ingest` to rebuild it"
        )
    row_of = {cid: row for row, cid in enumerate(rows.ids)}
    question_targets = [
        np.array([row_of[t] for t in json.loads(str(meta.get("targets") or "[]")) if t in row_of], dtype=np.int64)
        for meta in rows.question_metadatas
    ]
    # One corpus for chunks and questions: one IDF, one scale, so a question's score compares with a chunk's.
    bm25 = bm25_index([_searchable(meta, text) for meta, text in zip(rows.metadatas, rows.texts, strict=True)] + rows.question_texts,
                      token_cache)
    doc_numbers: dict[str, int] = {}
    doc_of_row = np.array([doc_numbers.setdefault(str(m["doc_id"]), len(doc_numbers)) for m in rows.metadatas], dtype=np.int64)
    names = name_index((str(m["doc_id"]), m.get("names") or []) for m in rows.metadatas)
    return Snapshot(
        name=rows.name,
        manifest=rows.metadata,
        collection=collection,
        ids=rows.ids,
        texts=rows.texts,
        metadatas=rows.metadatas,
        row_of=row_of,
        bm25=bm25,
        languages=np.array([m["language"] for m in rows.metadatas]),
        doc_numbers=doc_numbers,
        doc_of_row=doc_of_row,
        names=names,
        question_row_of={qid: n for n, qid in enumerate(rows.question_ids)},
        question_targets=question_targets,
        question_metadatas=rows.question_metadatas,
        vectors=rows.vectors,
    )


def _stored_rows(store: ChromaStore, cache_dir: Path) -> tuple[snapshot_files.StoredRows, Collection | None]:
    """The active collection's records: an embedded store's stored copy, else read from Chroma (and stored)."""
    if store.embedded and (pointer := embedded_pointer(store.index_dir)) is not None:
        rows = snapshot_files.read(cache_dir, *pointer)
        if rows is not None:
            return rows, None
    collection = store.active()
    if collection is None:
        raise RetrievalError(f"no knowledge index in {store.location}; run `advisor ingest`")
    try:
        include = ["documents", "metadatas", "embeddings"] if store.embedded else ["documents", "metadatas"]
        stored = collection.get(include=include)
    except Exception as exc:
        raise backend_failure(store.location, f"reading the index collection {collection.name}", exc) from exc
    order = sorted(range(len(stored["ids"])), key=lambda i: stored["ids"][i])
    is_question = [(stored["metadatas"][i] or {}).get("kind") == QUESTION_KIND for i in order]
    chunk_order = [i for i, q in zip(order, is_question, strict=True) if not q]
    question_order = [i for i, q in zip(order, is_question, strict=True) if q]
    rows = snapshot_files.StoredRows(
        name=collection.name,
        metadata=dict(collection.metadata or {}),
        ids=[stored["ids"][i] for i in chunk_order],
        texts=[stored["documents"][i] or "" for i in chunk_order],
        metadatas=[dict(stored["metadatas"][i]) for i in chunk_order],
        question_ids=[stored["ids"][i] for i in question_order],
        question_texts=[stored["documents"][i] or "" for i in question_order],
        question_metadatas=[dict(stored["metadatas"][i]) for i in question_order],
        vectors=unit_rows(np.asarray([stored["embeddings"][i] for i in chunk_order + question_order])) if store.embedded else None,
    )
    if store.embedded:
        snapshot_files.write(cache_dir, rows)
        return rows, None
    return rows, collection


def _searchable(meta: dict[str, Any], text: str) -> str:
    """BM25 sees what the embedder saw: title, heading path, body."""
    return "\n".join(part for part in (str(meta.get("title", "")), str(meta.get("context", "")), text) if part)
