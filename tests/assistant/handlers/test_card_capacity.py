"""A card named with no model: what it can run and fine-tune (handlers/card_capacity.py), from the sizing tools.

The answers go through the real pipeline: the largest model each row states is the largest one the tool calls found to
fit, the table for the purpose asked comes first, every number is grounded, and a question that truly needs a model
still asks for it."""

from __future__ import annotations

import pytest

from service.assistant.handlers.card_capacity import LADDER
from service.assistant.slot_readers import STAND_INS, card_by_memory
from service.catalog import default_catalog
from tests.assistant.asking import ask, lead


def _largest_fitting(answer, tool: str, key: str) -> dict[str, str]:
    """option -> the catalog id of the largest ladder model the tool calls found to fit (climbed smallest first)."""
    best: dict[str, str] = {}
    for call in answer.tool_calls:
        if call.tool == tool and "error" not in call.output and call.output.get("fit") in ("fits", "tight"):
            best[call.output[key]] = call.output["model"]
    return best


def _name(model_id: str) -> str:
    return default_catalog().models[model_id].name


def test_inference_question_in_chinese_leads_with_what_the_card_runs(advisor) -> None:
    answer = ask(advisor, "我手上有张 RTX 3060 12GB，本地能部署多大的模型？")
    text = lead(answer)
    assert answer.clarification is None
    assert "12 GB" in text and "推理" in text.split("；")[0]  # the inference summary comes first
    served = _largest_fitting(answer, "inference", "weights_format")
    assert set(served) == {"int4", "int8", "bf16"}
    for model in served.values():  # each size the tools fit is named (once, at the best precision that fits it)
        assert _name(model) in text
    tuned = _largest_fitting(answer, "training-memory", "method")
    assert "qlora" in tuned and _name(tuned["qlora"]) in answer.answer
    assert "{" not in answer.answer


def test_fine_tuning_question_in_english_leads_with_the_tuning_table(advisor) -> None:
    answer = ask(advisor, "what models can I fine-tune on an rtx 4060 ti 16gb?")
    text = lead(answer)
    assert text.index("fine-tuning") < text.index("inference")
    tuned = _largest_fitting(answer, "training-memory", "method")
    assert _name(tuned["qlora"]) in text and "16 GB" in text
    # QLoRA keeps a 4-bit base, so it takes on a larger model than LoRA on the same card.
    assert LADDER.index(tuned["qlora"]) > LADDER.index(tuned["lora"])


def test_a_card_known_only_by_its_memory_says_what_stood_in(advisor) -> None:
    answer = ask(advisor, "我的卡只有8G显存，能跑什么模型")
    assert answer.clarification is None
    assert any(c.tool == "inference" and c.output.get("gpu") == STAND_INS[8] for c in answer.tool_calls)
    assert "8 GB" in answer.answer


@pytest.mark.parametrize("text", ["How many GPUs do I need?", "我要训练一个模型需要什么配置"])
def test_questions_that_need_a_model_still_ask_for_it(advisor, text) -> None:
    answer = ask(advisor, text)
    assert answer.clarification is not None
    assert not [c for c in answer.tool_calls if c.tool in ("inference", "training-memory")]


def test_two_cards_without_a_model_compare_what_each_fits(advisor) -> None:
    answer = ask(advisor, "A6000 还是 4090，做 LoRA 微调选哪个？")
    assert answer.clarification is None
    text = lead(answer)
    assert "RTX A6000" in text and "4090" in text
    assert "48 GB" in answer.answer and "24 GB" in answer.answer
    by_card: dict[str, str] = {}
    for call in answer.tool_calls:
        if call.tool == "training-memory" and call.output.get("method") == "lora" and call.output.get("fit") in ("fits", "tight"):
            by_card[call.output["gpu"]] = call.output["model"]
    assert LADDER.index(by_card["rtx-a6000"]) > LADDER.index(by_card["rtx-4090"])
    assert _name(by_card["rtx-a6000"]) in text and _name(by_card["rtx-4090"]) in text  # the larger card's larger model leads


@pytest.mark.parametrize(("text", "gb"), [("an 8GB card", 8), ("12G显存的卡", 12), ("显存 32G", 32), ("a 48 GB GPU", 48)])
def test_stand_ins_cover_the_common_sizes_and_have_that_memory(text, gb) -> None:
    gpu, memory = card_by_memory(text)
    assert memory == gb and default_catalog().gpus[gpu].memory_gb == gb


def test_every_stand_in_is_a_catalog_card_of_that_memory() -> None:
    gpus = default_catalog().gpus
    for gb, gpu in STAND_INS.items():
        assert gpus[gpu].memory_gb == gb, gpu


def test_cards_compared_for_vision_work_get_no_language_model_ladder(advisor) -> None:
    answer = ask(advisor, "RTX A6000 or RTX 4090 for training an image segmentation network?")
    assert not [c for c in answer.tool_calls if c.tool == "training-memory" and c.output.get("model") in LADDER]


def test_a_does_it_run_question_about_one_card_and_no_model_says_what_the_card_runs(advisor) -> None:
    # Nothing written answers it and the spec card does not either: what fits on the card does.
    answer = ask(advisor, "Does it run on a single RTX A5000 or do I need two?")
    assert answer.clarification is None
    assert "24 GB" in lead(answer) and "also written" not in lead(answer)  # what it runs, not the card's spec sheet
    assert _largest_fitting(answer, "inference", "weights_format")


def test_a_long_message_with_one_spec_word_is_not_a_spec_lookup(advisor) -> None:
    answer = ask(advisor, "We will buy some H100 servers with several NICs, like 8 NICs, so I'm curious how NCCL will behave on this type of node.")
    assert answer.intent != "spec"
    assert "NCCL" in lead(answer)
