"""What kind of FAQ question this is, and which sentences answer that kind: "what is X" (a sentence that says what X
is or does, not X's formula) and templated lines (sibling cards' spec lines with other numbers filled in) that say
one thing. Split from faq_answer.py, which scores and picks the sentences; all functions are pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.assistant.compose.extract import DEFINE_ASK, DEFINITION, DIFFERENCE_ASK, JUDGE_ASK, REMEDY_ASK, SIDES, WORTH_ASK
from service.retrieval.text import term_set

DEFINITION_SUBJECT_CHARS, DEFINITION_VERB_CHARS = 40, 70
# A formula line ("bytes = 2 × L × …") defines nothing in words.
FORMULA = re.compile(r"^[^。.!?]{0,80}=\s*[^=]*[×*]")
# Units that say the same thing with other numbers (every GPU card's "Interconnect: NVLink 4 … 900 GB/s") are one point.
TEMPLATE_WORDS = re.compile(r"[^\W\d_]{2,}")
SAME_TEMPLATE = 0.8
# "what is (the) X (in|for|...)", "什么是 X", "X 是什么": X, the thing to be defined.
DEFINED_TERM_EN = re.compile(
    r"\bwhat(?:'s| is| are| does)\s+(?:an?\s+|the\s+)?([a-z0-9][\w .+/-]{0,40}?)(?=\s+(?:in|for|on|of|when|during|used|mean|do)\b|\s*[?？]|\s*$)",
    re.I,
)
DEFINED_TERM_ZH_BEFORE = re.compile(r"(?:什么是|啥是|什么叫|啥叫)\s*([^，,。？?]{1,30})")
DEFINED_TERM_ZH_AFTER = re.compile(r"([A-Za-z0-9][\w .+/-]{0,30}?|[\u4e00-\u9fff]{2,8})\s*(?:是什么|是啥|是个啥|指的是什么|什么意思|啥意思)")
# Markup before a sentence's first word, skipped when reading the sentence's subject.
SUBJECT_OPENING = re.compile(r"^[\s*`_\-–•]+")


def defines(question: str) -> bool:
    """A "what is X" question (not one asking what to do, whether it is worth it or whether a value is low)."""
    return bool(DEFINE_ASK.search(question)) and not (REMEDY_ASK.search(question) or WORTH_ASK.search(question) or JUDGE_ASK.search(question))


def defining(text: str, subject: set[str]) -> bool:
    """Whether a sentence opens by saying what the question's subject is or does: a subject word near its start and a
    defining verb soon after ("KV cache 就是…", "Pipeline parallelism (PP) puts…", "NVSwitch is a switch chip…")."""
    return bool(subject & term_set(text[:DEFINITION_SUBJECT_CHARS])) and bool(DEFINITION.search(text[:DEFINITION_VERB_CHARS]))


def same_template(one: str, other: str) -> bool:
    """Whether two units are one sentence with different names and numbers filled in (sibling cards' spec lines)."""
    if one == other:
        return True
    a, b = set(TEMPLATE_WORDS.findall(one.lower())), set(TEMPLATE_WORDS.findall(other.lower()))
    return bool(a and b) and len(a & b) / len(a | b) >= SAME_TEMPLATE


@dataclass(frozen=True)
class WholeWord:
    """A side of "A vs B" found as a whole word, ignoring case: the user's own words, so found by a string search rather
    than a pattern compiled for each question. `pattern` is the side as asked; search returns where it starts, or None."""

    pattern: str

    def search(self, text: str) -> _Found | None:
        lowered, word = text.lower(), self.pattern.lower()
        at = lowered.find(word)
        while at != -1:
            end = at + len(word)
            if not (at and _WORD_CHAR.match(lowered[at - 1])) and not (end < len(lowered) and _WORD_CHAR.match(lowered[end])):
                return _Found(at)
            at = lowered.find(word, at + 1)
        return None


@dataclass(frozen=True)
class _Found:
    at: int

    def start(self) -> int:
        return self.at


_WORD_CHAR = re.compile(r"[a-z0-9]")


def sides_of(question: str) -> list[WholeWord]:
    """The two things a "difference between A and B" question compares, found as whole words; none otherwise."""
    found = SIDES.search(question) if DIFFERENCE_ASK.search(question) else None
    if not found or found.group(1).lower() == found.group(2).lower():
        return []
    return [WholeWord(side) for side in found.groups()]


def explains_uncovered_side(text: str, chosen: list[str], sides: list[WholeWord]) -> bool:
    """A sentence whose subject is a side of "A vs B" ("DDP keeps a full replica…") that no chosen sentence has as its
    subject yet. A mention elsewhere ("plain DDP stops fitting at 5B", "NO_SHARD: same as DDP") explains neither side."""

    def subject(sentence: str) -> set[str]:
        opening = SUBJECT_OPENING.sub("", sentence)
        return {side.pattern for side in sides if (found := side.search(opening)) and found.start() == 0}

    covered = set().union(*(subject(sentence) for sentence in chosen))
    return bool(subject(text) - covered)


def defined_subject(question: str) -> set[str]:
    """The words of the thing a "what is X" question asks about ("what is the KV cache in LLM serving" -> kv, cache),
    so a sentence defining the setting ("Serving memory has four parts") does not pass for X's definition. All the
    question's words when X cannot be told apart."""
    found = DEFINED_TERM_EN.search(question) or DEFINED_TERM_ZH_BEFORE.search(question) or DEFINED_TERM_ZH_AFTER.search(question)
    term = next((group for group in found.groups() if group), "") if found else ""
    return term_set(term) or term_set(question)
