"""Section questions are our own: none copies a question of an evaluation set (blind sets included).

Section questions are indexed beside the passages, so a copied evaluation question would score the retrieval and
answer evaluations on memorised text. The sets are read only by this check, and a failure names the document and
section, never the evaluation text.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from service.retrieval.documents import load_documents
from tests.evaluation_questions import evaluation_questions, normalised

def test_no_section_question_copies_an_evaluation_question() -> None:
    evaluation = evaluation_questions()
    assert len(evaluation) > 300, "the evaluation sets were found and read"
    copied = [
        (doc.id, doc.language, section.heading)
        for doc in load_documents(Path(str(files("knowledge"))))
        for section in doc.sections
        for question in section.questions
        if normalised(question) in evaluation
    ]
    assert not copied, f"{len(copied)} section question(s) copy an evaluation question: {sorted(set(copied))}"
