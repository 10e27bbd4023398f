"""Entry / mid / production asked for with no model named: the ladder for the asker's typical workload, the
assumption in the first sentence (handlers/tier_ladder.py, archetypes.ladder_model). Questions written for these tests."""

from __future__ import annotations

import pytest

from service.assistant.handlers.archetypes import PRODUCT_MODEL
from tests.assistant.asking import ask, lead


@pytest.mark.parametrize(
    ("question", "assumed"),
    [
        ("give me budget, mid and production options for a fine-tuning setup", "You did not name a model"),
        ("微调用的机器，按入门、进阶、生产三档各推荐一套", "你没有指定模型"),
    ],
)
def test_no_model_builds_the_ladder_for_the_default_and_says_so_first(advisor, question: str, assumed: str) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    runs = [c for c in answer.tool_calls if c.tool == "recommend"]
    assert len(runs) >= 2 and all(c.input["model"] == PRODUCT_MODEL for c in runs)
    first = lead(answer).split("；" if "你" in assumed else ";")[0]
    assert assumed in first and "Llama 3.1 8B" in first
    assert any(b.type == "table" for b in answer.blocks)


def test_a_named_model_keeps_its_own_ladder(advisor) -> None:
    answer = ask(advisor, "entry, mid and production setups for fine-tuning Qwen2.5 14B")
    runs = [c for c in answer.tool_calls if c.tool == "recommend"]
    assert runs and all(c.input["model"] == "qwen2.5-14b" for c in runs)
    assert "did not name" not in lead(answer)


def test_a_tuned_product_feature_uses_the_product_archetype_model(advisor) -> None:
    answer = ask(advisor, "we want to fine-tune a customer support bot: entry, mid and production options?")
    runs = [c for c in answer.tool_calls if c.tool == "recommend"]
    assert runs and runs[0].input["model"] == PRODUCT_MODEL and runs[0].input["task"] == "fine-tune"
