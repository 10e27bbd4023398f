"""A stored copy of the active collection, so an embedded index opens without Chroma: read in milliseconds at start.

Reading a collection back from Chroma (every record's text, metadata and vector) took about a second at each start,
and importing chromadb most of another. A collection never changes once the pointer names it (every ingest builds a
new one, store.py), so its records are stored once, in the order a search reads them, under index-cache:

- `collection-<name>.json`: the collection's metadata and, for chunks and section questions, ids, texts and metadata;
- `collection-<name>.npy`: the unit vectors, chunks then questions, read memory-mapped (pages shared by the workers).

A file that is missing, foreign, truncated or stored for other metadata (the fingerprint, the embedder) is not used:
the collection is read from Chroma and the files are written again. Files are replaced atomically, the vectors before
the records that name their count, and an earlier collection's files are removed once the new ones are in place.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PREFIX = "collection-"
VERSION = 1


@dataclass(frozen=True)
class StoredRows:
    """One collection's records as a search reads them (ids sorted, chunks apart from section questions)."""

    name: str
    metadata: dict[str, Any]
    ids: list[str]
    texts: list[str]
    metadatas: list[dict[str, Any]]
    question_ids: list[str]
    question_texts: list[str]
    question_metadatas: list[dict[str, Any]]
    vectors: np.ndarray | None  # unit rows, chunks then questions; None when the vectors stay on a Chroma server


def read(directory: Path, name: str, metadata: dict[str, Any]) -> StoredRows | None:
    """The stored copy of collection `name` if it is whole and was stored for this metadata, else None."""
    try:
        with open(directory / f"{PREFIX}{name}.json", encoding="utf-8") as handle:
            stored = json.load(handle)
        if stored.get("version") != VERSION or stored.get("name") != name or stored.get("metadata") != metadata:
            return None
        vectors = np.load(directory / f"{PREFIX}{name}.npy", mmap_mode="r")
    except (OSError, ValueError, AttributeError):
        return None
    rows = len(stored["ids"]) + len(stored["question_ids"])
    if vectors.ndim != 2 or vectors.shape[0] != rows or vectors.dtype != np.float32:
        return None
    return StoredRows(name=name, metadata=metadata, ids=stored["ids"], texts=stored["texts"], metadatas=stored["metadatas"],
                      question_ids=stored["question_ids"], question_texts=stored["question_texts"],
                      question_metadatas=stored["question_metadatas"], vectors=vectors)


def write(directory: Path, rows: StoredRows) -> None:
    """Store rows (with their vectors) as the copy of their collection; an unwritable directory is only slower."""
    if rows.vectors is None:
        return
    records = {"version": VERSION, "name": rows.name, "metadata": rows.metadata, "ids": rows.ids, "texts": rows.texts,
               "metadatas": rows.metadatas, "question_ids": rows.question_ids, "question_texts": rows.question_texts,
               "question_metadatas": rows.question_metadatas}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tag = f"{os.getpid()}.{threading.get_ident()}"
        vectors = directory / f"{PREFIX}{rows.name}.npy"
        temporary = vectors.with_name(f"{vectors.name}.{tag}.tmp.npy")
        np.save(temporary, np.ascontiguousarray(rows.vectors, dtype=np.float32))
        os.replace(temporary, vectors)
        path = directory / f"{PREFIX}{rows.name}.json"
        temporary = path.with_name(f"{path.name}.{tag}.tmp")
        temporary.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)  # the records last: a reader that finds them finds their vectors
        for other in directory.glob(f"{PREFIX}*"):
            if other.name not in (vectors.name, path.name) and ".tmp" not in other.name:
                other.unlink(missing_ok=True)  # an earlier collection's copy: processes that mapped it keep their mapping
    except OSError:
        pass
