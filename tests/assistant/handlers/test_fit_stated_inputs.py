"""A fit question is sized with what the user stated: an 8-bit LoRA base, "dual" cards, "双卡", "2*24G".

Real threads asked "can I train the LoRA in 8-bit so my card can take a 13B?" and got 16-bit LoRA; "dual 3090s" was
sized as one card. These pin the stated inputs reaching the tools (tool calls, not wording)."""

from __future__ import annotations

from service.catalog import default_catalog
from service.assistant.slots import extract_slots
from tests.assistant.asking import ask, lead


def _memory_calls(answer) -> list[dict]:
    return [c.input for c in answer.tool_calls if c.tool == "training-memory"]


def test_lora_on_an_8bit_base_is_sized_on_that_base_and_answered_for_it(advisor) -> None:
    answer = ask(advisor, "Could I LoRA-tune a 13B model with load_in_8bit on one RTX 4090, does it fit?")
    assert any(c.get("lora_base_bits") == 8 for c in _memory_calls(answer))
    assert "8-bit" in lead(answer).split(".")[0]  # the base the user asked about is what the verdict is about


def test_a_fit_that_needs_gradient_checkpointing_says_yes_with_it(advisor) -> None:
    answer = ask(advisor, "Could I LoRA-tune a 13B model with load_in_8bit on one RTX 4090, does it fit?")
    checkpointed = [c for c in _memory_calls(answer) if c.get("recompute") == "full" and c.get("lora_base_bits") == 8]
    assert checkpointed and lead(answer).startswith("**Yes") and "checkpointing" in lead(answer)


def test_cards_counted_as_dual_pair_or_count_times_memory() -> None:
    catalog = default_catalog()
    assert extract_slots("Is there any way to finetune a 7B model with dual RTX 3090s?", catalog).gpus == 2
    assert extract_slots("双卡3090能全参微调7B吗", catalog).gpus == 2
    assert extract_slots("2*24G显存+zero3 微调 6B 放得下吗", catalog).gpus == 2
    assert extract_slots("a dual-port 100G NIC per H100 node", catalog).gpus is None  # not a count of cards
