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


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("my manager thinks 200 A100s can pretrain a 70B in two weeks", "claim_check"),
        ("i saw on reddit that the L40S trains 3x faster than an A100", "claim_check"),
        ("朋友说 H200 的显存是 H100 的两倍", "claim_check"),
        ("H200 和 H100 的显存分别多少", "spec"),
        ("张量并行和流水线并行有啥不一样", "faq"),
    ],
)
def test_an_assertion_about_cards_is_a_claim_and_a_difference_is_knowledge(understander, text, intent):
    assert understander.understand(text).intent == intent


@pytest.mark.parametrize("text", ["our consultant says we need 24 H100s to serve a 13B model for 1000 users", "集成商给的方案是 16 张 A100 跑 Qwen2.5-14B 给 300 人用"])
def test_a_gpu_count_someone_else_put_on_the_job_is_a_claim(understander, text):
    assert understander.understand(text).intent == "claim_check"
