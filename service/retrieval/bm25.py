"""Okapi BM25 over the chunks of one collection, held in memory.

Built from the collection's stored texts when an index opens (a few thousand
chunks take about a second), so it never disagrees with the dense side.
Read-only after construction, hence safe for concurrent searches.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.2
B = 0.75


class BM25:
    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self.size = len(documents)
        lengths = np.array([len(doc) for doc in documents], dtype=np.float32)
        average = float(lengths.mean()) if self.size and lengths.sum() else 1.0
        norm = K1 * (1 - B + B * lengths / average)
        postings: dict[str, list[tuple[int, int]]] = {}
        for row, doc in enumerate(documents):
            for term, count in Counter(doc).items():
                postings.setdefault(term, []).append((row, count))
        # Per term: the rows containing it and each row's precomputed BM25 weight.
        self._terms: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, entries in postings.items():
            rows = np.fromiter((r for r, _ in entries), dtype=np.int64, count=len(entries))
            counts = np.fromiter((c for _, c in entries), dtype=np.float32, count=len(entries))
            idf = math.log(1 + (self.size - len(entries) + 0.5) / (len(entries) + 0.5))
            self._terms[term] = (rows, (idf * counts * (K1 + 1) / (counts + norm[rows])).astype(np.float32))

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """A score per chunk row; 0 where no query term occurs."""
        total = np.zeros(self.size, dtype=np.float32)
        for term in set(query_terms):
            entry = self._terms.get(term)
            if entry is not None:
                rows, weights = entry
                total[rows] += weights
        return total
