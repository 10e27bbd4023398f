"""The open index's vectors of fixed texts: a table stored with the index (text_vectors.py), found or built for the
index's content, and what an answer reads from it.

Which texts are fixed is decided above retrieval (service/assistant/fixed_texts.py); the index is given how to name
and list that set (use). A server that has just ingested need not wait for the table: with background=True a missing
table is built on a thread, and meanwhile each fixed text an answer asks for gets its own encoder run, exactly the
vector the table will hold, so answers are the same before and after the table is in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from service.retrieval.embeddings import IndexEmbeddings
from service.retrieval.text_vectors import TextVectors, find, load_or_build, text_digest

log = logging.getLogger("advisor.retrieval")


class FixedVectors:
    def __init__(self, cache_dir: Path) -> None:
        self._cache_dir = cache_dir
        self.table = TextVectors.empty()
        self._source: tuple[Callable[[str], str], Callable[[], Iterable[str]]] | None = None
        self._background = False
        # While a table is built in the background: the digests of the texts it will hold, and the thread building it.
        self.pending: frozenset[bytes] | None = None
        self._building: threading.Thread | None = None

    def use(self, set_key: Callable[[str], str], texts: Callable[[], Iterable[str]], background: bool) -> None:
        self._source, self._background = (set_key, texts), background

    @property
    def known(self) -> bool:
        """Whether the fixed texts are known (a table, or one being built): the rest of a turn's texts are the user's."""
        return bool(len(self.table)) or self.pending is not None

    def load(self, fingerprint: str, embedder: IndexEmbeddings) -> int:
        """The table for this content: found, built now, or (background) being built; returns how many texts were
        embedded now."""
        if self._source is None:
            return 0
        set_key, texts = self._source
        key, identity = set_key(fingerprint), embedder.identity
        if not self._background or find(self._cache_dir, identity, key) is not None:
            self.table, embedded = load_or_build(self._cache_dir, identity, key, texts, embedder.encode_one)
            return embedded
        listed = list(dict.fromkeys(texts()))
        self.pending = frozenset(text_digest(t) for t in listed)

        def build() -> None:
            try:
                self.table, _ = load_or_build(self._cache_dir, identity, key, lambda: listed, embedder.encode_one)
            except Exception:  # noqa: BLE001  (answers keep encoding fixed texts one by one; the next start tries again)
                log.exception("building the fixed texts' vectors failed")
                return
            self.pending = None

        self._building = threading.Thread(target=build, name="advisor-fixed-texts", daemon=True)
        self._building.start()
        return 0

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a table being built in the background; True once none is."""
        building = self._building
        if building is not None:
            building.join(timeout)
        return self.pending is None

    def rows(self, texts: list[str], embedder: IndexEmbeddings) -> dict[str, np.ndarray]:
        """The vectors of those texts that are fixed: from the table, or while it is built each from its own run."""
        table, pending = self.table, self.pending
        found: dict[str, np.ndarray] = {}
        for text in texts:
            row = table.row(text)
            if row is not None:
                found[text] = row
            elif pending is not None and text not in found and text_digest(text) in pending:
                found[text] = embedder.encode([text])[0]
        return found
