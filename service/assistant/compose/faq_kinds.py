"""What kind of FAQ question this is, and which sentences answer that kind: "what is X" (a sentence that says what X
is or does, not X's formula) and templated lines (sibling cards' spec lines with other numbers filled in) that say
one thing. Split from faq_answer.py, which scores and picks the sentences; all functions are pure."""

from __future__ import annotations

import re

from service.assistant.compose.extract import DEFINE_ASK, DEFINITION, DIFFERENCE_ASK, JUDGE_ASK, REMEDY_ASK, SIDES, WORTH_ASK
from service.retrieval.text import term_set

DEFINITION_SUBJECT_CHARS, DEFINITION_VERB_CHARS = 40, 70
# A formula line ("bytes = 2 × L × …") defines nothing in words.
FORMULA = re.compile(r"^[^。.!?]{0,80}=\s*[^=]*[×*]")
# Units that say the same thing with other numbers (every GPU card's "Interconnect: NVLink 4 … 900 GB/s") are one point.
TEMPLATE_WORDS = re.compile(r"[^\W\d_]{2,}")
SAME_TEMPLATE = 0.8


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


def sides_of(question: str) -> list[re.Pattern[str]]:
    """The two things a "difference between A and B" question compares, as whole-word patterns; none otherwise."""
    found = SIDES.search(question) if DIFFERENCE_ASK.search(question) else None
    if not found or found.group(1).lower() == found.group(2).lower():
        return []
    return [re.compile(rf"(?<![A-Za-z0-9]){re.escape(side)}(?![A-Za-z0-9])", re.I) for side in found.groups()]
