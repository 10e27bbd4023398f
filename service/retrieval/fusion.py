"""Combine dense and BM25 evidence into one ranking (hybrid mode).

Measured on the retrieval set (docs/retrieval.md), three choices beat plain
reciprocal-rank fusion, which rewards any chunk that both sides list, even
junk found by a single shared word:

1. Scores, not ranks: cosine similarity plus a BM25 score scaled to [0, 1] by
   the best BM25 score of the query, times BM25_SCALE. A perfect lexical match
   is worth about as much as a clearly better embedding match, no more.
   Chinese questions get a larger share: the encoder is measurably weaker on
   Chinese (dense MRR 0.75 vs 0.85 on English) while jieba BM25 is stronger.
2. Cross-language BM25 counts half: when a chunk is in the other language than
   the question, the words they share are only names and numbers, weak evidence
   compared with the embedding, which does understand both languages.
3. Document evidence: every chunk also gets DOC_EVIDENCE times the best dense
   and BM25 evidence of its document (either language), so a document that
   both sides find through different sections ranks above one that only a
   single side found.
4. Named entries: chunks of the spec card of a GPU or instance the question
   names (service.retrieval.names) get NAME_MATCH, a tie-breaker between
   near-identical cards (H100 SXM vs H100 PCIe), too small to outrank a
   document that answers the question better.
"""

from __future__ import annotations

import numpy as np

BM25_SCALE = {"zh": 0.45, "en": 0.2}  # by question language
OTHER_LANGUAGE_BM25 = 0.5
DOC_EVIDENCE = 0.5
NAME_MATCH = 0.04


def fuse(
    dense: dict[int, float],
    bm25: np.ndarray,
    doc_of_row: np.ndarray,
    row_language: np.ndarray,
    question_language: str,
    named: np.ndarray,
    *,
    dense_weight: float,
    bm25_weight: float,
    pool: int,
) -> list[tuple[int, float]]:
    """Rows (chunk positions) with fused scores, best first.

    dense: cosine similarity of the dense candidates (already filtered).
    bm25: BM25 score of every row, 0 where filtered out or unmatched.
    doc_of_row: a document number per row; row_language: "zh" or "en" per row;
    named: the row belongs to the card of a catalog entry the question names.
    """
    rows = len(bm25)
    # Rows outside the dense candidates score as the weakest candidate: an upper bound that keeps them comparable.
    floor = min(dense.values()) if dense else 0.0
    cosine = np.full(rows, floor, dtype=np.float32)
    if dense:
        cosine[list(dense)] = list(dense.values())
    best_bm25 = float(bm25.max()) if rows else 0.0
    lexical = np.zeros(rows, dtype=np.float32)
    if best_bm25 > 0:
        lexical = (bm25 / best_bm25) * np.where(row_language == question_language, 1.0, OTHER_LANGUAGE_BM25)
    dense_part = dense_weight * cosine
    lexical_part = bm25_weight * BM25_SCALE[question_language] * lexical
    documents = int(doc_of_row.max()) + 1 if rows else 0
    doc_score = _max_by(dense_part, doc_of_row, documents) + _max_by(lexical_part, doc_of_row, documents)
    fused = dense_part + lexical_part + DOC_EVIDENCE * doc_score[doc_of_row] + NAME_MATCH * named
    lexical_candidates = np.flatnonzero(bm25 > 0)
    lexical_candidates = lexical_candidates[np.argsort(-bm25[lexical_candidates], kind="stable")][:pool]
    candidates = np.union1d(np.fromiter(dense, dtype=np.int64, count=len(dense)), lexical_candidates)
    order = candidates[np.argsort(-fused[candidates], kind="stable")]
    return [(int(row), float(fused[row])) for row in order]


def _max_by(values: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
    out = np.full(count, -np.inf, dtype=np.float32)
    np.maximum.at(out, groups, values)
    return out
