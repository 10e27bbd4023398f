"""FAQ answers that address the question: the most relevant sentences across the top sections, cited.

compose_faq(question, language, hits, embed) is pure: given the retrieved
sections (each with text, heading and source) and the query embedding
function, it picks

- one lead: the sentence that most directly answers the question, and
- 2-5 supporting points, by relevance with an MMR redundancy penalty, so two
  sections saying the same thing do not fill the answer twice,

each ending in its [n] citation, numbered in order of first use over only the
hits cited. Relevance is the dense similarity of a sentence (and of its
section heading) to the question with the bundled encoder, plus the share of
the question's words (the retrieval tokens: jieba, folded Latin words) that it
contains; a "why" question prefers reasons, a "what do I do" question advice, an
"is it worth it" question the trade-off, "is our value low" the typical range,
"A or B" sentences naming both (the cues are compose/faq_cues.yaml); each part
of a question in several parts gets its best sentence. Documents far below the
best one are not quoted at all, not even to reach the minimum (the gate and the
part splitting are in faq_sections.py); beyond the
minimum, a point must reach a share of the lead's relevance. Sentences are the
documents' own, so every number in the answer is a cited passage's. An intro that announces a list ("…fits three situations.",
"…如下：") is never quoted without its items; list items are kept whole.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from service.assistant.compose.extract import (
    ADVICE,
    BENCHMARK,
    PRICE,
    PRICE_ASK,
    JUDGE_ASK,
    REMEDY_ASK,
    SOLUTION_HEADING,
    VERDICT,
    WORTH_ASK,
)
from service.assistant.compose.faq_kinds import FORMULA, defined_subject, defines, defining, explains_uncovered_side, same_template, sides_of
from service.assistant.compose.faq_sections import Embed, on_topic, question_parts
from service.assistant.input_bounds import embedding_window
from service.assistant.compose.faq_units import CJK, Unit, units
from service.retrieval.text import term_set, tokenize

MAX_POINTS = 5
MIN_POINTS = 2
# Relevance = SENTENCE * cos(question, sentence) + HEADING * cos(question, heading) + LEXICAL * term coverage + rank prior.
SENTENCE, HEADING, LEXICAL = 0.6, 0.3, 0.5
RANK_PRIOR = (0.12, 0.08, 0.05, 0.03, 0.02)
INTRO_SHARE, LIST_DECAY = 0.9, 0.03  # a list item scores at least this share of its intro, less per place down the list
NEXT_SHARE = 0.85  # a prose sentence scores at least this share of the one before it
MMR_LAMBDA = 0.7
SAME_SECTION = 0.05  # per point already taken from a section: an answer draws on the top sections, not one
# "What do I do about it?" questions: sections about fixes, and sentences that advise, answer them.
FIX_SECTION, ADVICE_SENTENCE = 0.12, 0.04  # share of relevance against redundancy with the sentences already picked
POINT_FLOOR = 0.6  # a point beyond the minimum must reach this share of the lead's relevance
# "Why …?" questions: a sentence that gives a reason answers them, a definition of the subject does not.
WHY_ASK = re.compile(r"\bwhy\b|\bhow come\b|\bwhat makes\b|为什么|为啥|为何|怎么会|什么原因|原因是什么", re.I)
REASON = re.compile(r"\bbecause\b|\bsince\b|\bso that\b|\bwhich (?:needs|requires|means)\b|因为|由于|之所以|是为了|所以|因此", re.I)
REASON_SENTENCE = 0.06
# "Is X worth it?" is answered by the trade-off and the verdict; "A or B?" by sentences that name both.
VERDICT_SENTENCE, BOTH_SIDES = 0.05, 0.08
OTHER_SIDE = 0.1  # a point whose subject is a side of "A vs B" that the answer has not explained yet
# "We measure X, is that low?" is answered by the typical or published range.
BENCHMARK_SENTENCE = 0.06
# "What is X?" is answered by what X is or does; a formula line ("bytes = 2 × L × …") defines nothing in words.
DEFINITION_SENTENCE, FORMULA_LINE = 0.06, 0.08
PRICE_SENTENCE = 0.06  # "which is cheaper": a sentence about prices or cost per GPU-hour
DEFINITION_LEAD_GAP = 0.2  # a defining sentence this close to the most relevant one leads a "what is X" answer
MAX_LEAD_CHARS = 360

# A lead must stand on its own: not a continuation of a sentence the reader has not seen.
CONTINUATION = re.compile(
    r"^(?:however|but|also|and|so|then|this|that|these|those|it|they|such|for example|e\.g\.|in that case|otherwise|likewise|"
    r"first|second|third|fourth|finally|lastly|in addition|additionally|besides|moreover|furthermore|on top of (?:that|this)|plus\b|"
    r"但|但是|而|而且|并且|这|那|此外|另外|例如|比如|同样|否则|它|它们|其中|第[一二三四五]|其次|再次|最后|有的|有些|其他|其余|另一|"
    r"再加上|再者|加上|还有|同时|除此之外|除了这些|与此同时|因此|所以|不过|然而|也)",
    re.I,
)


class HitLike(Protocol):
    text: str
    heading: str
    source: str


@dataclass
class FaqAnswer:
    lead: str
    points: list[str] = field(default_factory=list)
    cited_hits: list[Any] = field(default_factory=list)


def compose_faq(
    question: str,
    language: str,
    hits: Sequence[HitLike],
    embed: Callable[[list[str]], np.ndarray] | None,
    *,
    max_points: int = MAX_POINTS,
    skip: Callable[[str], bool] | None = None,
    asked: str | None = None,
) -> FaqAnswer:
    """The lead, 2-5 supporting points and the hits they cite (see the module docstring).

    language: "zh" or "en", the answer's (sentences are joined to their [n] the way that language writes).
    embed: texts -> unit-length rows; None scores by words alone. skip: sentences never to quote (instructions).
    asked: for a follow-up read with the question it follows, the follow-up's own words: only they are split into
    parts to answer one by one (the earlier question was answered in its own turn).
    """
    candidates = [u for index, hit in enumerate(hits) for u in units(hit.text, index) if not (skip and skip(u.text))]
    if not [u for u in candidates if not u.hidden]:
        return FaqAnswer(lead="")
    vectors = None if embed is None else embed([u.text for u in candidates])
    _score(question, hits, candidates, embed, vectors)
    # Sections of documents far off the question are not quoted at all, not even to reach the minimum.
    best_sentence: dict[int, float] = defaultdict(float)
    for unit in candidates:
        if not unit.hidden:
            best_sentence[unit.hit] = max(best_sentence[unit.hit], unit.relevance)
    kept_hits = on_topic(question, hits, best_sentence, embed)
    keep = [i for i, u in enumerate(candidates) if u.hit in kept_hits]
    candidates = [candidates[i] for i in keep]
    vectors = None if vectors is None else vectors[keep]
    lead_index = _pick_lead(candidates, define=defines(question), subject=defined_subject(question))
    chosen = [lead_index]
    for part_best in _part_answers(question, hits, candidates, embed, vectors, asked):
        if part_best not in chosen and len(chosen) <= max_points:
            chosen.append(part_best)
    floor = candidates[lead_index].relevance * POINT_FLOOR
    # Asked what to do, a fix section's list (ways out, cheapest first) is the answer: its items do not crowd each other out.
    fix_lists = {u.hit for u in candidates if u.is_item and SOLUTION_HEADING.search(hits[u.hit].heading or "")} if REMEDY_ASK.search(question) else set()
    sides = sides_of(question)  # "A vs B": a point about a side no chosen sentence names yet is not redundant, it is the other half
    while len(chosen) <= max_points:
        best, best_score = None, -np.inf
        for index, unit in enumerate(candidates):
            if index in chosen or unit.hidden:
                continue
            if len(chosen) > MIN_POINTS and unit.relevance < floor:
                continue  # past the minimum only relevant points: a weak one never displaces a relevant but similar one
            if any(same_template(unit.text, candidates[c].text) for c in chosen):
                continue
            redundancy = max(float(vectors[index] @ vectors[c]) for c in chosen) if vectors is not None else _overlap(unit, candidates, chosen)
            other_side = bool(sides) and explains_uncovered_side(unit.text, [candidates[c].text for c in chosen], sides)
            # One section explaining both sides of "A vs B" is the right source for both: its second side is not crowding.
            crowded = not other_side and not (unit.hit in fix_lists and unit.is_item)
            crowding = SAME_SECTION * sum(1 for c in chosen if candidates[c].hit == unit.hit) if crowded else 0.0
            score = MMR_LAMBDA * unit.relevance - (1 - MMR_LAMBDA) * redundancy - crowding + (OTHER_SIDE if other_side else 0.0)
            if score > best_score:
                best, best_score = index, score
        if best is None:
            break
        chosen.append(best)
    lead, points = candidates[chosen[0]], sorted((candidates[i] for i in chosen[1:]), key=lambda u: (u.hit, u.position))
    order: dict[int, int] = {}
    for unit in (lead, *points):
        order.setdefault(unit.hit, len(order) + 1)
    cite = " " if language == "en" else ""
    introduced: set[tuple[int, str]] = set()

    def shown(unit: Unit) -> str:
        if not unit.clause or (unit.hit, unit.intro) in introduced:
            return unit.text
        introduced.add((unit.hit, unit.intro))  # the sentence the clause completes, once per list
        return f"{unit.intro}{'' if CJK.search(unit.intro) else ' '}{unit.text}"

    return FaqAnswer(
        lead=f"{shown(lead)}{cite}[{order[lead.hit]}]",
        points=[f"{shown(p)}{cite}[{order[p.hit]}]" for p in points],
        cited_hits=[hits[index] for index in order],
    )


def _score(
    question: str,
    hits: Sequence[HitLike],
    candidates: list[Unit],
    embed: Callable[[list[str]], np.ndarray] | None,
    vectors: np.ndarray | None,
) -> None:
    asked = set(tokenize(question))
    remedy = bool(REMEDY_ASK.search(question))
    why = bool(WHY_ASK.search(question))
    worth = bool(WORTH_ASK.search(question))
    judge = bool(JUDGE_ASK.search(question))
    define = defines(question)
    price = bool(PRICE_ASK.search(question))
    sides = sides_of(question)
    dense = np.zeros(len(candidates), dtype=np.float32)
    heading = np.zeros(len(hits), dtype=np.float32)
    if embed is not None and vectors is not None:
        query = embed([embedding_window(question)])[0]
        dense = vectors @ query
        heading = embed([h.heading or getattr(h, "title", "") or h.text[:80] for h in hits]) @ query
    previous: Unit | None = None
    intro_relevance: dict[tuple[int, str], float] = {}
    for index, unit in enumerate(candidates):
        own = SENTENCE * float(dense[index]) + LEXICAL * _coverage(asked, unit.text)
        chained = previous is not None and previous.hit == unit.hit and not previous.is_item and not unit.is_item
        if unit.hidden and chained:
            # An intro ("The usual suspects:") says nothing itself; it announces more of what the sentence before said.
            own = max(own, previous.base)
        elif chained:
            # The sentence after a relevant one usually carries its point on ("...; the real threshold is ...").
            own = max(own, NEXT_SHARE * previous.base)
        if unit.intro and (unit.hit, unit.intro) in intro_relevance:
            # A list answers what its intro announces; the first items lead ("in order of frequency", "first").
            own = max(own, INTRO_SHARE * intro_relevance[(unit.hit, unit.intro)] - LIST_DECAY * unit.rank_in_list)
        prior = RANK_PRIOR[unit.hit] if unit.hit < len(RANK_PRIOR) else 0.0
        if remedy:
            prior += FIX_SECTION * bool(SOLUTION_HEADING.search(hits[unit.hit].heading or "")) + ADVICE_SENTENCE * bool(ADVICE.search(unit.text))
        if why:
            prior += REASON_SENTENCE * bool(REASON.search(unit.text))
        if worth:
            prior += VERDICT_SENTENCE * bool(VERDICT.search(unit.text))
        if judge:
            prior += BENCHMARK_SENTENCE * bool(BENCHMARK.search(unit.text))
        if sides:
            prior += BOTH_SIDES * all(side.search(unit.text) for side in sides)
        if define:
            prior += DEFINITION_SENTENCE * defining(unit.text, asked) - FORMULA_LINE * bool(FORMULA.search(unit.text))
        if price:
            prior += PRICE_SENTENCE * bool(PRICE.search(unit.text))
        unit.base, unit.relevance = own, own + HEADING * float(heading[unit.hit]) + prior
        if unit.hidden:
            intro_relevance[(unit.hit, unit.text)] = own
        previous = unit


def _part_answers(
    question: str, hits: Sequence[HitLike], candidates: list[Unit], embed: Embed, vectors: np.ndarray | None, asked: str | None = None
) -> list[int]:
    """For a question asked in several parts, the best sentence for each part: scored for the part and the whole
    question together, since a part alone ("被回收了咋办") may not name its subject. asked: the text the parts are
    read from when it is not the whole question (a follow-up's own message, the question it follows being context)."""
    out: list[int] = []
    shown = [i for i, u in enumerate(candidates) if not u.hidden]
    parts = question_parts(question if asked is None else asked)
    # Every part's vector in one call: the encoder runs once for all the parts, not once per part.
    part_vectors = embed(parts) if embed is not None and parts else None
    for n, part in enumerate(parts):
        scored = [replace(u) for u in candidates]
        _score(part, hits, scored, _knowing(embed, part, part_vectors[n]) if part_vectors is not None else embed, vectors)
        out.append(max(shown, key=lambda i: scored[i].relevance + candidates[i].relevance))
    return out


def _knowing(embed: Embed, text: str, vector: np.ndarray) -> Embed:
    """embed, with text's vector already known."""
    return lambda texts: vector[None, :] if texts == [text] else embed(texts)  # type: ignore[misc]


def _coverage(asked: set[str], text: str) -> float:
    """Share of the question's words found in the text."""
    return len(asked & term_set(text)) / len(asked) if asked else 0.0


def _pick_lead(candidates: list[Unit], *, define: bool = False, subject: set[str] = frozenset()) -> int:
    """The most relevant sentence that can open an answer on its own; any sentence if none can. Asked what something
    is, a defining sentence nearly as relevant as the best opens the answer."""
    shown = [i for i, u in enumerate(candidates) if not u.hidden]
    eligible = [i for i in shown if len(candidates[i].text) <= MAX_LEAD_CHARS and not CONTINUATION.match(candidates[i].text)]
    pool = eligible or shown
    if define and pool:
        best = max(candidates[i].relevance for i in pool)
        definitions = [i for i in pool if defining(candidates[i].text, subject) and candidates[i].relevance >= best - DEFINITION_LEAD_GAP]
        pool = definitions or pool
    # Prose reads as an answer; a list item wins only when clearly more relevant.
    return max(pool, key=lambda i: candidates[i].relevance + (0.03 if not candidates[i].is_item else 0.0))


def _overlap(unit: Unit, candidates: list[Unit], chosen: list[int]) -> float:
    """Redundancy without an encoder: the largest word overlap (Jaccard) with a chosen sentence."""
    words = term_set(unit.text)
    best = 0.0
    for index in chosen:
        other = term_set(candidates[index].text)
        if words or other:
            best = max(best, len(words & other) / len(words | other))
    return best
