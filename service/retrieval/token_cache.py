"""The index's BM25 tokens, cached on disk: jieba over about 5,000 sections costs seconds at every start.

The cache file is named by a digest of the texts and of the tokenizer's own definition (text.py, terms.py and
jieba's version), so any change to either re-tokenizes. A missing, unreadable or foreign file is rebuilt; a data
directory that cannot be written is only slower, never wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import jieba

from service.retrieval import terms, text
from service.retrieval.text import tokenize

PREFIX = "tokens-"


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
