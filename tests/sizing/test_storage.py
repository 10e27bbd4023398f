"""data-loader and checkpoint: token reads are tiny, checkpoints are bursts; Young/Daly intervals."""

from __future__ import annotations

import math

import pytest

from service.errors import InputError

REL = 1e-3


def test_llama3_token_reads_are_about_11_mb_per_second(size) -> None:
    # Llama 3 §3.3.1: ~2.7M tokens/s on 16K H100s, 4-byte token ids: ~11 MB/s.
    r = size("data-loader", tokens_per_second=2.7e6)
    assert r.read_mb_per_s == pytest.approx(2.7e6 * 4 / 1e6, rel=REL)
    assert r.read_mb_per_s == pytest.approx(11, rel=0.03)
    assert r.read_mb_per_s_with_headroom == pytest.approx(2 * r.read_mb_per_s, rel=REL)


def test_image_datasets_and_small_files(size) -> None:
    r = size("data-loader", samples_per_second=20_000, bytes_per_sample=110_000, storage_read_gbps=1.0)
    assert r.read_mb_per_s == pytest.approx(20_000 * 110_000 / 1e6, rel=REL)  # 2.2 GB/s
    assert r.files_per_second == 20_000
    assert r.verdict == "insufficient"  # 1 GB/s < 2 x 2.2 GB/s
    assert "small_files" in {w.code for w in r.work.warnings}
    ok = size("data-loader", samples_per_second=1_000, bytes_per_sample=110_000, storage_read_gbps=1.0)
    assert ok.verdict == "sufficient" and "small_files" not in {w.code for w in ok.work.warnings}


def test_data_loader_needs_a_rate(size) -> None:
    with pytest.raises(InputError) as info:
        size("data-loader", bytes_per_sample=1000)
    assert info.value.problems[0].field == "tokens_per_second"


def test_full_checkpoint_of_405b_is_about_5_7_tb(size, catalog) -> None:
    P = catalog.models["llama-3.1-405b"].params_b * 1e9
    r = size("checkpoint", model="llama-3.1-405b", gpus=16384, write_gbps=2000)
    assert r.size_gb == pytest.approx(P * 14 / 1e9, rel=REL)  # bf16 weights 2 + fp32 master 4 + Adam m, v 8
    assert r.size_gb == pytest.approx(5700, rel=0.03)
    assert r.per_gpu_shard_gb == pytest.approx(r.size_gb / 16384, rel=REL)
    assert r.write_seconds == pytest.approx(P * 14 / 2000e9, rel=REL)
    weights = size("checkpoint", model="llama-3.1-405b", contents="weights")
    assert weights.size_gb == pytest.approx(P * 2 / 1e9, rel=REL)


def test_young_daly_interval_by_hand(size) -> None:
    # MTBF from Llama 3: 419 unexpected interruptions in 54 days on 16,384 GPUs -> 3.09 h at that scale.
    gpus = 16384
    mtbf_h = 1 / (419 / (54 * 24 * gpus) * gpus)
    r = size("checkpoint", model="llama-3-70b", gpus=gpus, write_gbps=100)
    write_s = 70.55e9 * 14 / 100e9
    interval_s = math.sqrt(2 * write_s * mtbf_h * 3600)
    assert r.job_mtbf_hours == pytest.approx(mtbf_h, rel=REL)
    assert r.optimal_interval_minutes == pytest.approx(interval_s / 60, rel=REL)
    assert r.overhead_fraction == pytest.approx(write_s / interval_s + interval_s / 2 / (mtbf_h * 3600), rel=5e-3)
    given = size("checkpoint", model="llama-3-70b", gpus=gpus, write_gbps=100, mtbf_hours=10)
    assert given.optimal_interval_minutes == pytest.approx(math.sqrt(2 * write_s * 10 * 3600) / 60, rel=REL)


def test_slow_checkpoints_are_flagged(size) -> None:
    slow = size("checkpoint", model="llama-3-70b", write_gbps=1)  # 988 GB at 1 GB/s
    fast = size("checkpoint", model="llama-3-70b", write_gbps=50)
    assert "slow_checkpoint" in {w.code for w in slow.work.warnings}
    assert "slow_checkpoint" not in {w.code for w in fast.work.warnings}


def test_more_gpus_fail_more_often(size) -> None:
    mtbf = [size("checkpoint", model="llama-3-8b", gpus=n).job_mtbf_hours for n in (8, 64, 512, 4096)]
    assert mtbf == sorted(mtbf, reverse=True)
    assert mtbf[0] / mtbf[-1] == pytest.approx(4096 / 8, rel=5e-3)
