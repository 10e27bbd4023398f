"""One GPU asserted to match or beat another, with no one named as its source and no doubt word, is a claim to
check ("L40S trains as fast as H100 at half the price" once read as a rent-or-buy question); a question choosing
between the two stays a comparison. Questions written for these tests, zh and en."""

from __future__ import annotations

import pytest

CASES = [
    ("the L40S trains just as fast as an H100 for half the money", "claim_check"),
    ("honestly an A100 is on par with an H100 for fine-tuning", "claim_check"),
    ("RTX 4090 keeps up with the A100 for LoRA training", "claim_check"),
    ("3090 训练速度和 A100 差不多快", "claim_check"),
    ("L40S 训练跟 H100 一样快，价格只要一半", "claim_check"),
    ("which trains faster, the L40S or the H100?", "compare"),
    ("L40S 和 H100 训练选哪个", "compare"),
    ("is the H200 faster than the H100 for 70B inference, and how much faster?", "compare"),
]


@pytest.mark.parametrize(("text", "intent"), CASES)
def test_parity_assertion_routing(understander, text, intent):
    assert understander.understand(text).intent == intent


def test_the_trace_names_the_rule(understander):
    understanding = understander.understand("the 4090 is as good as an A100 for training")
    assert understanding.intent == "claim_check"
    assert "parity_assertion" in understanding.evidence

