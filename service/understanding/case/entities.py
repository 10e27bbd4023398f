"""A message's technical entities: named tools and concepts (data/technical_terms.yaml) and identifiers shaped like flags,
environment variables, versions or model and card names. Knowledge answers keep the passages that name one
(assistant/compose/relevance.py); a message that names one is about the domain, whatever its router score."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from service import yaml_files

DATA = Path(__file__).parent / "data" / "technical_terms.yaml"
TOKEN = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_.+/-]{1,60}(?![A-Za-z0-9_])")


DIGIT_OR_UNDERSCORE = re.compile(r"\d|_")
CAMEL_CASE = re.compile(r"[a-z][A-Z]")


@cache
def _vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    data = yaml_files.safe_load(DATA.read_text(encoding="utf-8"))
    return frozenset(t.lower() for t in data["technical"]), frozenset(t.lower() for t in data["too_common"])


def entities(text: str) -> set[str]:
    technical, common = _vocabulary()
    found: set[str] = set()
    for match in TOKEN.finditer(text[:4000]):
        word = match.group(0).strip(".-/+")
        lowered = word.lower()
        if lowered in common or len(lowered) < 2:
            continue
        shaped = bool(DIGIT_OR_UNDERSCORE.search(word)) or (word.isupper() and len(word) >= 3) or bool(CAMEL_CASE.search(word))
        if lowered in technical or shaped:
            found.add(lowered)
    return found


def named_tools(text: str) -> set[str]:
    """Only the vocabulary's tools and concepts (not merely shaped identifiers): enough to say a message is about the domain."""
    technical, _ = _vocabulary()
    return {e for e in entities(text) if e in technical}
