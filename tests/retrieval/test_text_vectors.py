"""The stored table of fixed texts' vectors: built once, read back memory-mapped, and rebuilt only for what changed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from service.retrieval import text_vectors
from service.retrieval.embeddings import shared_use_multilingual
from service.retrieval.text_vectors import DIGEST_BYTES, load_or_build, text_digest


class CountingEncoder:
    """The real encoder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.encoder = shared_use_multilingual()
        self.texts: list[str] = []

    def __call__(self, text: str) -> np.ndarray:
        self.texts.append(text)
        return self.encoder.encode_one(text)


@pytest.fixture(autouse=True)
def own_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No table from another test's memory or from the user's cache."""
    monkeypatch.setattr(text_vectors, "_MEMORY", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


SENTENCES = ["ZeRO-3 shards parameters, gradients and optimizer states.", "张量并行通常只在机内做。", "NVLink 4 gives 900 GB/s per H100."]


def test_a_table_is_built_once_then_read_from_its_file_with_the_encoders_own_vectors(tmp_path: Path) -> None:
    encode = CountingEncoder()
    table, embedded = load_or_build(tmp_path, "enc-a", "set1", lambda: SENTENCES, encode)
    assert embedded == 3 and sorted(encode.texts) == sorted(SENTENCES)
    text_vectors._MEMORY.clear()  # as a new process would
    again, embedded = load_or_build(tmp_path, "enc-a", "set1", lambda: pytest.fail("the set is not computed again"), encode)
    assert embedded == 0 and len(encode.texts) == 3
    assert isinstance(again.vectors, np.memmap), "read memory-mapped, not loaded"
    for text in SENTENCES:
        assert np.array_equal(again.row(text), shared_use_multilingual().encode_one(text))
    assert again.row("a text that was never stored") is None


def test_a_changed_sentence_re_embeds_only_itself_and_the_old_set_is_dropped(tmp_path: Path) -> None:
    load_or_build(tmp_path, "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    encode = CountingEncoder()
    changed = [*SENTENCES[:2], "NVLink 4 gives 900 GB/s per H100 SXM."]
    table, embedded = load_or_build(tmp_path, "enc-a", "set2", lambda: changed, encode)
    assert embedded == 1 and encode.texts == [changed[2]]
    assert table.row(SENTENCES[2]) is None, "a text no longer in the set is not kept"
    assert len(list(tmp_path.glob("text-vectors-*.npy"))) == 1, "the earlier set's file is removed"


def test_another_encoder_re_embeds_everything(tmp_path: Path) -> None:
    load_or_build(tmp_path, "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    encode = CountingEncoder()
    _, embedded = load_or_build(tmp_path, "enc-b", "set1", lambda: SENTENCES, encode)
    assert embedded == 3, "vectors of one encoder never stand in for another's"


def test_another_data_directory_with_the_same_content_reuses_the_table(tmp_path: Path) -> None:
    load_or_build(tmp_path / "first", "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    text_vectors._MEMORY.clear()
    encode = CountingEncoder()
    table, embedded = load_or_build(tmp_path / "second", "enc-a", "set1", lambda: SENTENCES, encode)
    assert embedded == 0 and not encode.texts, "found in the user cache"
    assert (tmp_path / "second" / f"text-vectors-{text_vectors.encoder_tag('enc-a')}-set1.npy").is_file(), "and stored with this index too"


def test_a_digest_ending_in_zero_bytes_is_found(tmp_path: Path) -> None:
    # numpy's byte strings drop trailing zero bytes; the keys are stored as raw bytes so such a digest still matches.
    text = next(t for t in (f"sentence {n}" for n in range(100_000)) if hashlib.sha256(t.encode()).digest()[DIGEST_BYTES - 1] == 0)
    assert text_digest(text).endswith(b"\0")
    load_or_build(tmp_path, "enc-a", "set1", lambda: [text], CountingEncoder())
    text_vectors._MEMORY.clear()
    table, _ = load_or_build(tmp_path, "enc-a", "set1", lambda: [text], CountingEncoder())
    assert table.row(text) is not None


def test_an_unwritable_directory_keeps_the_table_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    table, embedded = load_or_build(blocked / "cache", "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    assert embedded == 3 and table.row(SENTENCES[0]) is not None


def test_a_truncated_file_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    load_or_build(tmp_path, "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    copies = [next(tmp_path.glob("text-vectors-*.npy")), *(tmp_path / "user-cache").rglob("text-vectors-*.npy")]
    copies[0].write_bytes(copies[0].read_bytes()[:100])
    text_vectors._MEMORY.clear()
    table, embedded = load_or_build(tmp_path, "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    assert embedded == 0 and np.array_equal(table.row(SENTENCES[1]), shared_use_multilingual().encode_one(SENTENCES[1])), "repaired from the user cache"
    for copy in copies:
        copy.write_bytes(copy.read_bytes()[:100])
    text_vectors._MEMORY.clear()
    table, embedded = load_or_build(tmp_path, "enc-a", "set1", lambda: SENTENCES, CountingEncoder())
    assert embedded == 3 and table.row(SENTENCES[1]) is not None


def test_a_table_built_in_the_background_answers_with_the_same_vectors_meanwhile(small_settings) -> None:
    from service.assistant import fixed_texts
    from service.retrieval import open_index
    from tests.retrieval.conftest import small_catalog

    index = open_index(small_settings, small_catalog())
    assert fixed_texts.prepare(index, small_catalog(), background=True) == 0
    assert index._fixed.pending is not None, "the table is being built, the index already answers"
    section_text, heading, _ = index.sections()[0]
    # A fixed text asked for with the parts of a user's question: the fixed one gets its own run, the parts one run together.
    asked = [heading, "how much memory does my 13B model need", "and how long would it train on 8 cards"]
    meanwhile = index.embed(asked)
    alone = index.embed([section_text])
    assert index._fixed.pending is not None, "still building: the vectors above were not read from the table"
    assert index.wait_fixed_texts(timeout=300)
    assert index._fixed.table.row(heading) is not None
    # What an index opened with the table in place gives (its own cache of user texts, as a restarted server's).
    later = open_index(small_settings, small_catalog())
    assert fixed_texts.prepare(later, small_catalog(), background=True) == 0 and later._fixed.pending is None
    assert np.array_equal(later.embed(asked), meanwhile)
    assert np.array_equal(later.embed([section_text]), alone)
    assert np.array_equal(alone[0], shared_use_multilingual().encode_one(section_text))
