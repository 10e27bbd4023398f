"""GPUs named as out of reach are the reason for a question, not one of its options; budgets raised in a follow-up or
stated without a currency sign are read (service/assistant/slots.py, slot_readers.unavailable).
"""

from __future__ import annotations

import pytest

from service.assistant.slot_readers import unavailable
from service.assistant.slots import extract_slots
from service.catalog import default_catalog
from tests.assistant.asking import ask


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


# -- GPUs named as unavailable ---------------------------------------------------------------------------------

UNAVAILABLE = [
    ("买不到H100，我们该在 H800 和 H20 之间选哪个？", "h100-sxm", ["h800", "h20"]),
    ("H100 缺货，A800 还是 H20 更适合推理？", "h100-sxm", ["a800", "h20"]),
    ("we can't get H100s here; is A100 or L40S the better pick?", "h100-sxm", ["a100-80gb-sxm", "l40s"]),
    ("H100 is sold out at our vendor, so A100 or H200 for training?", "h100-sxm", ["a100-80gb-sxm", "h200"]),
    ("since H100s are out of stock, L40S or A100 for serving?", "h100-sxm", ["l40s", "a100-80gb-sxm"]),
    ("H200 都拿不到了，H100 和 H20 哪个划算", "h200", ["h100-sxm", "h20"]),
]


@pytest.mark.parametrize(("text", "gone", "options"), UNAVAILABLE)
def test_a_gpu_named_as_unavailable_is_not_an_option(catalog, text: str, gone: str, options: list[str]) -> None:
    slots = extract_slots(text, catalog)
    assert gone not in (slots.compare_gpus or []), slots.compare_gpus
    assert slots.gpu != gone and slots.gpu == options[0]
    assert set(options) <= set(slots.compare_gpus or [options[0]])


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("H100 vs A100 for a 70B fine-tune", ["h100-sxm", "a100-80gb-sxm"]),
        ("H100 和 A100 训练速度差多少", ["h100-sxm", "a100-80gb-sxm"]),
        ("we can get both H100 and A100, which trains faster?", ["h100-sxm", "a100-80gb-sxm"]),
        ("H100 或者 H20，哪个买得到就用哪个", ["h100-sxm", "h20"]),
    ],
)
def test_an_ordinary_comparison_keeps_both_gpus(catalog, text: str, gpus: list[str]) -> None:
    slots = extract_slots(text, catalog)
    assert slots.compare_gpus == gpus and slots.gpu == gpus[0]


def test_unavailable_reads_the_words_on_either_side_of_the_name() -> None:
    text = "H100 is sold out, A100 is fine"
    mentions = [("h100-sxm", 0, 4), ("a100-80gb-sxm", 19, 23)]
    assert unavailable(text, mentions) == {"h100-sxm"}
    before = "买不到H100，用A100"
    assert unavailable(before, [("h100-sxm", 3, 7), ("a100-80gb-sxm", 9, 13)]) == {"h100-sxm"}
    assert unavailable("H100 vs A100", [("h100-sxm", 0, 4), ("a100-80gb-sxm", 8, 12)]) == set()


@pytest.mark.parametrize("text", ["we can not get H100 anymore, is H200 or A100 ok?", "H100 现在缺货，A800 还是 H20 更适合推理？"])
def test_more_phrasings_of_unavailable(catalog, text: str) -> None:
    slots = extract_slots(text, catalog)
    assert "h100-sxm" not in (slots.compare_gpus or []) and slots.gpu != "h100-sxm"


def test_through_the_assistant_the_unavailable_gpu_is_not_compared(advisor) -> None:
    answer = ask(advisor, "国内买不到H100了，训练 Llama 3 8B 用 H800 还是 H20？")
    compared = [c.input["gpus"] for c in answer.tool_calls if c.tool == "gpu-compare"]
    assert compared and all("h100-sxm" not in gpus for gpus in compared), compared
    assert set(compared[0]) == {"h800", "h20"}
    assert "H800" in answer.answer and "H20" in answer.answer


# -- budgets ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "budget", "currency"),
    [
        ("预算能到80万", 800_000, "CNY"),
        ("预算能加到100万的话呢", 1_000_000, "CNY"),
        ("要是预算可以提到120万呢", 1_200_000, "CNY"),
        ("预算最多放宽到60万", 600_000, "CNY"),
        ("what if the budget is 200k", 200_000, "USD"),
        ("and if our budget goes up to 350k?", 350_000, "USD"),
        ("with a budget of 1.5M what changes", 1_500_000, "USD"),
    ],
)
def test_a_raised_budget_is_read(catalog, text: str, budget: float, currency: str) -> None:
    slots = extract_slots(text, catalog)
    assert slots.budget == pytest.approx(budget) and slots.currency == currency


@pytest.mark.parametrize(
    "text",
    ["预算到位了吗", "预算批下来了吗，先问问8卡H100能训多久", "the budget is tight, what can 4 GPUs do", "budget for 8 GPUs?"],
)
def test_budget_words_without_an_amount_give_no_budget(catalog, text: str) -> None:
    assert extract_slots(text, catalog).budget is None


def test_a_raised_budget_follow_up_reruns_the_purchase_with_the_new_amount(advisor) -> None:
    first = ask(advisor, "课题组预算50万，想买卡做 Qwen2.5-7B 的全参微调，买什么")
    second = ask(advisor, "课题组预算50万，想买卡做 Qwen2.5-7B 的全参微调，买什么", "预算能加到100万的话呢")
    budgets = lambda a: [c.input.get("budget") for c in a.tool_calls if c.tool == "recommend"]  # noqa: E731
    assert budgets(first) == [500_000] and budgets(second) == [1_000_000]
    assert second.clarification is None and "1,000,000" in second.answer
