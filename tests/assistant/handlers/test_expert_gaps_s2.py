"""What an expert adds to claim checks, serving follow-ups, purchases and slow-card diagnostics."""

from __future__ import annotations

import pytest

from service.assistant.claim_checks_compute import claimed_flops
from service.assistant.followup import kv_format
from service.assistant.handlers import slow_card
from tests.assistant.asking import ask, lead


def text_of(answer) -> str:
    return "\n".join(getattr(b, "text", "") or "" for b in answer.blocks) + "\n" + answer.answer


# -- a. consumer card against a data-centre card: memory and multi-GPU scaling, not only compute ---------------
@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Does an RTX 4090 really match an A100 for training speed?", ("24 GB", "80 GB", "PCIe", "NVLink", "all-reduce")),
        ("有人说 RTX 3090 训练起来比 H100 还快，对吗？", ("24 GB", "80 GB", "PCIe", "all-reduce")),
    ],
)
def test_consumer_against_datacentre_covers_memory_and_scaling(advisor, question: str, words: tuple) -> None:
    answer = ask(advisor, question)
    assert answer.intent in ("claim_check", "compare")
    body = text_of(answer)
    for word in words:
        assert word in body, word
    assert "training-memory" in [t.tool for t in answer.tool_calls] and "allreduce" in [t.tool for t in answer.tool_calls]


# -- b. a fit claim for a named method shows that method ------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("A friend says one 24 GB card is enough for QLoRA fine-tuning of a 70B model. True?", "does not fit"),
        ("听说一张 24GB 的卡就够 QLoRA 微调 70B 了，是真的吗？", "放不下"),
    ],
)
def test_fit_claim_details_the_method_claimed(advisor, question: str, word: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "claim_check"
    assert word in lead(answer)
    assert "QLoRA" in answer.blocks[1].text and word in answer.blocks[1].text


# -- c. total training compute against 6·N·D -------------------------------------------------------------------
def test_claimed_flops_reads_the_usual_notations() -> None:
    assert claimed_flops("about 3.1e23 FLOPs") == pytest.approx(3.1e23)
    assert claimed_flops("大约 2.5×10^24 次浮点运算") == pytest.approx(2.5e24)
    assert claimed_flops("6 x 10²³ FLOP in total") == pytest.approx(6e23)
    assert claimed_flops("3.1e23 tokens") is None  # no FLOP word
    assert claimed_flops("the model has 7 layers, 1e3 FLOPs") is None  # too small to be a training run


def test_compute_claim_with_catalog_tokens_is_consistent(advisor) -> None:
    answer = ask(advisor, "Training GPT-3 175B needed roughly 3.1e23 FLOPs, is that accurate?")
    assert "consistent" in lead(answer)
    assert "training-compute" in [t.tool for t in answer.tool_calls]
    assert "arxiv.org/abs/2005.14165" in text_of(answer)  # the published token count is cited


def test_compute_claim_off_says_by_how_much(advisor) -> None:
    answer = ask(advisor, "一个 7B 模型训练 2T token，总算力约 9e23 FLOPs，这个说法对不对？")
    assert "对不上" in lead(answer) and "差了" in lead(answer)


def test_compute_claim_without_tokens_asks_for_them(advisor) -> None:
    answer = ask(advisor, "Somebody claims a 30B model took 4e24 FLOPs to train. Right?")
    assert answer.clarification is not None and "tokens" in lead(answer)


# -- d. follow-ups that change a serving plan ------------------------------------------------------------------
def test_kv_format_is_read_from_the_turn() -> None:
    assert kv_format("and with an fp8 KV cache?") == "fp8"
    assert kv_format("KV 缓存改成 INT8 呢") == "int8"
    assert kv_format("serve it in fp8") is None


def test_fp8_kv_follow_up_reruns_the_inference_tool(advisor) -> None:
    answer = ask(advisor, "Serving Qwen2.5 72B on 8x H100, 64 users at 32k context: does it fit?", "and if the KV cache is fp8?")
    assert "FP8" in lead(answer) and " GB " in lead(answer)
    runs = [t for t in answer.tool_calls if t.tool == "inference"]
    assert any(t.input.get("kv_cache") == "fp8" for t in runs)


def test_training_after_serving_gives_total_and_per_gpu(advisor) -> None:
    answer = ask(advisor, "8 张 H100 部署 Llama 3 70B，并发 32，上下文 16k", "那在同一台机器上做全参微调呢？")
    assert "全参" in lead(answer) and "GB）" in lead(answer) and "每卡" in lead(answer)
    assert "training-memory" in [t.tool for t in answer.tool_calls]


# -- e. a rental plan names its node shape ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("Which GPUs should I rent to LoRA-tune a 70B model?", "one 8-GPU node"),
        ("LoRA 微调 70B 的模型，租什么配置合适？", "单机 8 卡"),
    ],
)
def test_rental_lead_names_the_node_shape(advisor, question: str, shape: str) -> None:
    assert shape in lead(ask(advisor, question))


# -- f. a personal budget buys a 24 GB consumer card -----------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "Around $2,800 for a home PC to fine-tune and run 7B to 13B models: which GPU should I buy?",
        "预算一万八左右，想给自己配一张卡，在家微调和推理 7B 到 13B 的模型，买哪张？",
    ],
)
def test_personal_budget_names_24gb_cards(advisor, question: str) -> None:
    answer = ask(advisor, question)
    head = lead(answer)
    assert "RTX 3090" in head or "RTX 4090" in head
    assert "T4" not in head and "A100" not in head
    body = text_of(answer)
    assert "24 GB" in body and "RTX 3090" in body and "RTX 4090" in body


# -- g. one consumer card that trains slowly --------------------------------------------------------------------
def test_slow_card_detection() -> None:
    assert slow_card.asks("my 4090 only gets 35 TFLOPS when training")
    assert slow_card.asks("3090 微调特别慢")
    assert not slow_card.asks("how long does training a 7B take on a 4090?")
    assert not slow_card.asks("4090 训练 7B 会不会慢？")  # expected speed, not a run that is slow
    assert slow_card.gives_settings("bf16, micro batch 2, seq 1024")


@pytest.mark.parametrize(
    ("first", "then", "words"),
    [
        (
            "Training on my RTX 4090 tops out at 45 TFLOPS, why is it so low?",
            "I already train in bf16, batch size 1, sequence length 1024",
            ("gradient accumulation", "tokens per step"),
        ),
        ("我这张 4090 训练只有 35 TFLOPS，正常吗？太慢了", "用的 bf16，batch 2，序列长度 256", ("梯度累积", "每步只有")),
    ],
)
def test_slow_card_first_answer_then_settings(advisor, first: str, then: str, words: tuple) -> None:
    answer = ask(advisor, first)
    body = text_of(answer)
    assert "BF16" in body and "torch.compile" in body and "DataLoader" in body and "profiler" in body
    assert "achieved-vs-peak" in [t.tool for t in answer.tool_calls]
    answer = ask(advisor, first, then)
    assert answer.clarification is None
    body = text_of(answer)
    for word in words:
        assert word in body, word
