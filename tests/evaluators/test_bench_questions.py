"""The benchmarks' questions: distinct, disjoint between warm-up and measurement, varied, and reproducible."""

from __future__ import annotations

import re

from evaluators.bench_questions import blind_questions, mixed_questions, question_sets

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_sets_are_disjoint_distinct_and_the_same_for_the_same_seed() -> None:
    warm, measured = question_sets((40, 300))
    assert len(set(warm)) == 40 and len(set(measured)) == 300
    assert not set(warm) & set(measured), "no measured question was seen in the warm-up"
    assert question_sets((40, 300)) == [warm, measured]
    assert question_sets((40, 300), seed=7) != [warm, measured]


def test_questions_mix_languages_people_templates_and_pasted_artefacts() -> None:
    questions = mixed_questions(600)
    chinese = sum(bool(CJK.search(q)) for q in questions)
    pasted = sum("\n" in q for q in questions)
    people = len(set(questions) & set(blind_questions()))
    assert 0.35 < chinese / len(questions) < 0.65
    assert pasted >= len(questions) // 4, "many carry a log, a command's output or a config"
    assert people >= len(questions) // 4, "a share written by people"
    kinds = {"busbw": r"busbw", "topology": r"GPU0\s", "xid": r"Xid", "oom": r"OutOfMemoryError", "launch": r"torchrun|deepspeed|srun"}
    assert all(any(re.search(p, q) for q in questions) for p in kinds.values()), "every kind of artefact appears"


def test_thousands_of_distinct_questions_for_a_load_run() -> None:
    assert len(set(mixed_questions(9000))) == 9000
