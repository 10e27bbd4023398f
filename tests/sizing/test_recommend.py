"""recommend: tier, configuration, deployment, warnings and alternatives for the seed article's workloads."""

from __future__ import annotations

import pytest

from service.errors import InputConflictError, InputError


def options(r):
    return [r.recommended, *r.alternatives]


def assert_consistent(r) -> None:
    """The recommended configuration is what the nested memory and timing results describe."""
    cfg = r.recommended.configuration
    assert r.memory is not None and r.memory.gpu == cfg.gpu and r.memory.gpus == cfg.gpus
    assert r.memory.fit in ("fits", "tight")
    assert r.memory.per_gpu.total_gib == pytest.approx(cfg.per_gpu_memory_gib, rel=1e-3)
    assert cfg.per_gpu_memory_gib <= cfg.gpu_memory_gib
    if r.timing is not None:
        assert (r.timing.gpu, r.timing.gpus) == (cfg.gpu, cfg.gpus)
        assert r.timing.hours == r.recommended.hours
    assert cfg.nodes * cfg.gpus_per_node >= cfg.gpus


def assert_distinct_alternatives(r) -> None:
    assert r.alternatives, "a recommendation should offer alternatives"
    keys = [(o.configuration.gpu, o.configuration.gpus) for o in options(r)]
    assert len(keys) == len(set(keys))
    labels = [o.label for o in r.alternatives]
    assert len(labels) == len(set(labels)) and "recommended" not in labels


def test_qlora_of_llama3_8b_on_a_small_dataset_is_entry_tier_on_one_gpu(size) -> None:
    r = size("recommend", model="llama-3-8b", method="qlora", samples=10_000, seq_len=1024)
    cfg = r.recommended.configuration
    assert r.tier == r.recommended.tier == "entry"
    assert (cfg.gpus, cfg.nodes, cfg.sharding) == (1, 1, "none")
    assert r.tier_name_zh == "入门验证型"
    assert_consistent(r)
    assert_distinct_alternatives(r)


def test_qwen14b_full_finetune_is_mid_tier_with_zero_inside_one_node(size) -> None:
    r = size("recommend", model="qwen-14b", method="full", tokens=1e9)
    cfg = r.recommended.configuration
    assert r.tier == "mid"
    assert cfg.sharding in ("zero2", "zero3") and 1 < cfg.gpus <= 8 and cfg.nodes == 1
    assert_consistent(r)
    assert_distinct_alternatives(r)


def test_llama3_70b_pretraining_on_15t_tokens_is_multi_node_production(size) -> None:
    r = size("recommend", model="llama-3-70b", task="pretrain", tokens=15e12)
    cfg = r.recommended.configuration
    assert r.tier == "production"
    assert cfg.nodes > 1 and cfg.gpus >= 1000
    assert r.recommended.hours.typical <= 30 * 24  # sized for the default 30-day target
    assert r.checkpoint_gb == pytest.approx(70.55 * 14, rel=1e-3)
    assert_consistent(r)
    assert_distinct_alternatives(r)


def test_deadline_is_met_when_possible(size) -> None:
    r = size("recommend", model="qwen-14b", method="full", tokens=1e9, deadline_hours=2)
    assert r.recommended.meets_deadline is True and r.recommended.hours.typical <= 2
    assert_consistent(r)


def test_restricted_data_stays_on_premises(size) -> None:
    r = size("recommend", model="llama-3-8b", method="qlora", tokens=1e7, data_sensitivity="restricted")
    assert r.deployment == "on-prem"
    assert r.deployment_reason_en and r.deployment_reason_zh


def test_high_yearly_utilization_favours_owning(size) -> None:
    r = size("recommend", model="qwen-14b", method="full", tokens=1e9, yearly_utilization=0.95)
    assert r.deployment in ("on-prem", "hybrid")
    assert r.break_even is not None and r.break_even.break_even_utilization is not None
    assert r.break_even.break_even_utilization <= 0.95
    assert (r.break_even.gpu, r.break_even.gpus) == (r.recommended.configuration.gpu, r.recommended.configuration.gpus)
    low = size("recommend", model="qwen-14b", method="full", tokens=1e9, yearly_utilization=0.05)
    assert low.deployment == "cloud" and low.break_even is not None


def test_too_small_a_budget_is_a_critical_warning(size) -> None:
    r = size("recommend", model="llama-3-70b", task="pretrain", tokens=15e12, budget=1000)
    over = [w for w in r.work.warnings if w.code == "over_budget"]
    assert over and over[0].severity == "critical" and over[0].zh
    assert r.recommended.within_budget is False


def test_missed_deadline_is_a_critical_warning(size) -> None:
    r = size("recommend", model="qwen-14b", method="full", tokens=1e9, gpus=8, deadline_hours=0.1)
    assert any(w.code == "deadline_missed" and w.severity == "critical" for w in r.work.warnings)
    assert r.recommended.meets_deadline is False


def test_pinned_bf16_on_a_t4_is_refused(size) -> None:
    with pytest.raises(InputConflictError) as info:
        size("recommend", model="llama-3-8b", method="qlora", tokens=1e7, gpu="t4", precision="bf16")
    assert info.value.problems[0].field == "precision" and "fp16" in info.value.problems[0].allowed


def test_lora_pretraining_is_refused(size) -> None:
    with pytest.raises(InputConflictError) as info:
        size("recommend", model="llama-3-8b", task="pretrain", method="lora", tokens=1e9)
    assert info.value.problems[0].field == "method"


def test_pinned_gpu_is_used(size) -> None:
    r = size("recommend", model="llama-3-8b", method="qlora", tokens=1e7, gpu="t4")
    cfg = r.recommended.configuration
    assert (cfg.gpu, cfg.gpus, cfg.precision) == ("t4", 1, "fp16")
    assert_consistent(r)


def test_memory_only_sizing_without_a_dataset(size) -> None:
    r = size("recommend", model="llama-3-8b", method="qlora")
    assert r.tokens is None and r.timing is None and r.recommended.hours is None
    assert "no_tokens" in {w.code for w in r.work.warnings}


def test_inference_recommendation(size) -> None:
    r = size("recommend", model="llama-3-8b", task="inference")
    assert r.inference is not None and r.inference.fit in ("fits", "tight")
    assert r.tier == "entry" and r.recommended.configuration.gpus == 1
    assert_distinct_alternatives(r)
    big = size("recommend", model="llama-3-70b", task="inference", concurrency=32)
    assert big.inference.fit in ("fits", "tight") and big.recommended.configuration.gpus > 1


def test_inference_on_more_gpus_than_inference_allows_is_an_input_error(size) -> None:
    with pytest.raises(InputError):
        size("recommend", model="llama-3-8b", task="inference", gpus=2048)


def test_huge_sample_counts_are_an_input_error(size) -> None:
    with pytest.raises(InputError):
        size("recommend", model="qwen2.5-0.5b", method="qlora", samples=1e13, seq_len=2048)
