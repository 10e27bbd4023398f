"""Parity over real answers: the Markdown and plain renderings of the first turns of the evaluation conversations
carry the same numbers and the same source URLs as the blocks themselves (real runtime: index, catalog, tools)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from importlib.resources import files

import pytest

from service.config import Settings
from service.contract import ChatRequest
from service.render import markdown, plain
from service.runtime import Runtime

URL = re.compile(r"https?://[^\s<>()\]]+")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def first_turns(limit: int = 40) -> list[str]:
    lines = files("evaluators").joinpath("datasets/conversations.jsonl").read_text(encoding="utf-8").splitlines()
    messages = [json.loads(line)["turns"][0]["message"] for line in lines if line.strip()]
    step = max(1, len(messages) // limit)  # spread over the groups (zh, en, mixed, ...)
    return messages[::step][:limit]


QUESTIONS = first_turns()


def numbers(text: str) -> Counter:
    return Counter(NUMBER.findall(URL.sub(" ", text)))


def urls(text: str) -> set[str]:
    return {u.rstrip(".,;") for u in URL.findall(text)}


def block_texts(block) -> list[str]:
    """The text a block carries, field by field (a recommendation is typed values, checked separately)."""
    kind = block.type
    if kind == "lead":
        return [block.text]
    if kind == "paragraph":
        return [block.title or "", block.text]
    if kind == "bullets":
        return [block.title or "", *block.items]
    if kind == "table":
        return [block.title or "", *(c.label for c in block.columns), *(cell.text for row in block.rows for cell in row)]
    if kind == "checklist":
        return [block.title or "", *(t for s in block.steps for t in (s.text, s.detail or "", *s.commands))]
    if kind == "notice":
        return [block.text]
    if kind == "sources":
        return [block.title, *(f"[{i.n}] {i.title} {i.source} {i.url}" for i in block.items)]
    if kind == "work":
        return [block.title, *(f"{i.name} {i.value} {i.unit or ''}" for i in block.inputs),
                *(f"{f.name} {f.formula} {f.value} {f.unit or ''}" for f in block.formulas), *block.assumptions,
                *(s.url for s in block.sources), str(block.more_formulas) if block.more_formulas else ""]
    return []


@pytest.fixture(scope="module")
def runtime(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("parity") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    rt = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[], llm_provider="none"))
    rt.open_index()
    yield rt
    rt.close()


def test_there_are_enough_questions() -> None:
    assert len(QUESTIONS) >= 35


@pytest.mark.parametrize("question", QUESTIONS)
def test_markdown_and_plain_carry_the_blocks_numbers_and_sources(runtime, question) -> None:
    answer = runtime.advisor.answer(ChatRequest(message=question))
    lang = answer.language
    md, text = markdown.render(answer.blocks, lang), plain.render(answer.blocks, lang)
    assert answer.answer == md  # Answer.answer is the Markdown rendering of the blocks
    assert answer.blocks and answer.blocks[0].type == "lead"

    # Every figure a block holds is shown, in both formats, as often as the blocks hold it; neither adds any.
    held = Counter()
    for block in answer.blocks:
        for value in block_texts(block):
            held += numbers(value)
    assert numbers(md) == numbers(text), question
    assert not held - numbers(md), (question, held - numbers(md))
    for block in answer.blocks:
        if block.type == "recommendation":
            rec = block.recommendation
            for shown in (md, text):
                assert f"{rec.gpus} × {rec.gpu_name}" in shown and all(alt.gpu_name in shown for alt in rec.alternatives)

    # The same links: every cited source and formula source, nothing else.
    linked = {i.url for b in answer.blocks if b.type == "sources" for i in b.items}
    linked |= {s.url for b in answer.blocks if b.type == "work" for s in b.sources}
    for block in answer.blocks:
        for value in block_texts(block):
            linked |= urls(value)
    assert urls(md) == urls(text) == linked, question
    assert {c.url for c in answer.citations} <= urls(md)
    assert answer.grounding.ungrounded == []
