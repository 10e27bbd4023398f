"""Routing fixes (issue 7, stop 20), on questions written for these tests, zh and en:

- the latency of a named model on a named card is the inference tool's figure (sizing), while what latency is made of,
  or why one's own server is slow, stays knowledge;
- "does X make sense for Y" asks for advice; only "does that make sense" about a stated figure is a claim to check;
- a spec lookup needs a card to look up: a speed-up from a software feature is knowledge.
"""

from __future__ import annotations

import pytest

CASES = [
    ("Llama 3 8B 放在一张 L40S 上推理，首字延迟和每个 token 大概多久", "sizing"),
    ("what latency would gemma 2 9b have on a single L4?", "sizing"),
    ("what is TTFT and why does it matter for chat apps", "faq"),
    ("延迟和吞吐之间怎么取舍", "faq"),
    ("does MIG make sense for small inference services?", "faq"),
    ("GPU time-slicing for notebooks, does that make sense for a 10 person team?", "faq"),
    ("the vendor says 13B in 2 days on 8 A100s, does that make sense?", "claim_check"),
    ("开了 torch.compile 一般能快多少", "faq"),
    ("how much speed-up does torch.compile give for training?", "faq"),
]


@pytest.mark.parametrize(("text", "intent"), CASES)
def test_routing(understander, text, intent):
    assert understander.understand(text).intent == intent


@pytest.mark.parametrize(
    "text", ["step time 2.3s, global batch 1024x4096, 64 H100, 70B, what's my MFU", "70B 在 64 张 H100 上，每步 1.8 秒，全局 batch 1024×4096，MFU 是多少"]
)
def test_the_mfu_of_ones_own_run_is_diagnosed(understander, text):
    assert understander.understand(text).intent == "diagnostics"
