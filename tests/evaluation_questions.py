"""Every question of the evaluation sets (blind sets included), normalised, for the copy checks of exemplars and
section questions. Only those checks read the sets, and they report our text, never the sets'."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

EVAL_DIR = Path(__file__).resolve().parents[1] / "evaluators" / "datasets"
QUESTION_KEYS = {"message", "question", "query", "text", "prompt"}


def normalised(text: str) -> str:
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).lower())  # case, space and punctuation folded


def evaluation_questions() -> set[str]:
    questions: set[str] = set()
    for path in EVAL_DIR.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                _questions_in(json.loads(line), questions)
    return questions


def _questions_in(value, found: set[str]) -> None:
    """Every string held under a question-like key, at any depth (sets differ in shape: turns, follow-ups)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in QUESTION_KEYS and isinstance(item, str):
                found.add(normalised(item))
            else:
                _questions_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _questions_in(item, found)
