"""How a technique works, with a model named only as its example ("DeepSeek-V3 这种 MoE，专家并行是怎么切的"), is knowledge;
with a memory or count asked, or the model on a stated number of GPUs, it is sizing. Questions written for these tests."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("DeepSeek-V3 这种 MoE，专家并行是怎么切到各张卡上的？", "faq"),
        ("how does tensor parallelism split Llama 3 70B's attention heads across GPUs?", "faq"),
        ("how does LoRA work on Llama 3 8B and how much memory on one 4090", "sizing"),
        ("Qwen2.5-72B 用 8 张 H100 做张量并行，原理是怎么切的，每卡要多少显存", "sizing"),
    ],
)
def test_how_a_technique_works_with_a_model_as_its_example(understander, text, intent):
    # A model named only as the example of how a technique splits the work is still knowledge; with a memory or
    # count asked, or a model on a stated number of GPUs, it is sizing.
    assert understander.understand(text).intent == intent
