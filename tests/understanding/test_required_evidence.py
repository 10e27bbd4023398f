"""Intents that need named evidence (registry `requires`), and a budgeted purchase read as a purchase plan."""

from __future__ import annotations

import pytest

from service.understanding.registry import REQUIREMENTS, load_registry



def test_requirements_in_the_registry_are_known() -> None:
    registry = load_registry()
    assert {r for spec in registry.intents.values() for r in spec.requires} <= set(REQUIREMENTS)
    assert registry.intents["claim_check"].requires == ("claim",) and registry.intents["compare"].requires == ("two_gpus",)


@pytest.mark.parametrize(
    "text",
    [
        "what should my training script do when the spot instance is reclaimed?",  # "reclaimed" is no claim
        "竞价实例被回收的时候训练任务会怎样",
        "how much accuracy do 4-bit weights usually cost a 70B chat model?",
    ],
)
def test_no_claim_no_claim_check(understander, text) -> None:
    und = understander.understand(text)
    assert und.intent != "claim_check", und.trace


def test_one_gpu_named_is_no_comparison(understander) -> None:
    und = understander.understand("should we wait for the GB200 or order H200 servers this quarter?")
    assert und.intent != "compare", und.trace


@pytest.mark.parametrize(
    "text",
    [
        "the vendor is claiming 3x over A100 for our 8x H100 pretraining, believable?",
        "a blog claimed an 8x H100 box pretrains a 7B model on 1T tokens in four days, realistic?",
    ],
)
def test_a_claim_is_still_a_claim_check(understander, text) -> None:
    assert understander.understand(text).intent == "claim_check"


@pytest.mark.parametrize(
    "text",
    [
        "我们所里有60万经费，想采购几台GPU服务器给学生做大模型微调，怎么配",
        "our group has a $90k grant to buy GPU servers for fine-tuning work, what should we get?",
    ],
)
def test_a_budgeted_purchase_is_a_purchase_plan(understander, text) -> None:
    und = understander.understand(text)
    assert und.intent == "recommend" and "hardware_purchase_budget" in und.evidence, und.trace
