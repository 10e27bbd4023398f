"""Fit answers open with a verdict word, break the memory down and say what to do when it does not fit (compose/fit.py)."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask, lead


@pytest.mark.parametrize(("question", "verdict"), [
    ("Can one A100 40GB fine-tune Llama 3 8B with LoRA?", "Yes — it fits"),
    # several GPUs that cannot hold it: the verdict names the method and the model states in all (workload._memory)
    ("Llama-3-8B full fine-tune on 4x A100 40GB, feasible?", "No: full fine-tuning does not fit"),
    ("一张 A100 80GB 能 LoRA 微调 Llama 3 8B 吗？", "能"),
])
def test_a_fit_answer_opens_with_its_verdict_word(advisor, question: str, verdict: str) -> None:
    assert lead(ask(advisor, question)).lstrip("*").startswith(verdict)


def test_the_memory_is_broken_down_with_its_total_in_gb(advisor) -> None:
    answer = ask(advisor, "Can one A100 40GB fine-tune Llama 3 8B with LoRA?")
    breakdown = next(b.text for b in answer.blocks if b.type == "paragraph" and "optimizer states" in b.text)
    for part in ("weights", "gradients", "activations", "GB)"):
        assert part in breakdown


def test_what_does_not_fit_gets_remedies_and_a_card_that_holds_it(advisor) -> None:
    answer = ask(advisor, "Llama-3-8B full fine-tune on 4x A100 40GB, feasible?")
    text = answer.answer
    assert "checkpointing" in text and "ZeRO-3" in text and "QLoRA" in text and "offload" in text
    assert "What would fit" in text and "80GB" in text


def test_a_follow_up_with_a_bigger_model_is_sized_for_that_model(advisor) -> None:
    answer = ask(advisor, "Can one A100 40GB fine-tune Llama 3 8B with LoRA?", "and QLoRA on a 70B?")
    assert "70B" in lead(answer) and "Llama 3 8B" not in lead(answer)
    assert lead(answer).lstrip("*").startswith(("No", "Tight"))
    assert "What would fit" in answer.answer


def test_nothing_fits_leads_with_no(advisor) -> None:
    answer = ask(advisor, "一张 T4 能微调 Llama 3 70B 吗？")
    assert lead(answer).lstrip("*").startswith("不行")
    assert "梯度检查点" in answer.answer


def test_kv_cache_per_token_shows_the_formula_with_the_catalog_shape(advisor) -> None:
    answer = ask(advisor, "How much KV cache per token does Llama 3 70B use?")
    first = lead(answer)
    assert first.startswith("KV cache per token = 2 (K and V) × 80 layers × 8 KV heads × 128 head dim × 2 bytes")
    assert "320 KiB" in first


def test_a_low_busbw_is_called_not_normal_with_the_shortfall(advisor) -> None:
    answer = ask(advisor, "8 张 H100 单机 all_reduce busbw 只有 90 GB/s，正常吗？")
    assert "不正常" in answer.answer and "倍" in answer.answer


def test_quantised_weights_on_several_cards_are_a_serving_fit(advisor) -> None:
    answer = ask(advisor, "三张 4090 能跑 Qwen2.5-32B 的 INT4 吗？")
    assert lead(answer).lstrip("*").startswith("能")
    inference = next(c for c in answer.tool_calls if c.tool == "inference")
    assert inference.input["gpus"] == 3 and inference.input["weights"] == "int4"


def test_a_large_model_fit_answer_states_the_whole_weights_in_16_bit(advisor) -> None:
    answer = ask(advisor, "Could we LoRA fine-tune Qwen2-72B on 8x RTX 4090?")
    size = next(c for c in answer.tool_calls if c.tool == "weights-size" and "params" in c.input).output
    assert 140 < size["weights_gb"] < 150
    assert "Weights alone in BF16" in answer.answer


def test_a_qlora_fit_answer_states_the_4_bit_weights(advisor) -> None:
    answer = ask(advisor, "一张 L40S 能 QLoRA 微调 Qwen2-72B 吗？")
    size = next(c for c in answer.tool_calls if c.tool == "weights-size" and "nf4_weights_bytes" in c.input).output
    assert 30 < size["weights_gb"] < 45
    assert "4 位（NF4）" in answer.answer


def test_a_training_plan_states_the_weights_it_has_to_hold(advisor) -> None:
    answer = ask(advisor, "Which single card should we rent to QLoRA fine-tune Llama-2-70B?")
    assert answer.recommendation and answer.recommendation["method"] == "qlora"
    line = next(b.text for b in answer.blocks if b.type == "paragraph" and b.text.startswith("Weights in this plan"))
    assert "4-bit (NF4)" in line and "GB" in line
