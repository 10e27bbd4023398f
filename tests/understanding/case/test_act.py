"""The question act, per part, in both languages."""

from __future__ import annotations

import pytest

from service.understanding.case.act import act_of, read_parts


@pytest.mark.parametrize(("sentence", "act"), [
    ("Will a 13B LoRA fit on one 24 GB card?", "yes_no"),
    ("This would be enough for a 7B model, correct?", "yes_no"),
    ("How many A100s do I need for this?", "quantity"),
    ("Why does vLLM take 90% of my GPU?", "cause"),
    ("Should I use ZeRO-3 or FSDP here?", "choice"),
    ("How do I make it use both GPUs?", "procedure"),
    ("What happens if a node dies mid-run?", "consequence"),
    ("What is ZeRO offload?", "explain"),
    ("这个显存够不够跑 7B？", "yes_no"),
    ("全参微调 14B 需要几张卡", "quantity"),
    ("为什么 loss 一直是 nan", "cause"),
    ("该怎么设置 NCCL 的网卡", "procedure"),
    ("Is there any way to fix it?", "procedure"),  # a request for the fix, phrased as yes/no
    ("batch size=1 也 OOM，有办法解决吗？", "procedure"),
    ("Can I fix it with more GPUs?", "yes_no"),  # names the change: a verdict on it
])
def test_the_act_of_a_sentence(sentence: str, act: str) -> None:
    assert act_of(sentence) == act


def test_a_message_with_two_questions_has_two_parts() -> None:
    parts = read_parts("I have 2x 3090. Why is training slower on two cards than on one? And how do I check if P2P works?")
    assert [p.act for p in parts] == ["cause", "procedure"]
