"""The index's BM25 tokens and the BM25 index built from them, cached on disk: jieba over about 5,000 sections costs
seconds at every start, and building the index half a second more.

The cache files are named by a digest of the texts and of the tokenizer's own definition (text.py, terms.py and
jieba's version), the index's also by bm25.py and bm25s's version, so any change to either re-tokenizes or rebuilds.
A missing, unreadable or foreign file is rebuilt; a data directory that cannot be written is only slower, never wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from importlib import metadata

import jieba

from service.retrieval import bm25, terms, text
from service.retrieval.bm25 import BM25
from service.retrieval.text import tokenize

PREFIX = "tokens-"
INDEX_PREFIX = "bm25-"


def bm25_index(texts: list[str], cache_dir: Path | None) -> BM25:
    """BM25 over tokenize(t) of every text, read from the cache when it was built from exactly these texts and code."""
    if cache_dir is None:
        return BM25(tokenized(texts, None))
    definition = hashlib.sha256(Path(bm25.__file__).read_bytes() + metadata.version("bm25s").encode()).hexdigest()[:8]
    path = cache_dir / f"{INDEX_PREFIX}{_digest(texts)}-{definition}.npz"
    index = BM25.load(path)
    if index is None:
        index = BM25(tokenized(texts, cache_dir))
        index.save(path)
        for stale in cache_dir.glob(f"{INDEX_PREFIX}*.npz"):
            if stale != path and ".tmp" not in stale.name:
                stale.unlink(missing_ok=True)
    return index


def tokenized(texts: list[str], cache_dir: Path | None) -> list[list[str]]:
    """tokenize(t) for every text, from the cache when it holds exactly these texts under this tokenizer."""
    if cache_dir is None:
        return [tokenize(t) for t in texts]
    path = cache_dir / f"{PREFIX}{_digest(texts)}.json"
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(cached, list) and len(cached) == len(texts) and all(isinstance(row, list) for row in cached):
            return cached
    except (OSError, ValueError):
        pass
    tokens = [tokenize(t) for t in texts]
    _write(path, tokens)
    return tokens


def _digest(texts: list[str]) -> str:
    h = hashlib.sha256()
    for source in (text.__file__, terms.__file__):
        h.update(Path(source).read_bytes())
    h.update(str(getattr(jieba, "__version__", "")).encode())
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:24]


def _write(path: Path, tokens: list[list[str]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_text(json.dumps(tokens, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)  # atomic: a concurrent reader sees the old file or the whole new one
        for stale in path.parent.glob(f"{PREFIX}*.json"):
            if stale != path:
                stale.unlink(missing_ok=True)  # an earlier index's tokens: every process has them in memory already
    except OSError:
        pass
