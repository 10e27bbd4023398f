"""training-compute, training-time, gpus-for-deadline, tokens-in-budget: 6·N·D, MFU bands, goodput, inverse questions."""

from __future__ import annotations

import pytest

from service.errors import InputConflictError, InputError

DAY = 86400.0


# --------------------------------------------------------------------------- FLOPs


def test_gpt3_total_compute(size) -> None:
    # Brown et al. 2020, Table D.1: 3.14e23 FLOPs = 3,640 PF-days; 6·175e9·300e9 = 3.15e23.
    r = size("training-compute", model="gpt-3-175b", tokens=300e9)
    assert r.flops_6nd == pytest.approx(6 * 175e9 * 300e9, rel=1e-3)
    assert r.flops_6nd == pytest.approx(3.14e23, rel=0.01)
    # model FLOPs add causal attention 6·L·h·s per token: 96 layers, h 12288, s 2048
    attention = 6 * 96 * 12288 * 2048 * 300e9
    assert r.attention_flops == pytest.approx(attention, rel=1e-3)
    assert r.model_flops == pytest.approx(6 * 175e9 * 300e9 + attention, rel=1e-3)
    assert r.petaflop_days == pytest.approx(r.model_flops / 1e15 / DAY, rel=1e-3)
    assert r.petaflop_days == pytest.approx(3640, rel=0.03)


def test_llama3_405b_and_70b_budgets(size) -> None:
    r405 = size("training-compute", model="llama-3.1-405b", tokens=15.6e12)
    assert r405.flops_6nd == pytest.approx(3.8e25, rel=0.02)  # "a training budget of 3.8 x 10^25 FLOPs"
    r70 = size("training-compute", model="llama-3-70b", tokens=15e12)
    assert r70.flops_6nd == pytest.approx(6 * 70.55e9 * 15e12, rel=1e-3)  # 6.35e24 (sizing-research §D(1))


def test_moe_uses_active_parameters(size, catalog) -> None:
    arch = catalog.models["deepseek-v3"]
    r = size("training-compute", model="deepseek-v3", tokens=1e12)
    assert r.flops_6nd == pytest.approx(6 * arch.active_params_b * 1e9 * 1e12, rel=1e-3)
    assert r.flops_6nd < 6 * arch.params_b * 1e9 * 1e12 / 10


def test_lora_skips_weight_gradients_and_full_recompute_adds_a_forward(size) -> None:
    s, L, h = 4096, 32, 4096
    full = size("training-compute", model="llama-3-8b", tokens=1e9, seq_len=s)
    lora = size("training-compute", model="llama-3-8b", tokens=1e9, seq_len=s, method="lora")
    assert full.flops_per_token == pytest.approx(6 * 8.03e9 + 6 * L * h * s, rel=1e-3)
    assert lora.flops_per_token == pytest.approx(4 * 8.03e9 + 6 * L * h * s, rel=1e-3)
    recompute = size("training-compute", model="llama-3-8b", tokens=1e9, seq_len=s, recompute="full")
    assert recompute.hardware_flops == pytest.approx(recompute.model_flops * 8 / 6, rel=1e-3)
    assert full.hardware_flops == full.model_flops


def test_tokens_from_samples(size) -> None:
    r = size("training-compute", model="qwen-14b", samples=100_000, seq_len=1024, epochs=3)
    assert r.tokens == 100_000 * 1024 * 3


def test_missing_tokens_is_a_field_named_error(size) -> None:
    with pytest.raises(InputError) as info:
        size("training-compute", model="llama-3-8b")
    assert info.value.problems[0].field == "tokens"


# --------------------------------------------------------------------------- time


def test_megatron_gpt3_on_1024_a100_takes_34_days(size) -> None:
    # Narayanan et al. 2021 §5.1: time = 8·T·P / (n·X) = 8·300e9·175e9 / (1024·140e12) s = 33.9 days.
    by_hand = 8 * 300e9 * 175e9 / (1024 * 140e12) / DAY
    assert by_hand == pytest.approx(33.9, abs=0.05)
    r = size("training-time", model="gpt-3-175b", tokens=300e9, seq_len=2048, gpu="a100-80gb-sxm", gpus=1024,
             achieved_tflops=140, recompute="full", goodput=1)
    assert r.days.typical == pytest.approx(by_hand, rel=0.03)  # + the 1.4% attention term
    assert r.days.typical == pytest.approx(34, rel=0.02)
    assert r.mfu.typical == pytest.approx(140 / 312 * 6 / 8, rel=1e-3)


def test_time_formula_by_hand(size) -> None:
    # Llama 3 70B, 1e12 tokens, 512 H100 at 989.5 dense BF16, MFU 0.4, goodput 0.95.
    per_token = 6 * 70.55e9 + 6 * 80 * 8192 * 4096  # seq defaults to min(context 8192, 4096)
    hours = per_token * 1e12 / (512 * 989.5e12 * 0.4) / 0.95 / 3600
    r = size("training-time", model="llama-3-70b", tokens=1e12, gpu="h100", gpus=512, mfu=0.4)
    assert r.peak_tflops_per_gpu == 989.5  # dense, not the 1,979 "with sparsity"
    assert r.hours.typical == pytest.approx(hours, rel=1e-3)
    assert r.gpu_hours.typical == pytest.approx(hours * 512, rel=1e-3)
    assert r.tokens_per_second == pytest.approx(512 * 989.5e12 * 0.4 * 0.95 / per_token, rel=1e-3)
    assert (r.mfu.low, r.mfu.high) == (0.4, 0.4)  # a given MFU is taken as exact, as in the other tools


def test_seed_claim_70b_in_10_days_on_512_h100_is_about_a_year(size) -> None:
    r = size("training-time", model="llama-3-70b", tokens=15e12, gpu="H100 SXM", gpus=512)
    assert 300 <= r.days.typical <= 450
    assert r.days.low <= 365 <= r.days.high
    assert r.days.low > 10 * 10  # the claimed 10 days is off by more than 10x even at the best MFU


def test_seed_claim_400_samples_per_second_is_far_out_of_reach(size) -> None:
    for seq_len in (512, 1024, 2048):
        r = size("training-time", model="qwen-14b", tokens=1e9, gpu="a100-80gb-sxm", gpus=4, precision="fp16", seq_len=seq_len)
        assert r.samples_per_second < 40
        assert 400 / r.samples_per_second >= 10
        assert r.samples_per_second * r.mfu.high / r.mfu.typical < 40  # not even at the top of the band


def test_published_llama_runs_within_2x(size) -> None:
    # Llama 2 70B: 1,720,320 A100 GPU-hours (Touvron et al. 2023, Table 2); Llama 3 70B: 6.4M H100 GPU-hours (model card).
    l2 = size("training-time", model="llama-2-70b", tokens=2e12, gpu="a100-80gb-sxm", gpus=2048, seq_len=4096)
    l3 = size("training-time", model="llama-3-70b", tokens=15e12, gpu="h100-sxm", gpus=16384, seq_len=8192)
    for r, published in ((l2, 1_720_320), (l3, 6.4e6)):
        assert 0.5 <= r.gpu_hours.typical / published <= 2
        assert r.gpu_hours.low <= published <= r.gpu_hours.high


# --------------------------------------------------------------------------- MFU bands and goodput


def test_mfu_bands(size) -> None:
    def band(**kw):
        kw.setdefault("tokens", 1e12)
        return size("training-time", **kw).mfu

    big = band(model="llama-3-70b", gpu="h100", gpus=512)
    assert (big.low, big.typical, big.high) == (0.3, 0.4, 0.55)  # Llama 3 405B 38-43%, PaLM 46%, MegaScale 55%
    small_hopper, small_ampere = band(model="llama-3-8b", gpu="h100", gpus=64), band(model="llama-3-8b", gpu="a100", gpus=64)
    assert small_hopper.typical < small_ampere.typical
    moe = band(model="deepseek-v3", gpu="h800", gpus=2048)
    assert moe.typical < big.typical
    long = band(model="llama-3.1-70b", gpu="h100", gpus=512, seq_len=65536)
    assert long.typical == pytest.approx(big.typical - 0.05)
    pcie = band(model="llama-3-70b", gpu="l40s", gpus=8)
    assert pcie.typical == pytest.approx(big.typical - 0.05)
    fp8 = band(model="llama-3-70b", gpu="h100", gpus=512, precision="fp8")
    assert fp8.typical == pytest.approx(big.typical * 0.6)
    for b in (big, small_hopper, small_ampere, moe, long, pcie, fp8):
        assert 0 < b.low <= b.typical <= b.high <= 0.55


def test_mfu_above_the_published_best_is_flagged(size) -> None:
    r = size("training-time", model="llama-3-70b", tokens=1e12, gpu="h100", gpus=512, mfu=0.7)
    assert "mfu_high" in {w.code for w in r.work.warnings}
    ok = size("training-time", model="llama-3-70b", tokens=1e12, gpu="h100", gpus=512, mfu=0.45)
    assert "mfu_high" not in {w.code for w in ok.work.warnings}


def test_goodput_defaults(size) -> None:
    small = size("training-time", model="llama-3-70b", tokens=1e12, gpu="h100", gpus=8191)
    large = size("training-time", model="llama-3-70b", tokens=1e12, gpu="h100", gpus=8192)
    assert (small.goodput, large.goodput) == (0.95, 0.90)  # Llama 3: >90% effective time on 16K GPUs


def test_mfu_and_achieved_tflops_are_exclusive(size) -> None:
    with pytest.raises(InputError, match="not both"):
        size("training-time", model="llama-3-8b", tokens=1e9, gpu="h100", gpus=8, mfu=0.4, achieved_tflops=400)


def test_bf16_on_t4_is_refused(size) -> None:
    with pytest.raises(InputConflictError) as info:
        size("training-time", model="llama-3-8b", tokens=1e9, gpu="t4", gpus=8, precision="bf16")
    assert info.value.problems[0].field == "precision"


# --------------------------------------------------------------------------- properties and inverse questions


@pytest.mark.parametrize("model", ["llama-3-8b", "llama-3-70b", "deepseek-v3"])
def test_time_is_inversely_proportional_to_gpus(size, model) -> None:
    runs = [size("training-time", model=model, tokens=1e12, gpu="h100-sxm", gpus=n) for n in (8, 32, 256, 1024, 4096)]
    gpu_hours = [r.hours.typical * r.gpus for r in runs]
    assert max(gpu_hours) == pytest.approx(min(gpu_hours), rel=2e-3)
    assert [r.hours.typical for r in runs] == sorted((r.hours.typical for r in runs), reverse=True)


def test_gpus_for_deadline_times_deadline_is_constant(size) -> None:
    runs = [size("gpus-for-deadline", model="llama-3-70b", tokens=2e12, gpu="h100", deadline_hours=d) for d in (240, 720, 2000, 8760)]
    products = [r.gpus.typical * r.deadline_hours for r in runs]
    assert max(products) == pytest.approx(min(products), rel=2e-3)
    assert all(r.gpus.low <= r.gpus.typical <= r.gpus.high for r in runs)


def test_deadline_and_budget_tools_invert_training_time(size) -> None:
    t = size("training-time", model="qwen-14b", tokens=5e10, gpu="a100-80gb-sxm", gpus=64)
    d = size("gpus-for-deadline", model="qwen-14b", tokens=5e10, gpu="a100-80gb-sxm", deadline_hours=t.hours.typical)
    assert d.gpus.typical == pytest.approx(64, rel=2e-3)
    b = size("tokens-in-budget", model="qwen-14b", gpu="a100-80gb-sxm", gpus=64, hours=t.hours.typical)
    assert b.tokens.typical == pytest.approx(5e10, rel=2e-3)


def test_seed_70b_in_10_days_needs_about_18600_h100(size) -> None:
    # sizing-research §D(1): ≈18,600 H100 at 40% MFU (6ND only); ours adds attention and 90% goodput.
    r = size("gpus-for-deadline", model="llama-3-70b", tokens=15e12, gpu="h100", deadline_hours=240)
    assert 18_600 * 0.8 <= r.gpus.typical <= 18_600 * 1.25
    assert r.gpus.low <= 18_600 <= r.gpus.high and r.goodput == 0.90
    assert r.gpus_rounded % 8 == 0 and r.gpus_rounded >= r.gpus.typical
    t = size("tokens-in-budget", model="llama-3-70b", gpu="h100", gpus=512, hours=240)
    assert t.tokens.low <= 0.41e12 <= t.tokens.high  # what 512 H100 can do in 10 days: ~0.41T tokens


@pytest.mark.parametrize(("needed", "rounded"), [(0.5, 1), (1.5, 2), (3, 4), (5, 8), (10, 16), (17, 24)])
def test_gpu_count_rounding(size, needed, rounded) -> None:
    # A deadline of (one-GPU time / k) needs k GPUs; counts round up to 1, 2, 4, 8, then whole 8-GPU nodes.
    one = size("training-time", model="llama-3-8b", tokens=1e9, gpu="a100-80gb-sxm", gpus=1, mfu=0.35)
    r = size("gpus-for-deadline", model="llama-3-8b", tokens=1e9, gpu="a100-80gb-sxm", deadline_hours=one.hours.typical / needed, mfu=0.35)
    assert r.gpus.typical == pytest.approx(needed, rel=2e-3)
    assert r.gpus_rounded == rounded
