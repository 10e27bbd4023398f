"""Cue-word files (claim_cues.yaml, consult_cues.yaml, spec_cues.yaml): named lists of
case-insensitive regex fragments, compiled once per file."""

from __future__ import annotations

import re
from pathlib import Path

from service import budget, yaml_files

DIRECTORY = Path(__file__).parent


@budget.loader
def patterns(file: str) -> dict[str, re.Pattern[str]]:
    data = yaml_files.safe_load((DIRECTORY / file).read_text(encoding="utf-8"))
    return {name: re.compile("|".join(words), re.I) for name, words in data.items()}


def matches(file: str, name: str, text: str) -> bool:
    return bool(patterns(file)[name].search(text))
