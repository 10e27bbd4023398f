"""Buying cards within a budget (handlers/purchase.py)."""

from __future__ import annotations

import pytest

from service.assistant.handlers.purchase import wants_to_buy
from service.contract import ChatRequest


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], answer.grounding.ungrounded
    return answer


def test_buying_is_told_from_renting() -> None:
    assert wants_to_buy("which card should I buy")
    assert wants_to_buy("实验室想采购服务器")
    assert not wants_to_buy("不想买机器，租什么卡")
    assert not wants_to_buy("without buying hardware")


def test_a_home_buyer_with_a_small_budget_gets_a_consumer_card(advisor) -> None:
    answer = ask(advisor, "Hobbyist here, about $3,200 to buy a GPU at home for LoRA on a 7B model. Which one?")
    assert "RTX 4090" in answer.blocks[0].text  # a purchase leads, not a cloud instance
    assert "rather rent" in answer.answer and answer.recommendation is not None  # renting follows as the alternative


def test_a_lab_budget_in_rmb_names_data_centre_cards_within_it(advisor) -> None:
    answer = ask(advisor, "课题组预算 25 万元，想买服务器微调 13B 模型，买什么卡？")
    first = answer.blocks[0].text
    assert "建议买" in first and "RTX 4090" not in first
    options = next(c for c in answer.tool_calls if c.tool == "purchase-options").output["options"]
    assert options and all(o["total"] <= 250_000 * 1.1 for o in options)


def test_a_startup_poc_that_will_not_buy_gets_a_rented_data_centre_card(advisor) -> None:
    answer = ask(advisor, "We're a startup doing a POC fine-tune of a 13B model and don't want to buy hardware. Which GPU should we rent?")
    assert answer.recommendation is not None
    configuration = answer.recommendation["recommended"]["configuration"]
    assert configuration["gpu"] not in ("t4", "rtx-4090") and configuration["instance"]
    assert answer.recommendation["method"] == "lora"


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("home tinkerer, ~$1,700 to buy one GPU for LoRA experiments, which one?", "RTX 3090"),
        ("我们所里有60万经费，想采购GPU服务器给学生做大模型微调，怎么配", "NVIDIA"),
    ],
)
def test_a_budget_without_a_model_gets_a_plan_for_a_stated_typical_workload(advisor, question, card) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    assert card in answer.blocks[0].text
    assumed = [b.text for b in answer.blocks if b.type == "notice"]
    assert any("7B" in t or "13B" in t for t in assumed), assumed  # the workload it was sized for is stated
    assert "purchase-options" in [c.tool for c in answer.tool_calls]


def test_modules_sold_on_baseboards_are_offered_only_as_whole_boards(advisor) -> None:
    answer = ask(advisor, "our lab can spend about $110k to buy GPU servers for fine-tuning 13B models, what should we buy?")
    options = [c for c in answer.tool_calls if c.tool == "purchase-options"][0].output["options"]
    sxm = {"h100-sxm", "h200", "b200", "h800", "a100-80gb-sxm", "a100-40gb-sxm", "mi300x"}
    assert all(o["gpus"] == 8 for o in options if o["gpu"] in sxm), options
