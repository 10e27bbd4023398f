"""Coverage gaps: questions the advisor could not answer well, grouped so an operator knows what to write next.

A gap question is one answered with low retrieval confidence, one the advisor abstained on (no knowledge and
no tool), or one refused as out of scope although it was near the domain. With stored texts they are clustered
by meaning with the bundled multilingual encoder (the process's shared one: no second model); each cluster
gets its most distinctive words, from the retrieval tokenizer, as the suggested topic. Without texts they are
grouped by intent.

Clustering is greedy ("leader") over a fixed order (text, then record id): a question joins the first
cluster whose centre is at least `similarity` close, else starts one. The order, not the arrival time,
decides, so the same questions always give the same clusters.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from service.analytics.messages import message
from service.analytics.records import NOT_DOMAIN_INTENTS, QuestionRecord

Embed = Callable[[list[str]], np.ndarray]  # texts -> unit-length rows
MAX_EXAMPLES = 3
MAX_TERMS = 3
MAX_GAPS = 20
MAX_CLUSTERED = 2000  # the newest gap questions clustered per report; more would only slow the page


class CoverageGap(BaseModel):
    key: str = Field(description="the cluster's id (`c1`, ...) or, without stored texts, `intent:<name>`")
    count: int
    examples: list[str] = Field(default_factory=list, description="up to 3 questions, as users asked them (stored texts only)")
    languages: dict[str, int] = Field(default_factory=dict)
    intents: dict[str, int] = Field(default_factory=dict)
    outcomes: dict[str, int] = Field(default_factory=dict)
    terms: list[str] = Field(default_factory=list, description="the cluster's most distinctive words")
    mean_confidence: float | None = Field(default=None, description="mean retrieval confidence of its answered questions")
    suggestion: str


def is_gap(record: QuestionRecord, *, low_confidence: float, near_domain: float, familiar: float = 1.0) -> bool:
    if record.outcome == "abstained":
        return True
    if record.outcome == "refused_out_of_scope":
        return record.domain_similarity is not None and record.domain_similarity >= near_domain
    if record.outcome == "answered" and record.intent not in NOT_DOMAIN_INTENTS and not record.tools:
        # An answer from the knowledge base alone, matched weakly. One a tool computed is not a knowledge gap; nor is a
        # question phrased like the in-domain exemplars (short questions such as "What is ZeRO-3?" match the index weakly).
        weak = record.retrieval_confidence is not None and record.retrieval_confidence < low_confidence
        return weak and (record.domain_similarity is None or record.domain_similarity < familiar)
    return False


def coverage_gaps(
    records: Sequence[QuestionRecord],
    *,
    language: str,
    low_confidence: float,
    near_domain: float,
    similarity: float,
    embed: Embed | None,
    familiar: float = 1.0,
) -> list[CoverageGap]:
    """The gaps, largest first: clusters of stored texts, then intent groups of records without text."""
    gaps = [r for r in records if is_gap(r, low_confidence=low_confidence, near_domain=near_domain, familiar=familiar)]
    with_text = [r for r in gaps if r.question] if embed is not None else []
    without = [r for r in gaps if not (r.question and embed is not None)]
    with_text = sorted(with_text, key=lambda r: -r.created_at)[:MAX_CLUSTERED]
    found = _clusters(with_text, language, similarity, embed) if with_text else []
    found += _by_intent(without, language)
    found.sort(key=lambda g: (-g.count, g.key))
    return found[:MAX_GAPS]


def cluster(vectors: np.ndarray, similarity: float) -> list[list[int]]:
    """Greedy leader clustering of unit rows in the given order; members listed by row."""
    centres: list[np.ndarray] = []
    members: list[list[int]] = []
    for row, vector in enumerate(vectors):
        if centres:
            sims = np.array([float(c @ vector) for c in centres])
            best = int(np.argmax(sims))
            if sims[best] >= similarity:
                members[best].append(row)
                total = vectors[members[best]].sum(axis=0)
                centres[best] = total / (np.linalg.norm(total) or 1.0)
                continue
        centres.append(vector / (np.linalg.norm(vector) or 1.0))
        members.append([row])
    return members


def _clusters(records: list[QuestionRecord], language: str, similarity: float, embed: Embed) -> list[CoverageGap]:
    ordered = sorted(records, key=lambda r: (r.question or "", r.id))
    vectors = np.asarray(embed([r.question or "" for r in ordered]), dtype=np.float32)
    groups = cluster(vectors, similarity)
    words = [_words(r.question or "") for r in ordered]
    document_frequency = Counter(w for ws in words for w in set(ws))
    gaps = []
    for members in groups:
        group = [ordered[i] for i in members]
        terms = _distinctive([words[i] for i in members], document_frequency, len(ordered))
        topic = " · ".join(terms) if terms else (group[0].question or "")[:60]
        gaps.append(_gap("", group, language, examples=_examples(group), terms=terms, suggestion=message("suggested_topic", language, topic=topic)))
    # Ids by size, then by first example, so the same data always names its clusters the same way.
    gaps.sort(key=lambda g: (-g.count, g.examples[0] if g.examples else ""))
    for number, gap in enumerate(gaps, 1):
        gap.key = f"c{number}"
    return gaps


def _by_intent(records: list[QuestionRecord], language: str) -> list[CoverageGap]:
    groups: dict[str, list[QuestionRecord]] = {}
    for record in records:
        groups.setdefault(record.intent or "unknown", []).append(record)
    return [
        _gap(f"intent:{intent}", group, language, examples=[], terms=[], suggestion=message("suggested_intent_topic", language, intent=intent))
        for intent, group in sorted(groups.items())
    ]


def _gap(key: str, group: list[QuestionRecord], language: str, *, examples: list[str], terms: list[str], suggestion: str) -> CoverageGap:
    confidences = [r.retrieval_confidence for r in group if r.retrieval_confidence is not None]
    return CoverageGap(
        key=key, count=len(group), examples=examples, terms=terms, suggestion=suggestion,
        languages=dict(Counter(r.language or "unknown" for r in group).most_common()),
        intents=dict(Counter(r.intent or "unknown" for r in group).most_common()),
        outcomes=dict(Counter(r.outcome for r in group).most_common()),
        mean_confidence=round(sum(confidences) / len(confidences), 3) if confidences else None,
    )  # fmt: skip


def _examples(group: list[QuestionRecord]) -> list[str]:
    seen: list[str] = []
    for record in sorted(group, key=lambda r: (-r.created_at, r.id)):  # the newest first
        if record.question and record.question not in seen:
            seen.append(record.question)
        if len(seen) == MAX_EXAMPLES:
            break
    return seen


def _words(text: str) -> list[str]:
    from service.retrieval.text import tokenize  # jieba loads on first use only

    # Numbers and single letters say nothing about a topic.
    return [w for w in tokenize(text) if len(w) > 1 and not w.replace(".", "").isdigit()]


def _distinctive(words: list[list[str]], document_frequency: Counter, total: int) -> list[str]:
    """Words most of the cluster's questions use and few other gap questions do (cluster share × idf)."""
    inside = Counter(w for ws in words for w in set(ws))
    size = len(words)
    shared = [w for w, count in inside.items() if count >= 2]
    # A word of one question is not the cluster's topic, unless its questions share none (two languages, say).
    candidates = shared if shared or size == 1 else list(inside)
    scored = []
    for word in candidates:
        idf = math.log((total + 1) / (document_frequency[word] + 1)) + 1.0
        # Longer words break ties: "infiniband" says more than "ib".
        scored.append((-(inside[word] / size) * idf, -len(word), word))
    scored.sort()
    chosen: list[str] = []
    for _, _, word in scored:
        if any(word in other or other in word for other in chosen):
            continue  # "zx" beside "zx-9", "加速" beside "加速卡": keep one
        chosen.append(word)
        if len(chosen) == MAX_TERMS:
            break
    return chosen
