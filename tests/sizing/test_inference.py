"""inference: weights, KV cache (MHA / GQA / MLA), fit, memory-bound decode and prefill."""

from __future__ import annotations

import math

import pytest

from service.errors import InputConflictError
from tests.sizing.conftest import GIB

REL = 1e-3


# --------------------------------------------------------------------------- KV cache


def test_opt13b_kv_cache_is_800_kib_per_token(size) -> None:
    # PagedAttention (Kwon et al. 2023): 2 (K, V) x 5120 hidden x 40 layers x 2 bytes = 819,200 bytes.
    r = size("inference", model="opt-13b", kv_cache="fp16")
    assert r.kv_bytes_per_token == 2 * 5120 * 40 * 2 == 819_200


def test_llama3_8b_gqa_kv_cache(size) -> None:
    # 2 x 32 layers x 8 KV heads x 128 dims x 2 bytes = 131,072 (128 KiB); MHA with 32 heads would be 4x more.
    r = size("inference", model="llama-3-8b")
    assert r.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2 == 131_072
    fp8 = size("inference", model="llama-3-8b", kv_cache="fp8")
    assert fp8.kv_bytes_per_token == 131_072 / 2


def test_deepseek_v3_mla_cache_is_far_smaller_than_mha(size) -> None:
    # MLA caches one latent of kv_lora_rank 512 + rope dim 64 per layer: 576 x 61 x 2 bytes.
    mla = (512 + 64) * 61 * 2
    mha = 2 * 61 * 128 * 128 * 2  # 128 heads x 128 dims for K and V
    r = size("inference", model="deepseek-v3")
    assert r.kv_bytes_per_token == mla == 70_272
    assert mha / r.kv_bytes_per_token > 50


def test_kv_per_sequence_and_total(size) -> None:
    r = size("inference", model="llama-3-8b", context_len=8192, concurrency=16)
    assert r.kv_per_sequence_gib * GIB == pytest.approx(131_072 * 8192, rel=REL)  # exactly 1 GiB
    assert r.kv_total_gib == pytest.approx(16 * r.kv_per_sequence_gib, rel=REL)


# --------------------------------------------------------------------------- weights and fit


def test_weight_bytes_by_format(size) -> None:
    P, emb = 8.03e9, 2 * 128256 * 4096
    expected = {
        "bf16": 2 * P,
        "fp32": 4 * P,
        "int8": (P - emb) * 1 + emb * 2,  # embeddings and LM head stay 16-bit
        "int4": (P - emb) * (4 + 32 / 128) / 8 + emb * 2,  # group 128 with a 16-bit scale and zero
    }
    for fmt, exact in expected.items():
        assert size("inference", model="llama-3-8b", weights=fmt).weights_gib * GIB == pytest.approx(exact, rel=REL), fmt


def test_per_gpu_total(size) -> None:
    r = size("inference", model="llama-3-70b", gpu="h100", gpus=4, context_len=4096, concurrency=8)
    weights, kv = 2 * 70.55e9, 2 * 80 * 8 * 128 * 2 * 4096 * 8
    assert r.per_gpu_total_gib * GIB == pytest.approx((weights + kv) / 4 + 2 * GIB, rel=REL)


def test_seed_t4_needs_quantised_llama3_8b(size) -> None:
    fp16 = size("inference", model="llama-3-8b", gpu="t4", weights="fp16")
    assert fp16.fit == "does_not_fit"
    assert any(w.code == "does_not_fit" and w.severity == "critical" for w in fp16.work.warnings)
    assert size("inference", model="llama-3-8b", gpu="t4", weights="int8").fit in ("fits", "tight")
    assert size("inference", model="llama-3-8b", gpu="t4", weights="int4").fit == "fits"


def test_max_concurrency_by_hand(size) -> None:
    # (0.9 x 80 GiB - weights - 2 GiB overhead) / (128 KiB x 4096 tokens)
    r = size("inference", model="llama-3-8b", gpu="h100", context_len=4096)
    free = 0.9 * 80 * GIB - 2 * 8.03e9 - 2 * GIB
    assert r.max_concurrency == math.floor(free / (131_072 * 4096))


@pytest.mark.parametrize(("payload", "field"), [
    ({"model": "llama-3-8b", "gpu": "t4", "weights": "bf16"}, "weights"),
    ({"model": "llama-3-8b", "gpu": "a100", "weights": "fp8"}, "weights"),
])
def test_unsupported_formats_are_refused(size, payload, field) -> None:
    with pytest.raises(InputConflictError) as info:
        size("inference", **payload)
    assert info.value.problems[0].field == field and info.value.problems[0].allowed


def test_context_beyond_the_model_is_flagged(size) -> None:
    r = size("inference", model="llama-3-8b", context_len=32768)
    assert "context_beyond_model" in {w.code for w in r.work.warnings}


# --------------------------------------------------------------------------- speed


def test_seed_a10_fp16_decode_speed(size) -> None:
    # Memory-bound decode: η·BW / (weights + half the KV of the sequence) = 0.7 x 600 GB/s / (16.06 GB + 0.27 GB).
    by_hand = 0.7 * 600e9 / (2 * 8.03e9 + 131_072 * 4096 / 2)
    r = size("inference", model="llama-3-8b", gpu="a10", weights="fp16")
    assert r.decode_tokens_per_second.typical == pytest.approx(by_hand, rel=REL)
    assert 15 <= r.decode_tokens_per_second.typical <= 30  # the article's 15-25 tok/s is plausible
    assert r.decode_bound == "memory" and r.fit in ("fits", "tight")


def test_decode_per_sequence_falls_and_aggregate_rises_with_concurrency(size) -> None:
    runs = [size("inference", model="llama-3-8b", gpu="h100", context_len=2048, concurrency=c) for c in (1, 4, 16, 64, 256)]
    per_seq = [r.decode_tokens_per_second.typical for r in runs]
    aggregate = [r.decode_aggregate_tokens_per_second for r in runs]
    assert per_seq == sorted(per_seq, reverse=True)
    assert aggregate == sorted(aggregate)


def test_large_batches_become_compute_bound(size) -> None:
    r = size("inference", model="llama-3-8b", gpu="h100", context_len=128, concurrency=4096)
    assert r.decode_bound == "compute"


def test_prefill_by_hand(size) -> None:
    # (2N + 2·L·h·prompt)·prompt / (peak·0.5) on one H100 (989.5 dense BF16)
    prompt = 2000
    flops = (2 * 8.03e9 + 2 * 32 * 4096 * prompt) * prompt
    r = size("inference", model="llama-3-8b", gpu="h100", context_len=4000, prompt_tokens=prompt)
    assert r.prefill_seconds == pytest.approx(flops / (989.5e12 * 0.5), rel=REL)
    assert r.time_to_first_token_s > r.prefill_seconds


def test_tensor_parallel_splits_memory(size) -> None:
    two = size("inference", model="llama-3-70b", gpu="h100", gpus=2)
    four = size("inference", model="llama-3-70b", gpu="h100", gpus=4)
    assert four.per_gpu_total_gib < two.per_gpu_total_gib
    assert four.decode_tokens_per_second.typical > two.decode_tokens_per_second.typical
