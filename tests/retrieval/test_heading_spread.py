"""One heading across sibling documents (every GPU card's "Interconnect and power") fills at most MAX_SAME_HEADING of
a search's first k hits, unless the question names those documents (service/retrieval/index.py, _spread_headings).
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from service.retrieval import KnowledgeIndex
from service.retrieval.index import MAX_SAME_HEADING, _spread_headings

CARD = "Interconnect and power"


def _snapshot(headings: list[str]) -> SimpleNamespace:
    """The only part of a snapshot the spreading reads: each row's metadata."""
    return SimpleNamespace(metadatas=[{"heading": h, "doc_id": f"doc-{i}"} for i, h in enumerate(headings)])


def _ranked(n: int) -> list[tuple[int, float]]:
    return [(row, 1.0 - row / 100) for row in range(n)]


def _spread(headings: list[str], k: int, named: list[int] = ()) -> list[int]:
    mask = np.zeros(len(headings), dtype=bool)
    mask[list(named)] = True
    return [row for row, _ in _spread_headings(_ranked(len(headings)), _snapshot(headings), mask, k)]


def test_at_most_max_same_heading_share_a_heading_in_the_first_k() -> None:
    headings = [CARD] * 5 + ["NVLink versus NVSwitch", "Scale-up and scale-out networks", "Rails"]
    order = _spread(headings, k=5)
    first = Counter(headings[row] for row in order[:5])
    assert first[CARD] == MAX_SAME_HEADING, order
    assert order[:5] == [0, 1, 5, 6, 7]  # the best two cards keep their places, other documents move up


def test_nothing_is_lost_and_the_deferred_keep_their_order() -> None:
    headings = [CARD] * 5 + ["A", "B", "C", "D"]
    order = _spread(headings, k=5)
    assert sorted(order) == list(range(len(headings)))
    assert order == [0, 1, 5, 6, 7, 2, 3, 4, 8]  # deferred cards right after the first k, before the rest


def test_scores_travel_with_their_rows() -> None:
    headings = [CARD] * 4 + ["other"]
    spread = _spread_headings(_ranked(5), _snapshot(headings), np.zeros(5, dtype=bool), 3)
    assert dict(spread) == dict(_ranked(5))


def test_named_documents_are_exempt() -> None:
    headings = [CARD] * 5 + ["A", "B"]
    order = _spread(headings, k=4, named=[0, 1, 2, 3])  # "H100, A100, H200 and B200 NVLink": those cards are the answer
    assert order[:4] == [0, 1, 2, 3]


def test_sections_without_a_heading_are_never_deferred() -> None:
    headings = [""] * 5 + ["A"]
    assert _spread(headings, k=4) == list(range(6))


def test_too_few_other_sections_leave_the_ranking_as_it_was() -> None:
    headings = [CARD] * 4
    assert _spread(headings, k=3) == [0, 1, 2, 3]


def test_past_the_first_k_nothing_is_deferred() -> None:
    headings = ["A", "B", "C", CARD, CARD, CARD, "D"]
    assert _spread(headings, k=3) == list(range(7))


# -- on the real knowledge base ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    ["how fast is NVLink between GPUs", "which GPUs have NVLink", "what is NVSwitch", "GPU 之间 NVLink 有多快"],
)
def test_a_general_nvlink_question_is_not_answered_by_gpu_cards_alone(real_index: KnowledgeIndex, question: str) -> None:
    hits = real_index.search(question, k=5)
    cards = [h for h in hits if h.doc_id.startswith("gpu-")]
    assert len(cards) < len(hits), [(h.doc_id, h.heading) for h in hits]
    per_heading = Counter(h.heading for h in cards)
    assert max(per_heading.values(), default=0) <= MAX_SAME_HEADING, per_heading
    assert any(h.doc_id == "interconnect-topologies" for h in hits), [(h.doc_id, h.heading) for h in hits]
