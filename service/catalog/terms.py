"""Finding many spellings in a text in one pass: an Aho–Corasick automaton (pyahocorasick) over a folded view.

The catalog names and the understanding vocabularies were alternation regexes: one per kind, hundreds of spellings
each, several hundred vocabularies scanned one after another over every question. This finds every spelling of every
group in one linear pass and then picks, per group, exactly what that group's alternation matched:

- the text is folded once: lower case, the separators (blanks, "-", "_") removed, each folded character keeping its
  position in the text;
- the automaton reports every spelling that ends at each folded position; what stood between its characters in the
  text is then checked against what the spelling allows there (nothing, any run of separators, or the literal
  separator the spelling was written with), and so are its boundaries before and after;
- per group, the leftmost match wins, and at one position the spelling that came first in the alternation, so the
  results are the regex's own (tests/catalog/test_terms.py compares them with the alternations on a corpus).

`Spelling` describes one alternative; `TermFinder(groups)` compiles them; `find(text)` returns, per group, the
non-overlapping (start, end, spelling index) in reading order.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

import ahocorasick

SEPARATORS = frozenset("-_")
GAP = "gap"  # any run of separators, or none
ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_SPLIT = re.compile(r"([\s\-_]+)")
_VARIANT = re.compile(r"\s*(?:ti|super)(?![A-Za-z0-9])", re.IGNORECASE)  # anchored at a match's end: linear in the blanks


def is_separator(char: str) -> bool:
    return char in SEPARATORS or char.isspace()


@dataclass(frozen=True)
class Spelling:
    """One alternative of a group's alternation.

    text: as written; a run of separators in it is what `joins` says: "gap" (any run of separators, or none) or
    "literal" (exactly those characters). before: "" (anything), "word" (no ASCII letter or digit right before),
    "name" (no letter, digit or "." right before) or "counted" (as "name", or right after a digit and an "x": "8xH100").
    after: "" (anything), "word" (no ASCII letter or digit right after), "plural" (an optional "s", then as "word"),
    "card" (as "plural", and not followed by the word "Ti" or "Super": "4070 Ti" is another card than the 4070)
    or "stem" (any ASCII letters, then no digit)."""

    text: str
    joins: str = GAP
    before: str = ""
    after: str = ""


@dataclass(frozen=True)
class _Compiled:
    group: int
    rank: int
    key: str
    joints: tuple[str | re.Pattern[str] | None, ...]  # between folded characters k-1 and k: None (adjacent), GAP, a literal, a mix
    lead: str  # literal separators the spelling starts with
    trail: str  # literal separators it ends with
    before: str
    after: str
    adjacent: bool  # no joint requires a separator: a match with none inside needs no per-joint check


def _compile(spelling: Spelling, group: int, rank: int) -> _Compiled | None:
    pieces = [p for p in _SPLIT.split(spelling.text.lower()) if p]
    lead = pieces.pop(0) if pieces and _SPLIT.fullmatch(pieces[0]) else ""
    trail = pieces.pop() if pieces and _SPLIT.fullmatch(pieces[-1]) else ""
    key, joints = "", [None]
    for piece in pieces:
        if _SPLIT.fullmatch(piece):
            joints[-1] = _joint(piece, spelling.joins)
            continue
        for index, char in enumerate(piece):
            if index:
                joints.append(None)
            key += char
        joints.append(None)
    if not key:
        return None
    if spelling.joins == GAP:
        lead = trail = ""  # a spelling is stripped: edge separators never take part in a name
    inner = tuple(joints[1:-1])
    return _Compiled(group, rank, key, inner, lead, trail, spelling.before, spelling.after, all(j in (None, GAP) for j in inner))


def _joint(piece: str, joins: str) -> str | re.Pattern[str]:
    """What may stand between two characters where the spelling has `piece`: for a vocabulary term (joins="literal")
    its blanks are gaps and its "-" and "_" literal, as Vocabulary's pattern wrote them."""
    if joins == GAP or piece.isspace():
        return GAP
    if not any(c.isspace() for c in piece):
        return piece
    return re.compile("".join(r"[\s\-_]*" if c.isspace() else re.escape(c) for c in piece))


def _folded(text: str) -> tuple[str, list[int]]:
    """The text lower-cased without separators, and each folded character's index in `text`."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer ("İ"): keep it as written
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    positions = [i for i, c in enumerate(lowered) if c not in SEPARATORS and not c.isspace()]
    return "".join(lowered[i] for i in positions), positions


class TermFinder:
    def __init__(self, groups: list[list[Spelling]]) -> None:
        self.groups = len(groups)
        by_key: dict[str, list[_Compiled]] = defaultdict(list)
        for group, spellings in enumerate(groups):
            for rank, spelling in enumerate(spellings):
                compiled = _compile(spelling, group, rank)
                if compiled is not None:
                    by_key[compiled.key].append(compiled)
        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
        for key, compiled in by_key.items():
            self._automaton.add_word(key, tuple(compiled))
        if by_key:
            self._automaton.make_automaton()
        self._empty = not by_key
        self.find = lru_cache(maxsize=2048)(self._find)

    def _find(self, text: str) -> tuple[tuple[tuple[int, int, int], ...], ...]:
        """Per group: its alternation's non-overlapping matches, each (start, end, rank of the spelling)."""
        if self._empty or not text:
            return ((),) * self.groups
        folded, positions = _folded(text)
        candidates: list[list[tuple[int, int, int]]] = [[] for _ in range(self.groups)]
        for end, compiled in self._automaton.iter(folded):
            for spelling in compiled:
                span = _span(spelling, text, positions, end)
                if span is not None:
                    candidates[spelling.group].append((span[0], spelling.rank, span[1]))
        return tuple(_leftmost(found) for found in candidates)


def _span(spelling: _Compiled, text: str, positions: list[int], last: int) -> tuple[int, int] | None:
    """The spelling's match in `text` ending at folded position `last`, if its joints and boundaries hold."""
    first = last - len(spelling.key) + 1
    start, end = positions[first], positions[last] + 1
    if not (spelling.adjacent and end - start == len(spelling.key)):
        for offset, joint in enumerate(spelling.joints, 1):
            between = text[positions[first + offset - 1] + 1 : positions[first + offset]]
            if joint is None and between or isinstance(joint, str) and joint != GAP and between != joint \
                    or not isinstance(joint, str | None) and not joint.fullmatch(between):
                return None
    if spelling.lead:
        if text[start - len(spelling.lead) : start].lower() != spelling.lead:
            return None
        start -= len(spelling.lead)
    if spelling.trail:
        if text[end : end + len(spelling.trail)].lower() != spelling.trail:
            return None
        end += len(spelling.trail)
    if not _before_ok(spelling.before, text, start):
        return None
    end = _end_after(spelling.after, text, end)
    return None if end is None else (start, end)


def _before_ok(rule: str, text: str, start: int) -> bool:
    if not rule or start == 0:
        return True
    previous = text[start - 1]
    if rule == "word":
        return previous not in ALNUM
    if previous not in ALNUM and previous != ".":
        return True
    return rule == "counted" and previous in "xX" and start >= 2 and text[start - 2].isdecimal()  # \d: Unicode decimal digits


def _end_after(rule: str, text: str, end: int) -> int | None:
    """Where the match ends once the spelling's ending rule is applied, or None when the rule fails."""
    if rule == "card":
        end = _end_after("plural", text, end)
        return None if end is None or _VARIANT.match(text, end) else end
    if rule in ("word", "plural"):
        if rule == "plural" and text[end : end + 1] in ("s", "S") and text[end + 1 : end + 2] not in ALNUM:
            return end + 1
        return None if text[end : end + 1] in ALNUM else end
    if rule == "stem":
        while end < len(text) and text[end] in LETTERS:
            end += 1
        return None if text[end : end + 1] in ALNUM else end
    return end


def _leftmost(found: list[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """What an alternation's finditer returns from these candidates: leftmost first, the earliest alternative at a
    position, then on from the end of that match."""
    chosen: list[tuple[int, int, int]] = []
    reached = 0
    for start, rank, end in sorted(found):
        if start < reached or chosen and chosen[-1][0] == start:
            continue
        chosen.append((start, end, rank))
        reached = end
    return tuple(chosen)
