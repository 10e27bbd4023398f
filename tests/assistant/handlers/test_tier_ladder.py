"""The three tiers side by side: a question that asks for entry / mid / production gets one recommend run per
tier, in one table, with the tier's method, and a follow-up that adds data keeps the ladder.

Questions written for these tests; every answer is checked for ungrounded numbers (tests/assistant/asking.py).
"""

from __future__ import annotations

import pytest

from service.assistant.handlers.tier_ladder import asks_for_tiers
from tests.assistant.asking import ask, lead


def _tables(answer) -> list:
    return [b for b in answer.blocks if b.type == "table"]


def _recommendations(answer) -> list[dict]:
    return [c.output for c in answer.tool_calls if c.tool == "recommend"]


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("entry / mid / production rigs for fine-tuning Llama 3 8B", True),
        ("give me three tiers for a Mistral 7B fine-tune", True),
        ("good/better/best setups for tuning qwen 14b", True),
        ("Qwen2.5-7B 微调，入门、中端、生产各来一个配置", True),
        ("低中高三档配置分别是什么", True),
        ("which GPUs to fine-tune llama 8b", False),
        ("入门配置推荐一下", False),
        ("is the production tier worth it", False),
    ],
)
def test_the_ladder_cue(text: str, asks: bool) -> None:
    assert asks_for_tiers(text) is asks


@pytest.mark.parametrize(
    "question", ["entry / mid / production rigs for fine-tuning Llama 3 8B", "Llama 3 8B 微调，入门、中端、生产各来一个配置"]
)
def test_three_tiers_each_from_the_recommend_tool(advisor, question: str) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    recs = _recommendations(answer)
    by_gpus = sorted(r["recommended"]["configuration"]["gpus"] for r in recs)
    assert len(_tables(answer)) == 1 and len(_tables(answer)[0].rows) == 3
    rows = _tables(answer)[0].rows
    entry, mid, production = (r[0].text for r in rows)
    assert rows[0][1].text.startswith("1 ")  # one card
    assert rows[0][2].text in ("LoRA", "QLoRA (4-bit base weights)", "QLoRA（4-bit 基座权重）")
    assert by_gpus[0] == 1 and by_gpus[-1] >= 8
    # Production is a whole node of the production tier's GPU; every row's figures are the tool's own.
    prod = next(r for r in recs if r["recommended"]["configuration"]["gpu"] == "h100-sxm" and r["method"] == "full")
    assert prod["recommended"]["configuration"]["gpus"] >= 8
    assert prod["recommended"]["configuration"]["gpu_name"] in rows[2][1].text
    assert entry != mid != production
    assert ("LoRA" in lead(answer)) and ("H100" in lead(answer))


def test_a_named_method_holds_at_every_tier_but_entry(advisor) -> None:
    answer = ask(advisor, "Llama 3 70B LoRA 三档配置")
    rows = _tables(answer)[0].rows
    assert [r[2].text for r in rows][1:] == ["LoRA", "LoRA"]
    assert "QLoRA" in rows[0][2].text  # 16-bit LoRA of a 70B needs more than an entry card


def test_with_data_each_tier_has_time_and_cost_and_a_follow_up_keeps_the_ladder(advisor) -> None:
    first = ask(advisor, "entry, mid and production options for a Mistral 7B sft")
    assert len(_tables(first)[0].columns) == 5  # no data: memory and price only
    answer = ask(advisor, "entry, mid and production options for a Mistral 7B sft", "and with 1B tokens?")
    table = _tables(answer)[0]
    assert [c.key for c in table.columns][-2:] == ["time", "cost"]
    recs = _recommendations(answer)
    assert len(recs) >= 3 and all(r["tokens"] == 1e9 for r in recs)
    assert all(row[5].value and row[6].value for row in table.rows)


# No model named is now the ladder of the typical workload, said first (test_tier_ladder_defaults.py).
@pytest.mark.parametrize("question", ["entry / mid / production for fine-tuning Llama 3 8B on 2x A100"])
def test_a_named_deployment_or_no_model_is_not_a_ladder(advisor, question: str) -> None:
    answer = ask(advisor, question)
    assert not (_tables(answer) and len(_tables(answer)[0].rows) == 3 and len(_recommendations(answer)) >= 3)
