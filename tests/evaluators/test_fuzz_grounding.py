"""Generated questions (evaluators/fuzz_questions.py): no exceptions, ungrounded numbers or language leaks."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from evaluators.fuzz_questions import TEMPLATES, generate
from evaluators.fuzz_run import build_runtime, check_answer, english_prose, run

SAMPLE = 170  # ten per topic, five in each language; answers take tens of milliseconds each


def test_generation_is_deterministic_and_covers_every_topic_in_both_languages():
    items = generate(96, seed=3)
    assert items == generate(96, seed=3)
    assert items != generate(96, seed=4)
    assert {(i.topic, i.lang) for i in items} == {(t, lang) for t in TEMPLATES for lang in ("en", "zh")}
    assert any(len(i.turns) == 2 for i in items)


def test_english_prose_detector_flags_sentences_not_product_names():
    assert english_prose("租用更划算：no residual value assumed，按年折旧。")
    assert not english_prose("NVIDIA GeForce RTX 4090 有 24 GB 显存，用 QLoRA 微调。")
    assert not english_prose("| 并行 | 1 GPU, none, tp=1 |\n```\npip install flash attention now please\n```")


def test_checker_reports_each_class():
    item = next(i for i in generate(60, seed=1) if i.lang == "zh")
    answer = SimpleNamespace(answer="Renting is cheaper at 42 dollars per hour here.", intent="x", language="en", grounding=SimpleNamespace(ungrounded=["42"]))
    kinds = {f.kind for f in check_answer(item, 0, item.turns[0], answer)}
    assert kinds == {"ungrounded", "language", "english_prose"}
    empty = SimpleNamespace(answer=" ", intent="x", language="zh", grounding=SimpleNamespace(ungrounded=[]))
    assert [f.kind for f in check_answer(item, 0, item.turns[0], empty)] == ["empty"]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory, indexed_data_dir: Path):
    target = tmp_path_factory.mktemp("fuzz") / "data"
    shutil.copytree(indexed_data_dir, target)
    return build_runtime(target)


def test_a_generated_sample_is_grounded_and_in_the_question_language(runtime):
    report = run(generate(SAMPLE, seed=7), runtime)
    assert report.counts() == {"exception": 0, "ungrounded": 0, "language": 0, "english_prose": 0, "empty": 0}, [
        f"{f.kind}: {f.question} -> {f.detail}" for f in report.findings
    ][:8]
