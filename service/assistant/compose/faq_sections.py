"""Which retrieved sections an FAQ answer may quote, and which parts a question is asked in.

Split out of faq_answer.py, which picks sentences, because both are decided before any sentence is
picked and neither needs the sentence scoring itself: the document gate needs only each section's
best sentence score, and the part splitting only the question's text. All functions are pure.

- on_topic: the retriever fills its top k with something even when only one or two documents are
  about the question ("resume procedure" for a RoCE question); a document far below the best one
  is not quoted at all, not even to reach an answer's minimum number of points.
- question_parts: a question asked in several parts ("is it reliable, and what if the node is
  reclaimed?") should get a sentence for each part, not only for the part the whole question
  resembles most.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from service.assistant.input_bounds import embedding_window
from service.retrieval.text import term_set, tokenize

Embed = Callable[[list[str]], np.ndarray] | None

# A section scores its best sentence, plus these shares of its whole text's similarity to the question and of the
# question's distinctive words it holds; a document scores its best section, and one below DOCUMENT_GATE times the
# best document's score contributes nothing.
SECTION_TEXT, SECTION_WORDS, DOCUMENT_GATE = 0.5, 0.3, 0.7

PART_SPLIT = re.compile(
    r"(?<=[?？])|[,，;；]\s*|\s+-\s+|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|\band (?=(?:what|how|why|when|which|is|are|does|do|should|can)\b)",
    re.I,
)
# A piece that asks something (not "我们测出来30%左右", which only reports).
ASKS = re.compile(
    r"[?？吗呢]|^\s*(?:is|are|does|do|should|can)\b|\b(?:what|how|why|when|which|where|worth)\b|怎么|咋|啥|什么|哪|多少|是否|要不要|为什么|如何|值不值|靠谱|区别",
    re.I,
)
MAX_PARTS, MIN_PART_WORDS = 3, 2


def on_topic(question: str, hits: Sequence[Any], best_sentence: Mapping[int, float], embed: Embed) -> set[int]:
    """The hits (indexes into hits, among those in best_sentence: hit -> its best quotable sentence's relevance) whose
    document is near the best one. A section scores its best sentence, its whole text's similarity to the question and
    the question's words it holds (weighted by how few of the hits hold them); a document its best section."""
    if len(best_sentence) < 2:
        return set(best_sentence)
    whole = np.zeros(len(hits), dtype=np.float32) if embed is None else embed([h.text for h in hits]) @ embed([embedding_window(question)])[0]
    words = [term_set(f"{h.heading} {h.text}") for h in hits]
    asked = [t for t in set(tokenize(question)) if any(t in w for w in words)]
    weight = {t: float(np.log(1 + len(hits) / sum(t in w for w in words))) for t in asked}
    total = sum(weight.values()) or 1.0
    document: dict[str, float] = defaultdict(lambda: -np.inf)
    for index in best_sentence:
        held = sum(weight[t] for t in asked if t in words[index]) / total
        section = best_sentence[index] + SECTION_TEXT * float(whole[index]) + SECTION_WORDS * held
        document[document_key(hits[index])] = max(document[document_key(hits[index])], section)
    bar = DOCUMENT_GATE * max(document.values())
    return {index for index in best_sentence if document[document_key(hits[index])] >= bar}


def document_key(hit: Any) -> str:
    """The document a section belongs to: sections of one document stand or fall together."""
    return str(getattr(hit, "doc_id", "") or getattr(hit, "title", "") or id(hit))


def question_parts(question: str) -> list[str]:
    """The parts of a question asked in several (at most MAX_PARTS), each asking something and long enough to score;
    none when it is asked in one part."""
    parts = [p.strip() for p in PART_SPLIT.split(question) if p and p.strip()]
    parts = [p for p in parts if ASKS.search(p) and len(tokenize(p)) >= MIN_PART_WORDS]
    return parts[:MAX_PARTS] if len(parts) >= 2 else []
