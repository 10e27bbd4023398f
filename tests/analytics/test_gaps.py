"""Coverage gaps with stored texts: clustered by meaning with the bundled encoder, deterministically, each with
examples, languages and a suggested topic from its most distinctive words."""

from __future__ import annotations

import random

import pytest

from service.analytics.gaps import cluster, coverage_gaps
from service.analytics.records import QuestionRecord

VENDOR = [
    "How do I enable the tensor fusion mode on the Zephyrion ZX-9 accelerator?",
    "Which driver does the Zephyrion ZX-9 accelerator need on Ubuntu?",
    "Can the Zephyrion ZX-9 accelerator run PyTorch without CUDA?",
    "Zephyrion ZX-9 加速卡的专有编译器怎么安装？",
]
COOLING = [
    "How should we size the immersion cooling tanks for a two-phase dielectric fluid?",
    "What immersion cooling fluid works best for dense GPU racks?",
    "浸没式液冷的冷却液多久需要更换一次？",
]


@pytest.fixture(scope="module")
def embed():
    from service.retrieval.embeddings import shared_use_multilingual

    return shared_use_multilingual().encode


def records(texts: list[str], *, start: int = 0) -> list[QuestionRecord]:
    return [
        QuestionRecord(
            id=f"q_{start + i:04d}",
            created_at=1_000_000.0 + start + i,
            channel="api",
            language="zh" if any(ord(c) > 0x3000 for c in t) else "en",
            intent="faq",
            outcome="answered",
            retrieval_confidence=0.5,
            total_ms=5.0,
            question=t,
        )
        for i, t in enumerate(texts)
    ]


def gaps(rows, embed, language="en"):
    return coverage_gaps(rows, language=language, low_confidence=0.85, near_domain=0.3, similarity=0.5, embed=embed)


def test_questions_about_one_topic_form_one_cluster_with_examples_languages_and_a_topic(embed) -> None:
    found = gaps(records(VENDOR + COOLING), embed)
    by_size = {g.count: g for g in found}
    vendor = next(g for g in found if any("Zephyrion" in e for e in g.examples))
    assert vendor.count == 4 and len(vendor.examples) == 3 and set(vendor.examples) <= set(VENDOR)
    assert vendor.languages == {"en": 3, "zh": 1}
    assert vendor.suggestion.startswith("Suggested topic: ") and "zephyrion" in vendor.terms
    cooling = next(g for g in found if any("immersion" in e or "液冷" in e for e in g.examples))
    assert cooling is not vendor and "immersion" in " ".join(cooling.terms) + cooling.suggestion
    assert sum(g.count for g in found) == len(VENDOR + COOLING) and by_size


def test_the_same_questions_in_any_order_give_the_same_clusters(embed) -> None:
    rows = records(VENDOR + COOLING)
    first = [g.model_dump() for g in gaps(rows, embed)]
    for seed in range(3):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        assert [g.model_dump() for g in gaps(shuffled, embed)] == first


def test_suggestions_follow_the_report_language(embed) -> None:
    [zh, *_] = gaps(records(VENDOR), embed, language="zh")
    assert zh.suggestion.startswith("建议补充的知识主题：")


def test_leader_clustering_joins_only_close_rows() -> None:
    import numpy as np

    rows = np.array([[1.0, 0.0], [0.99, 0.141], [0.0, 1.0]], dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    assert cluster(rows, 0.9) == [[0, 1], [2]]
    assert cluster(rows, 0.999) == [[0], [1], [2]]
