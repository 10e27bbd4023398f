"""Okapi BM25 over the rows of one collection, held in memory, scored by bm25s.

The terms are ours (service.retrieval.text.tokenize: jieba for Chinese, folded
Latin words), so documents and questions are split the same way; bm25s only
does the scoring, from an eagerly computed sparse matrix. Built from the
collection's stored texts when an index opens, so it never disagrees with the
dense side. Read-only after construction, hence safe for concurrent searches.
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np

K1 = 1.2
B = 0.75


class BM25:
    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self.size = len(documents)
        # Our own vocabulary: bm25s refuses query ids it has never seen, and unknown query words simply score 0.
        self._vocabulary: dict[str, int] = {}
        ids = [[self._vocabulary.setdefault(term, len(self._vocabulary)) for term in doc] for doc in documents]
        self._model: bm25s.BM25 | None = None
        if self.size and self._vocabulary:
            # "robertson" idf log(1 + (N - df + 0.5) / (df + 0.5)) is Lucene's: never negative for common words.
            self._model = bm25s.BM25(k1=K1, b=B, method="lucene")
            self._model.index((ids, self._vocabulary), show_progress=False)

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """A score per row; 0 where no query term occurs. Repeated query terms count once."""
        known = sorted({self._vocabulary[t] for t in query_terms if t in self._vocabulary})
        if self._model is None or not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._model.get_scores_from_ids(known), dtype=np.float32)
