"""training-memory: model states (ZeRO paper), activations (Korthikanti et al.), LoRA/QLoRA, fit verdicts.

Expected values are worked out by hand in each test from the published formulas and the catalog's
architecture numbers; nothing here calls the implementation's helpers.
"""

from __future__ import annotations

import pytest

from service.errors import InputConflictError, InputError, UnknownNameError
from tests.sizing.conftest import GIB

REL = 1e-3  # results are rounded to 4 significant digits


def states_per_gpu_bytes(r) -> float:
    p = r.per_gpu
    return (p.weights_gib + p.gradients_gib + p.optimizer_gib) * GIB


# --------------------------------------------------------------------------- model states


def test_full_finetune_model_states_are_16_bytes_per_param(size) -> None:
    # Llama 3 8B, bf16 mixed precision, AdamW, one GPU: 2 (weights) + 2 (grads) + 4 (fp32 master) + 8 (m, v).
    P = 8.03e9
    r = size("training-memory", model="llama-3-8b")
    assert r.bytes_per_param == 16
    assert r.per_gpu.weights_gib == pytest.approx(2 * P / GIB, rel=REL)
    assert r.per_gpu.gradients_gib == pytest.approx(2 * P / GIB, rel=REL)
    assert r.per_gpu.optimizer_gib == pytest.approx(12 * P / GIB, rel=REL)
    assert r.model_states_total_gib == pytest.approx(16 * P / GIB, rel=REL)  # 128.5 GB: the seed verdict's "128 GB"


def test_megatron_convention_keeps_fp32_gradients(size) -> None:
    P = 8.03e9
    r = size("training-memory", model="llama-3-8b", convention="megatron-18")
    assert r.bytes_per_param == 18
    assert r.per_gpu.gradients_gib == pytest.approx(4 * P / GIB, rel=REL)
    assert r.model_states_total_gib == pytest.approx(18 * P / GIB, rel=REL)


@pytest.mark.parametrize(("sharding", "published_gb"), [("none", 120.0), ("zero1", 31.4), ("zero2", 16.6), ("zero3", 1.9)])
def test_zero_paper_figure_1(size, sharding, published_gb) -> None:
    # Rajbhandari et al. 2020, Fig. 1: Ψ = 7.5B, N_d = 64, K = 12. GB = 1e9 bytes; the tool reports GiB.
    psi, n, k = 7.5e9, 64, 12
    exact = {"none": (2 + 2 + k) * psi, "zero1": 4 * psi + k * psi / n, "zero2": 2 * psi + (2 + k) * psi / n, "zero3": (2 + 2 + k) * psi / n}[sharding]
    r = size("training-memory", params_b=7.5, gpus=64, sharding=sharding)
    assert states_per_gpu_bytes(r) == pytest.approx(exact, rel=REL)
    assert states_per_gpu_bytes(r) / 1e9 == pytest.approx(published_gb, rel=0.03)


@pytest.mark.parametrize("n", [2, 8, 64, 1024])
def test_zero_stage_formulas(size, n) -> None:
    P = 14.2e9  # Qwen-14B
    expected = {"zero1": 4 * P + 12 * P / n, "zero2": 2 * P + 14 * P / n, "zero3": 16 * P / n, "fsdp": 16 * P / n}
    for sharding, exact in expected.items():
        r = size("training-memory", model="qwen-14b", gpus=n, sharding=sharding)
        assert states_per_gpu_bytes(r) == pytest.approx(exact, rel=REL), sharding


def test_zero3_adds_a_gather_buffer_of_the_largest_layer(size) -> None:
    # Llama 3 8B: embeddings 128256 x 4096 (untied: x2); one block = (P - embeddings)/32.
    P, V, h, L = 8.03e9, 128256, 4096, 32
    block = (P - 2 * V * h) / L  # 218 M
    largest = max(block, V * h)  # the 525 M-parameter embedding matrix
    r3 = size("training-memory", model="llama-3-8b", gpus=8, sharding="zero3")
    r2 = size("training-memory", model="llama-3-8b", gpus=8, sharding="zero2")
    assert r3.per_gpu.buffers_gib == pytest.approx(4 * largest / GIB, rel=REL)
    assert r2.per_gpu.buffers_gib == 0


def test_seed_qwen14b_zero3_on_four_a100_is_feasible_but_tight(size) -> None:
    # sizing-research §D(2): 14.2B x 16 B = 227 GB of states, ~56.8 GB per GPU with ZeRO-3 over 4 GPUs.
    r = size("training-memory", model="qwen-14b", gpu="a100-80gb-sxm", gpus=4, sharding="zero3", recompute="full", seq_len=2048)
    assert states_per_gpu_bytes(r) / 1e9 == pytest.approx(56.8, rel=0.01)
    assert r.fit in ("fits", "tight")
    assert r.per_gpu.total_gib > 0.7 * 80  # it is tight, not roomy
    bigger = size("training-memory", model="qwen-14b", gpu="a100-80gb-sxm", gpus=4, sharding="zero3", recompute="none",
                  flash_attention=False, seq_len=8192, micro_batch=4)
    assert bigger.fit == "does_not_fit"


# --------------------------------------------------------------------------- activations


def korthikanti_layer(s: int, b: int, h: int, a: int, t: int = 1) -> float:
    """Bytes one layer stores, 16-bit, MHA + 4h GeLU FFN, sequence parallel: sbh(34 + 5as/h)/t."""
    return s * b * h * (34 + 5 * a * s / h) / t


@pytest.mark.parametrize("tp", [1, 8])
def test_activations_without_recompute_match_korthikanti(size, tp) -> None:
    # GPT-3 175B is exactly the paper's setting: MHA (96 heads) and a 4h GeLU FFN.
    s, b, h, a, L, V = 2048, 1, 12288, 96, 96, 50257
    expected = L * korthikanti_layer(s, b, h, a, tp) + 4 * s * b * V / tp  # + fp32 logits
    r = size("training-memory", model="gpt-3-175b", recompute="none", flash_attention=False, seq_len=s, micro_batch=b, gpus=tp, tp=tp)
    assert r.per_gpu.activations_gib * GIB == pytest.approx(expected, rel=REL)


def test_selective_and_full_recompute_match_korthikanti(size) -> None:
    s, b, h, a, L, V = 2048, 2, 12288, 96, 96, 50257
    logits = 4 * s * b * V
    selective = L * 34 * s * b * h + logits  # the 5as²b score tensors are recomputed
    full = L * 2 * s * b * h + korthikanti_layer(s, b, h, a) + logits  # layer inputs + one layer rebuilt in backward
    sel = size("training-memory", model="gpt-3-175b", recompute="selective", flash_attention=False, seq_len=s, micro_batch=b)
    ful = size("training-memory", model="gpt-3-175b", recompute="full", flash_attention=False, seq_len=s, micro_batch=b)
    assert sel.per_gpu.activations_gib * GIB == pytest.approx(selective, rel=REL)
    assert ful.per_gpu.activations_gib * GIB == pytest.approx(full, rel=REL)


def test_flash_attention_keeps_only_the_softmax_statistics(size) -> None:
    s, b, h, a, L, V = 4096, 1, 12288, 96, 96, 50257
    expected = L * (34 * s * b * h + 4 * a * s * b) + 4 * s * b * V  # fp32 log-sum-exp per head and token
    r = size("training-memory", model="gpt-3-175b", recompute="none", flash_attention=True, seq_len=s)
    assert r.per_gpu.activations_gib * GIB == pytest.approx(expected, rel=REL)


def test_gqa_and_gated_ffn_generalisation(size) -> None:
    # Llama 3 8B: 8 of 32 KV heads, SwiGLU with f = 14336: per layer sbh(14 + 4g/a + 6f/h) + 4asb (FlashAttention).
    s, b, h, a, g, f, L, V = 2048, 1, 4096, 32, 8, 14336, 32, 128256
    layer = s * b * h * (14 + 4 * g / a + 6 * f / h) + 4 * a * s * b
    r = size("training-memory", model="llama-3-8b", recompute="none", flash_attention=True, seq_len=s)
    assert r.per_gpu.activations_gib * GIB == pytest.approx(L * layer + 4 * s * b * V, rel=REL)


def test_fp32_training_doubles_16bit_activations(size) -> None:
    s, V = 1024, 50257
    logits = 4 * s * V
    r16 = size("training-memory", model="gpt-3-175b", recompute="none", flash_attention=False, seq_len=s, precision="bf16")
    r32 = size("training-memory", model="gpt-3-175b", recompute="none", flash_attention=False, seq_len=s, precision="fp32")
    assert r32.per_gpu.activations_gib * GIB - logits == pytest.approx(2 * (r16.per_gpu.activations_gib * GIB - logits), rel=REL)
    assert r32.bytes_per_param == 16  # 4 weights + 4 grads + 8 Adam, no separate master copy


# --------------------------------------------------------------------------- LoRA / QLoRA


def llama3_8b_lora_params(rank: int) -> int:
    # q (4096→4096), k, v (4096→1024), o (4096→4096), gate, up (4096→14336), down (14336→4096); 32 layers
    per_layer = (4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 3 * (4096 + 14336)
    return rank * per_layer * 32


def test_lora_trainable_parameters(size) -> None:
    assert llama3_8b_lora_params(16) == 41_943_040  # what PEFT prints for r=16 on all linear layers
    r = size("training-memory", model="llama-3-8b", method="lora", lora_rank=16)
    assert r.trainable_params_b == pytest.approx(41_943_040 / 1e9, rel=REL)
    att = size("training-memory", model="llama-3-8b", method="lora", lora_rank=8, lora_targets="attention")
    assert att.trainable_params_b == pytest.approx(8 * ((4096 + 4096) * 2 + 2 * (4096 + 1024)) * 32 / 1e9, rel=REL)


def test_lora_keeps_frozen_16bit_weights_and_trains_adapters(size) -> None:
    P, n = 8.03e9, llama3_8b_lora_params(16)
    r = size("training-memory", model="llama-3-8b", method="lora")
    assert r.per_gpu.weights_gib * GIB == pytest.approx(2 * P + 2 * n, rel=REL)
    assert r.per_gpu.gradients_gib * GIB == pytest.approx(2 * n, rel=REL)
    assert r.per_gpu.optimizer_gib * GIB == pytest.approx(12 * n, rel=REL)


def test_qlora_nf4_weights_with_double_quantisation(size) -> None:
    # QLoRA §3: 4-bit NF4, block 64 with an 8-bit scale, second-level 256-blocks of fp32: 4 + 8/64 + 32/(64·256) bits.
    P, V, h, L = 8.03e9, 128256, 4096, 32
    emb = 2 * V * h  # embeddings and LM head stay 16-bit
    bits = 4 + 8 / 64 + 32 / (64 * 256)
    n = llama3_8b_lora_params(16)
    r = size("training-memory", model="llama-3-8b", method="qlora", gpu="t4")
    assert r.per_gpu.weights_gib * GIB == pytest.approx((P - emb) * bits / 8 + emb * 2 + 2 * n, rel=REL)
    assert r.per_gpu.buffers_gib * GIB == pytest.approx(2 * (P - emb) / L, rel=REL)  # one layer dequantised to 16-bit
    plain = size("training-memory", model="llama-3-8b", method="qlora", gpu="t4", double_quant=False)
    assert plain.per_gpu.weights_gib * GIB == pytest.approx((P - emb) * (4 + 32 / 64) / 8 + emb * 2 + 2 * n, rel=REL)
    assert r.recompute == "full"  # QLoRA recipes checkpoint activations


# --------------------------------------------------------------------------- the seed article's fine-tuning claims


def test_seed_llama3_8b_on_t4_only_qlora_fits(size) -> None:
    verdicts = {m: size("training-memory", model="llama-3-8b", method=m, gpu="t4").fit for m in ("full", "lora", "qlora")}
    assert verdicts == {"full": "does_not_fit", "lora": "does_not_fit", "qlora": "fits"}
    lora = size("training-memory", model="llama-3-8b", method="lora", gpu="t4")
    assert lora.per_gpu.weights_gib * GIB / 1e9 > 16.0  # the frozen 16-bit weights alone are 16.1 GB (§D(3))
    assert lora.precision == "fp16"  # a T4 has no bf16
    assert any(w.code == "does_not_fit" and w.severity == "critical" for w in lora.work.warnings)


def test_seed_70b_full_training_needs_zero3_across_dozens_of_gpus(size) -> None:
    one = size("training-memory", model="llama-3-70b", gpu="a100-40gb-sxm")
    tp8 = size("training-memory", model="llama-3-70b", gpu="a100-40gb-sxm", gpus=8, tp=8)
    assert one.fit == "does_not_fit" and tp8.fit == "does_not_fit"
    assert tp8.per_gpu.weights_gib + tp8.per_gpu.gradients_gib + tp8.per_gpu.optimizer_gib == pytest.approx(70.55e9 * 16 / 8 / GIB, rel=REL)
    fitting = [n for n in (8, 16, 24, 32, 40, 48, 64, 128)
               if size("training-memory", model="llama-3-70b", gpu="a100-40gb-sxm", gpus=n, sharding="zero3", recompute="full").fit != "does_not_fit"]
    assert fitting and min(fitting) >= 28  # 1.12 TB of states / 40 GB: at least 28 GPUs before activations
    assert 64 in fitting


# --------------------------------------------------------------------------- fit verdict, defaults, refusals


def test_fit_verdict_and_used_fraction(size) -> None:
    r = size("training-memory", model="llama-3-8b", method="qlora", gpu="a10")
    assert r.gpu_memory_gib == 24
    assert r.memory_used_fraction == pytest.approx(r.per_gpu.total_gib / 24, rel=REL)
    assert r.fit == ("fits" if r.per_gpu.total_gib <= 0.9 * 24 else "tight")


def test_gpu_defaults(size) -> None:
    t4 = size("training-memory", model="llama-3-8b", method="qlora", gpu="t4")
    a100 = size("training-memory", model="llama-3-8b", method="qlora", gpu="a100")
    assert (t4.precision, t4.flash_attention) == ("fp16", False)  # Turing: no bf16, no FlashAttention-2
    assert (a100.precision, a100.flash_attention) == ("bf16", True)


def test_warnings(size) -> None:
    r = size("training-memory", model="llama-3-8b", sharding="zero3", seq_len=16384)
    codes = {w.code for w in r.work.warnings}
    assert {"sharding_without_dp", "seq_beyond_context"} <= codes


@pytest.mark.parametrize(("payload", "field", "allowed"), [
    ({"model": "llama-3-8b", "gpu": "t4", "precision": "bf16"}, "precision", "fp16"),
    ({"model": "llama-3-8b", "gpu": "a100", "precision": "fp8"}, "precision", "bf16"),
    ({"model": "llama-3-8b", "task": "pretrain", "method": "qlora"}, "method", "full"),
    ({"model": "llama-3-8b", "task": "pretrain", "method": "lora"}, "method", "full"),
    ({"model": "llama-3-8b", "method": "qlora", "precision": "fp32"}, "precision", "bf16"),
])
def test_contradictions_are_refused_naming_the_field(size, payload, field, allowed) -> None:
    with pytest.raises(InputConflictError) as info:
        size("training-memory", **payload)
    problem = info.value.problems[0]
    assert problem.field == field and allowed in (problem.allowed or "")
    assert problem.en and problem.zh and problem.en != problem.zh


def test_parallel_layout_must_divide_gpus(size) -> None:
    with pytest.raises(InputError, match="multiple of tp x pp"):
        size("training-memory", model="llama-3-70b", gpus=12, tp=8)


def test_unknown_model_suggests_close_names(size) -> None:
    with pytest.raises(UnknownNameError) as info:
        size("training-memory", model="llama-3-8bb")
    assert "llama-3-8b" in info.value.problems[0].suggestions


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("method", ["full", "lora", "qlora"])
@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
@pytest.mark.parametrize("flash", [True, False])
def test_memory_grows_with_sequence_length_and_micro_batch(size, method, recompute, flash) -> None:
    def total(seq_len: int, micro_batch: int):
        r = size("training-memory", model="llama-3-8b", method=method, recompute=recompute, flash_attention=flash,
                 seq_len=seq_len, micro_batch=micro_batch)
        return r.per_gpu.activations_gib, r.per_gpu.total_gib

    by_seq = [total(s, 1) for s in (128, 512, 2048, 8192, 32768)]
    by_batch = [total(2048, b) for b in (1, 2, 4, 16, 64)]
    for series in (by_seq, by_batch):
        activations = [a for a, _ in series]
        totals = [t for _, t in series]
        assert activations == sorted(activations) and len(set(activations)) == len(activations)
        assert totals == sorted(totals)


@pytest.mark.parametrize("model", ["llama-3-8b", "qwen-14b", "llama-3-70b", "deepseek-v3"])
@pytest.mark.parametrize("gpus", [2, 8, 64, 512])
def test_each_zero_stage_needs_no_more_memory_per_gpu_than_the_previous(size, model, gpus) -> None:
    totals = [size("training-memory", model=model, gpus=gpus, sharding=s).per_gpu.total_gib for s in ("none", "zero1", "zero2", "zero3")]
    assert totals[0] >= totals[1] >= totals[2] >= totals[3]
    fsdp = size("training-memory", model=model, gpus=gpus, sharding="fsdp").per_gpu.total_gib
    assert fsdp == totals[3]


def test_sharded_memory_falls_with_more_gpus(size) -> None:
    totals = [size("training-memory", model="llama-3-70b", gpus=n, sharding="zero3", recompute="full").per_gpu.total_gib for n in (8, 16, 32, 64, 128)]
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == len(totals)


def test_tensor_parallelism_divides_model_states(size) -> None:
    base = size("training-memory", model="llama-3-70b")
    for tp in (2, 4, 8):
        r = size("training-memory", model="llama-3-70b", gpus=tp, tp=tp)
        assert states_per_gpu_bytes(r) == pytest.approx(states_per_gpu_bytes(base) / tp, rel=2 * REL)
        assert r.per_gpu.activations_gib < base.per_gpu.activations_gib
