"""A follow-up that changes an input says which one, before and after (service/assistant/changes.py)."""

from __future__ import annotations

import re

from service.assistant.changes import changed_inputs
from tests.assistant.asking import ask

CJK_WORDS = re.compile(r"[A-Za-z]{4,}")


def _notes(answer) -> list[str]:
    return [b.text for b in answer.blocks if b.type == "notice" and b.kind == "info"]


def test_changed_inputs_are_the_ones_set_in_both_turns_with_other_values() -> None:
    before = {"gpu": "l4", "gpus": 8, "budget": 300000.0, "model": "llama-3-8b"}
    after = {"gpu": "a100-80gb-sxm", "gpus": 8, "budget": 300000.0, "model": "llama-3-8b", "weights": "int4"}
    assert changed_inputs(before, after) == {"gpu": ("l4", "a100-80gb-sxm")}
    assert changed_inputs(None, after) == {}
    assert changed_inputs(before, before) == {}


def test_a_raised_budget_is_reported_with_both_values_in_chinese(advisor) -> None:
    answer = ask(advisor, "小公司，预算30万人民币，想买机器做 Qwen2.5-32B 的 LoRA 微调，买啥配置", "预算能到80万的话呢")
    notes = [n for n in _notes(answer) if "改了" in n]
    assert notes and "800,000" in notes[0] and "300,000" in notes[0], answer.answer
    assert not CJK_WORDS.search(notes[0].replace("GPU", "")), notes[0]  # no English words in a Chinese note
    call = next(c for c in answer.tool_calls if c.tool == "conversation-inputs")
    assert call.input == {"budget": 300000.0} and call.output == {"budget": 800000.0}


def test_a_new_gpu_count_is_reported_and_the_first_turn_has_no_note(advisor) -> None:
    first = ask(advisor, "pretrain a 7B on 1T tokens with 64 H100s, how long")
    assert not any("Changed from the previous answer" in n for n in _notes(first))
    answer = ask(advisor, "pretrain a 7B on 1T tokens with 64 H100s, how long", "and with 128 GPUs?")
    notes = [n for n in _notes(answer) if "Changed from the previous answer" in n]
    assert notes and "128" in notes[0] and "64" in notes[0], answer.answer


def test_a_follow_up_that_changes_nothing_has_no_note(advisor) -> None:
    answer = ask(advisor, "pretrain a 7B on 1T tokens with 64 H100s, how long", "how much memory per GPU does that need?")
    assert not any("Changed from the previous answer" in n for n in _notes(answer)), answer.answer
