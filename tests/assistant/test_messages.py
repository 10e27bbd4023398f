"""The message catalogs (service/assistant/messages/{en,zh}.yaml): the same keys and placeholders in both
languages, every key the code names exists, and the answers carry the catalog's sentences."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest
import yaml

from service.assistant.handlers.knowledge import FOLLOW_UP_TOPICS
from service.assistant.messages import DIRECTORY, LANGUAGES, catalog, say
from service.contract import ChatRequest

SERVICE = Path(__file__).resolve().parents[2] / "service"


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


class _UniqueKeyLoader(yaml.SafeLoader):
    """safe_load keeps the last of two equal keys: a group appended twice would silently replace the first."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        duplicates = {k for k in keys if keys.count(k) > 1}
        if duplicates:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate keys {sorted(duplicates)}", node.start_mark)
        return super().construct_mapping(node, deep=deep)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_names_each_key_once(lang: str) -> None:
    yaml.load((DIRECTORY / f"{lang}.yaml").read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506 — a SafeLoader subclass


def test_both_catalogs_have_the_same_keys_and_placeholders() -> None:
    en, zh = catalog("en"), catalog("zh")
    assert sorted(set(en) ^ set(zh)) == []
    differing = {key: (sorted(_placeholders(en[key])), sorted(_placeholders(zh[key]))) for key in en
                 if _placeholders(en[key]) != _placeholders(zh[key])}
    assert differing == {}


def _keys_named_in_code() -> set[tuple[str, str]]:
    """(file, key) for every say("literal.key", ...) under service/."""
    named = set()
    for path in SERVICE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "say" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                named.add((str(path.relative_to(SERVICE)), node.args[0].value))
    return named


def test_every_key_the_code_names_is_in_the_catalogs() -> None:
    named = _keys_named_in_code()
    assert {key for _, key in named} >= {"knowledge.hello", "workload.assumed_gpu", "diagnostics.topology_missing", "pipeline.sources"}
    assert sorted((file, key) for file, key in named if key not in catalog("en")) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_topic_with_follow_ups_has_two_questions(lang: str) -> None:
    # These keys are built from the topic name, so the literal-key check above cannot see them.
    for topic in FOLLOW_UP_TOPICS:
        first, second = (say(f"knowledge.topic_follow_ups.{topic}.{which}", lang) for which in ("first", "second"))
        assert first and second and first != second


def test_handlers_have_no_inline_translation_helper() -> None:
    # Sentences are catalog entries; an inline ("english", "中文") pair would bypass the parity checks above.
    calls = [(path.name, node.lineno) for path in (SERVICE / "assistant").rglob("*.py")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "t"]
    assert calls == []


@pytest.mark.parametrize(("message", "lang", "key"), [
    ("hello", "en", "knowledge.hello"),
    ("你好", "zh", "knowledge.hello"),
    ("What is the capital of France?", "en", "knowledge.out_of_scope"),
    ("法国的首都是哪里？", "zh", "knowledge.out_of_scope"),
])
def test_answers_lead_with_the_catalog_sentence(advisor, message: str, lang: str, key: str) -> None:
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.language == lang
    assert answer.blocks[0].text == say(key, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_topology_verdict_fills_the_placeholders(advisor, lang: str) -> None:
    question = {"en": "Is this topology OK?", "zh": "这个拓扑正常吗？"}[lang]
    matrix = "\n".join([
        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity",
        "GPU0     X      NV12    SYS     SYS     0-47",
        "GPU1    NV12     X      SYS     SYS     0-47",
        "GPU2    SYS     SYS      X      NV12    0-47",
        "GPU3    SYS     SYS     NV12     X      0-47",
    ])
    answer = advisor.answer(ChatRequest(message=f"{question}\n{matrix}"))
    shown = "GPU0-GPU2:SYS, GPU0-GPU3:SYS, GPU1-GPU2:SYS, GPU1-GPU3:SYS"
    assert answer.language == lang
    assert answer.blocks[0].text == say("diagnostics.topology_missing", lang, missing=4, pairs=6, shown=shown)
