"""Claim checks record the claimed-over-estimate ratio at full precision, so small ratios shown are grounded."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask


@pytest.mark.parametrize(
    "question",
    ["他们说7B在32张H100上能跑5000 tokens/s，可信吗", "they say we get 2000 tokens/s for Qwen2.5-7B on 256 A100. plausible?"],
)
def test_a_claim_far_below_the_estimate_shows_a_grounded_ratio(advisor, question) -> None:
    answer = ask(advisor, question)  # asserts nothing ungrounded
    check = next(c for c in answer.tool_calls if c.tool == "claim-check" and "ratio" in c.output)
    ratio = check.output["ratio"]
    assert ratio < 0.05
    assert ratio == pytest.approx(check.input["claimed"] / check.output["estimated"], rel=1e-9)
