"""The BM25 token cache: the same tokens as tokenizing afresh, rebuilt whenever the texts change or the file is bad."""

from __future__ import annotations

from pathlib import Path

from service.retrieval import token_cache
from service.retrieval.text import tokenize

TEXTS = ["NVLink 与 NVSwitch 的区别", "ZeRO-3 shards parameters across GPUs", ""]


def _files(directory: Path) -> list[Path]:
    return sorted(directory.glob(f"{token_cache.PREFIX}*.json"))


def test_tokens_equal_a_fresh_tokenization_and_are_written_once(tmp_path: Path) -> None:
    first = token_cache.tokenized(TEXTS, tmp_path)
    assert first == [tokenize(t) for t in TEXTS]
    assert len(_files(tmp_path)) == 1
    assert token_cache.tokenized(TEXTS, tmp_path) == first


def test_the_cached_file_is_what_is_read(tmp_path: Path, monkeypatch) -> None:
    token_cache.tokenized(TEXTS, tmp_path)
    monkeypatch.setattr(token_cache, "tokenize", lambda text: ["not", "read"])  # a second tokenization would show
    assert token_cache.tokenized(TEXTS, tmp_path) == [tokenize(t) for t in TEXTS]


def test_changed_texts_get_a_new_file_and_the_old_one_goes(tmp_path: Path) -> None:
    token_cache.tokenized(TEXTS, tmp_path)
    before = _files(tmp_path)
    changed = [*TEXTS, "FSDP 把模型状态切分到各张卡上"]
    assert token_cache.tokenized(changed, tmp_path) == [tokenize(t) for t in changed]
    after = _files(tmp_path)
    assert len(after) == 1 and after != before


def test_a_corrupt_or_foreign_file_is_rebuilt(tmp_path: Path) -> None:
    token_cache.tokenized(TEXTS, tmp_path)
    (path,) = _files(tmp_path)
    for junk in ("{not json", '{"a": 1}', "[[\"x\"]]"):
        path.write_text(junk, encoding="utf-8")
        assert token_cache.tokenized(TEXTS, tmp_path) == [tokenize(t) for t in TEXTS]


def test_an_unwritable_cache_directory_only_costs_time(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x", encoding="utf-8")
    assert token_cache.tokenized(TEXTS, blocked / "cache") == [tokenize(t) for t in TEXTS]
    assert token_cache.tokenized(TEXTS, None) == [tokenize(t) for t in TEXTS]
