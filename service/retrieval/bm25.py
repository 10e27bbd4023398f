"""Okapi BM25 over the rows of one collection, held in memory, scored from bm25s's eager score matrix.

The terms are ours (service.retrieval.text.tokenize: jieba for Chinese, folded
Latin words), so documents and questions are split the same way; bm25s builds
the sparse matrix of per-term scores. Built from the collection's stored texts
when an index opens, so it never disagrees with the dense side. Read-only after
construction, hence safe for concurrent searches.

The built matrix is stored beside the token cache (token_cache.bm25_index) and read back at the next start in
milliseconds: building it took about half a second, and importing bm25s (with scipy) another. Scores are summed here
exactly as bm25s sums them (get_scores_from_ids, its numpy path), so a stored index scores as a fresh one does.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

K1 = 1.2
B = 0.75


class BM25:
    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self.size = len(documents)
        # Our own vocabulary: bm25s refuses query ids it has never seen, and unknown query words simply score 0.
        self._vocabulary: dict[str, int] = {}
        ids = [[self._vocabulary.setdefault(term, len(self._vocabulary)) for term in doc] for doc in documents]
        self._data = self._indices = self._indptr = None
        if self.size and self._vocabulary:
            import bm25s

            # "robertson" idf log(1 + (N - df + 0.5) / (df + 0.5)) is Lucene's: never negative for common words.
            model = bm25s.BM25(k1=K1, b=B, method="lucene")
            model.index((ids, dict(self._vocabulary)), show_progress=False)  # a copy: bm25s adds "" to the one it is given
            self._data, self._indices, self._indptr = (np.asarray(model.scores[k]) for k in ("data", "indices", "indptr"))

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """A score per row; 0 where no query term occurs. Repeated query terms count once."""
        known = sorted({self._vocabulary[t] for t in query_terms if t in self._vocabulary})
        scores = np.zeros(self.size, dtype=np.float32)
        if self._data is None or not known:
            return scores
        for term in known:  # bm25s's BM25._compute_relevance_from_scores, one column per query term
            start, end = self._indptr[term], self._indptr[term + 1]
            np.add.at(scores, self._indices[start:end], self._data[start:end])
        return scores

    # -- stored -------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write the built index to path (atomically); an unwritable directory is only slower."""
        if self._data is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
            np.savez(temporary, data=self._data, indices=self._indices, indptr=self._indptr, size=np.array(self.size),
                     vocabulary=np.array(list(self._vocabulary), dtype=str))
            os.replace(temporary, path)
        except OSError:
            pass

    @classmethod
    def load(cls, path: Path) -> BM25 | None:
        """The index saved in path, or None when it is missing or not one."""
        try:
            with np.load(path, allow_pickle=False) as stored:
                data, indices, indptr = stored["data"], stored["indices"], stored["indptr"]
                size, vocabulary = int(stored["size"]), stored["vocabulary"].tolist()
        except (OSError, ValueError, KeyError):
            return None
        if len(indptr) != len(vocabulary) + 1 or len(data) != len(indices) or (len(indices) and int(indices.max()) >= size):
            return None
        index = cls.__new__(cls)
        index.size, index._vocabulary = size, {term: n for n, term in enumerate(vocabulary)}
        index._data, index._indices, index._indptr = data, indices, indptr
        return index
