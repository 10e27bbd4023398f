"""The intent registry and its data files: every intent routed, enough fresh exemplars, none copied from an evaluation set."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.assistant.handlers import HANDLERS
from service.understanding import load_registry
from service.understanding.registry import Vocabulary
from tests.evaluation_questions import evaluation_questions, normalised

MIN_EXEMPLARS = 40


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_every_intent_has_a_handler_and_a_policy(registry):
    assert {
        "faq",
        "spec",
        "sizing",
        "recommend",
        "compare",
        "cloud_vs_onprem",
        "claim_check",
        "diagnostics",
        "preflight",
        "smalltalk",
        "out_of_scope",
    } <= set(registry.intents)
    for name, spec in registry.intents.items():
        assert spec.handler in HANDLERS, (name, spec.handler)
        assert spec.follow_up in ("workload", "context", "none")
    assert registry.handler("spec") == "spec"  # catalog facts, not knowledge passages


@pytest.mark.parametrize("language", ["en", "zh"])
def test_at_least_40_exemplars_per_intent_and_language(registry, language):
    counts: dict[str, int] = {}
    for e in registry.exemplars:
        if e.language == language:
            counts[e.intent] = counts.get(e.intent, 0) + 1
    short = {name: counts.get(name, 0) for name in registry.intents if counts.get(name, 0) < MIN_EXEMPLARS}
    assert not short, short


def test_every_sizing_ask_has_exemplars(registry):
    asks = {e.ask for e in registry.exemplars if e.intent == "sizing"}
    assert asks == set(registry.asks)


def test_no_exemplar_is_copied_from_an_evaluation_set(registry):
    questions = evaluation_questions()
    assert len(questions) > 300  # the sets were found and read
    copied = [e for e in registry.exemplars if normalised(e.text) in questions]
    # The message names where the copies are, never their text: a failure log must not leak a blind question.
    assert not copied, f"{len(copied)} exemplar(s) copy an evaluation question: intents {sorted({(e.intent, e.language) for e in copied})}"


def test_exemplars_are_unique(registry):
    seen: dict[str, str] = {}
    duplicates = []
    for e in registry.exemplars:
        key = normalised(e.text)
        if key in seen:
            duplicates.append((e.text, seen[key], e.intent))
        seen[key] = e.intent
    assert not duplicates, duplicates


def test_vocabulary_matches_whole_words_never_substrings():
    vocabulary = Vocabulary.of(["io", "gpu*", "fine tun*", "显存"])
    assert vocabulary.hits("what is the population of tokyo") == []
    assert vocabulary.hits("we are io bound") == ["io"]
    assert vocabulary.hits("GPUs and fine-tuning") == ["gpus", "fine-tuning"]
    assert vocabulary.hits("H100显存多大") == ["显存"]


def test_a_bad_data_file_names_the_file(tmp_path):
    source = Path(load_registry().__class__.__module__.replace(".", "/")).parent  # service/understanding
    data = Path(__file__).resolve().parents[2] / source / "data"
    target = tmp_path / "data"
    import shutil

    shutil.copytree(data, target)
    (target / "en" / "exemplars.yaml").write_text("not_an_intent:\n  - hello\n", encoding="utf-8")
    with pytest.raises(ValueError, match="exemplars.yaml.*not_an_intent"):
        load_registry(target)
