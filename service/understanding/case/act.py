"""The question act: what the user literally asks (a quantity, a yes/no, a cause, a choice, a procedure, a
consequence, an explanation), per question of a multi-part message. Cue words are data (data/acts.yaml)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from service import yaml_files
from service.understanding.case.model import Act, Part

DATA = Path(__file__).parent / "data" / "acts.yaml"
# Sentence ends in either language; a question mark ends a question even inside a line.
SENTENCE = re.compile(r"(?:[^。！？!?\n.;；]|\.(?!\s|$))*(?:[。！？!?;；]|\.(?=\s|$)|\n|$)")
QUESTION_MARK = re.compile(r"[?？]\s*$")
CJK = re.compile(r"[\u4e00-\u9fff]")
MAX_PARTS = 6


@cache
def _cues() -> tuple[tuple[str, ...], dict[str, dict[str, tuple[re.Pattern[str], ...]]], dict[str, str]]:
    data = yaml_files.safe_load(DATA.read_text(encoding="utf-8"))
    priority = tuple(data["priority"])
    table = {lang: {act: tuple(re.compile(p, re.IGNORECASE | re.ASCII) for p in data[lang].get(act, ())) for act in priority} for lang in ("en", "zh")}
    return priority, table, dict(data.get("acts_as") or {})


def act_of(sentence: str) -> Act:
    priority, table, acts_as = _cues()
    languages = ("zh", "en") if CJK.search(sentence) else ("en",)
    for act in priority:
        if any(p.search(sentence) for lang in languages for p in table[lang][act]):
            return acts_as.get(act, act)  # type: ignore[return-value]
    return "none"


def sentences(prose: str) -> list[str]:
    return [s.strip() for s in SENTENCE.findall(prose[:8000]) if s.strip()]


def read_parts(prose: str) -> list[Part]:
    """The questions of the message, each with its act: sentences that end in a question mark, or that carry an act's cue
    when no sentence does. A message with no question at all ("OOM with this config, help") is one part, its act from its words."""
    found = sentences(prose)
    asked = [s for s in found if QUESTION_MARK.search(s)]
    candidates = asked or [s for s in found if act_of(s) != "none"] or found[-1:]
    parts = [Part(text=s[:400], act=act_of(s)) for s in candidates[:MAX_PARTS]]
    return [p for p in parts if p.text]


def main_act(parts: list[Part]) -> Act:
    """The act the first sentence of the answer must satisfy: the first question's (a bare cue-less one counts last)."""
    for part in parts:
        if part.act != "none":
            return part.act
    return "none"
