"""The assistant's evaluation targets, asserted on the whole conversation set (and the held-out set)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.assistant_eval import DATASET, TARGETS, evaluate, load

HELDOUT = DATASET.with_name("conversations.heldout.jsonl")


@pytest.fixture(scope="module")
def report(data_dir_with_index_module: Path) -> dict:
    return evaluate(data_dir_with_index_module)


@pytest.fixture(scope="module")
def data_dir_with_index_module(tmp_path_factory, indexed_data_dir: Path) -> Path:
    import shutil

    target = tmp_path_factory.mktemp("assistant-eval") / "data"
    shutil.copytree(indexed_data_dir, target)
    return target


def test_the_set_is_big_enough():
    conversations = load()
    assert len(conversations) >= 150
    assert {c["group"] for c in conversations} == {"zh", "en", "mixed"}
    assert sum(len(c["turns"]) > 1 for c in conversations) >= 20


@pytest.mark.parametrize("metric", sorted(TARGETS))
def test_overall_targets(report, metric):
    assert report["overall"][metric] >= TARGETS[metric], (metric, report["overall"][metric], report["failures"][:5])


@pytest.mark.parametrize("group", ["zh", "en", "mixed"])
def test_grounding_citations_and_language_hold_in_every_group(report, group):
    metrics = report["groups"][group]
    assert metrics["numeric_grounding"] == 1.0
    assert metrics["citation_validity"] == 1.0
    assert metrics["language_match"] == 1.0


def test_out_of_scope_is_declined_and_nothing_forbidden_leaks(report):
    assert report["overall"]["abstention"] == 1.0
    assert report["overall"]["forbidden_violations"] == 0


@pytest.mark.skipif(not HELDOUT.exists(), reason="no held-out set")
def test_heldout_set_meets_the_hard_targets(data_dir_with_index_module):
    heldout = evaluate(data_dir_with_index_module, load(HELDOUT))["overall"]
    assert heldout["numeric_grounding"] == 1.0
    assert heldout["citation_validity"] == 1.0
    assert heldout["language_match"] == 1.0
    assert heldout["abstention"] == 1.0
