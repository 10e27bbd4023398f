"""Section questions are our own: none copies a question of an evaluation set (blind sets included).

Section questions are indexed beside the passages, so a copied evaluation question would score the retrieval and
answer evaluations on memorised text. The sets are read only by this check, and a failure names the document and
section, never the evaluation text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from importlib.resources import files
from pathlib import Path

from service.retrieval.documents import load_documents

EVAL_DIR = Path(__file__).resolve().parents[2] / "evaluators" / "datasets"
QUESTION_KEYS = {"message", "question", "query", "text", "prompt"}


def _normalised(text: str) -> str:
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).lower())  # case, space and punctuation folded


def _questions_in(value, found: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in QUESTION_KEYS and isinstance(item, str):
                found.add(_normalised(item))
            else:
                _questions_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _questions_in(item, found)


def test_no_section_question_copies_an_evaluation_question() -> None:
    evaluation: set[str] = set()
    for path in EVAL_DIR.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                _questions_in(json.loads(line), evaluation)
    assert len(evaluation) > 300, "the evaluation sets were found and read"
    copied = [
        (doc.id, doc.language, section.heading)
        for doc in load_documents(Path(str(files("knowledge"))))
        for section in doc.sections
        for question in section.questions
        if _normalised(question) in evaluation
    ]
    assert not copied, f"{len(copied)} section question(s) copy an evaluation question: {sorted(set(copied))}"
