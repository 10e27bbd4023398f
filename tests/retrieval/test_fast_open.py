"""An embedded index opens from what it stored: the pointer read from chroma.sqlite3, the collection's stored copy and
the stored BM25 index, without a Chroma client, giving the same searches as reading Chroma."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from service.config import Settings
from service.retrieval import ingest, open_index, snapshot_files
from service.retrieval.bm25 import B, K1, BM25
from service.retrieval.snapshot import _searchable
from service.retrieval.store import ChromaStore, embedded_pointer
from service.retrieval.text import tokenize
from service.retrieval.token_cache import bm25_index, tokenized
from tests.retrieval.conftest import small_catalog

QUERIES = ["断点续训要保存什么", "Young's formula interval", "optimizer state bytes per parameter", "激活重计算", "TestGPU X1"]


def _results(index) -> list[list[tuple[str, float]]]:
    return [[(h.id, h.score) for h in index.search(q, k=5)] for q in QUERIES]


def test_the_pointer_read_from_sqlite_is_chromas_own(small_settings: Settings) -> None:
    ingest(small_settings, small_catalog())
    store = ChromaStore(small_settings)
    active = store.active()
    assert active is not None
    assert embedded_pointer(small_settings.index_dir) == (active.name, dict(active.metadata or {}))
    report = ingest(small_settings, small_catalog(), rebuild=True)  # a new collection: the pointer moves
    assert embedded_pointer(small_settings.index_dir)[0] == report.collection != active.name


def test_a_torn_or_foreign_store_file_is_not_trusted(small_settings: Settings, tmp_path: Path) -> None:
    ingest(small_settings, small_catalog())
    database = small_settings.index_dir / "chroma.sqlite3"
    copy = tmp_path / "copy" / "chroma.sqlite3"
    copy.parent.mkdir()
    data = database.read_bytes()
    copy.write_bytes(data[: len(data) // 3])
    assert embedded_pointer(copy.parent) is None, "a file shorter than its header says is left to Chroma"
    copy.write_bytes(b"not a database " * 100)
    assert embedded_pointer(copy.parent) is None
    assert embedded_pointer(tmp_path / "nothing-here") is None


def test_a_second_open_reads_the_stored_copy_without_chroma_and_searches_the_same(small_settings: Settings) -> None:
    first = open_index(small_settings, small_catalog())  # ingests, reads the collection from Chroma, stores its copy
    cache = small_settings.data_dir / "index-cache"
    assert len(list(cache.glob(f"{snapshot_files.PREFIX}*.npy"))) == 1
    again = open_index(small_settings, small_catalog())
    assert again._store._client is None, "no Chroma client was needed"
    assert isinstance(again._snapshot.vectors, np.memmap), "the vectors are mapped, not copied"
    assert _results(again) == _results(first)
    assert again.info == first.info


@pytest.mark.parametrize("damage", ["vectors", "records"])
def test_a_damaged_copy_is_read_from_chroma_again_and_rewritten(small_settings: Settings, damage: str) -> None:
    first = _results(open_index(small_settings, small_catalog()))
    cache = small_settings.data_dir / "index-cache"
    (path,) = cache.glob(f"{snapshot_files.PREFIX}*.{'npy' if damage == 'vectors' else 'json'}")
    path.write_bytes(path.read_bytes()[:100])
    again = open_index(small_settings, small_catalog())
    assert again._store._client is not None, "Chroma was read"
    assert _results(again) == first
    assert open_index(small_settings, small_catalog())._store._client is None, "the copy was written again"


def test_a_copy_of_another_collection_is_not_used(small_settings: Settings, tmp_path: Path) -> None:
    open_index(small_settings, small_catalog())
    cache = small_settings.data_dir / "index-cache"
    kept = tmp_path / "kept"
    shutil.copytree(cache, kept)
    ingest(small_settings, small_catalog(), rebuild=True)  # a new collection
    for old in kept.glob(f"{snapshot_files.PREFIX}*"):
        shutil.copy(old, cache / old.name)  # the earlier collection's copy, beside nothing for the new one
    again = open_index(small_settings, small_catalog())
    assert again._store._client is not None and again.info["collection"] == embedded_pointer(small_settings.index_dir)[0]


def test_the_stored_bm25_index_scores_exactly_as_bm25s(real_index, tmp_path: Path) -> None:
    import bm25s

    snap = real_index._snapshot
    texts = [_searchable(m, t) for m, t in zip(snap.metadatas, snap.texts, strict=True)]
    texts += _question_texts(real_index)
    tokens = tokenized(texts, None)
    vocabulary: dict[str, int] = {}
    ids = [[vocabulary.setdefault(t, len(vocabulary)) for t in doc] for doc in tokens]
    reference = bm25s.BM25(k1=K1, b=B, method="lucene")
    reference.index((ids, dict(vocabulary)), show_progress=False)
    built = bm25_index(texts, tmp_path)
    stored = bm25_index(texts, tmp_path)
    assert stored is not built and len(list(tmp_path.glob("bm25-*.npz"))) == 1
    queries = [*QUERIES, "训练到一半断电了怎么办", "NCCL all_reduce busbw 8x H100", "ZeRO-3 offload 70B on a 24 GB card", *texts[::97]]
    for query in queries:
        terms = tokenize(query)
        known = sorted({vocabulary[t] for t in terms if t in vocabulary})
        expected = np.asarray(reference.get_scores_from_ids(known), dtype=np.float32) if known else np.zeros(len(texts), np.float32)
        assert np.array_equal(built.scores(terms), expected), query
        assert np.array_equal(stored.scores(terms), expected), query


def _question_texts(index) -> list[str]:
    rows = snapshot_files.read(index._token_cache, index._snapshot.name, index._snapshot.manifest)
    assert rows is not None
    return rows.question_texts


def test_a_foreign_bm25_file_is_rebuilt(tmp_path: Path) -> None:
    texts = ["NVLink 与 NVSwitch 的区别", "ZeRO-3 shards parameters across GPUs"]
    bm25_index(texts, tmp_path)
    (path,) = tmp_path.glob("bm25-*.npz")
    path.write_bytes(b"junk")
    assert BM25.load(path) is None
    assert np.array_equal(bm25_index(texts, tmp_path).scores(["nvlink"]), BM25(tokenized(texts, None)).scores(["nvlink"]))
