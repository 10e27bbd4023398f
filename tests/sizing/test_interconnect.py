"""allreduce and nccl-expected: the α-β ring model, NVLink vs PCIe vs network, nccl-tests verdicts."""

from __future__ import annotations

import pytest

from service.errors import InputConflictError, InputError

REL = 1e-3


def test_single_node_ring_by_hand(size) -> None:
    # 8 x A100 SXM over NVLink 3: 600 GB/s bidirectional = 300 per direction, NCCL reaches ~80%; α = 1 µs.
    n, S, B, alpha = 8, 1000e6, 300e9 * 0.8, 1e-6
    r = size("allreduce", gpu="a100-80gb-sxm", gpus=n, size_mb=1000)
    assert r.nodes == 1
    assert r.bandwidth_ms == pytest.approx(2 * (n - 1) / n * S / B * 1e3, rel=REL)
    assert r.latency_ms == pytest.approx(2 * (n - 1) * alpha * 1e3, rel=REL)
    assert r.total_ms == pytest.approx(r.bandwidth_ms + r.latency_ms, rel=REL)
    assert r.algbw_gbps == pytest.approx(S / (r.total_ms / 1e3) / 1e9, rel=REL)


def test_seed_claim_half_a_microsecond_does_not_cost_30_percent(size) -> None:
    # sizing-research §D(4): 64 nodes, 400 Gb/s per GPU, a 25 MB bucket: ~1 ms of bandwidth time, latency
    # 2·(7·α_nvlink + 63·α_ib) = 0.14 ms at 1.0 µs, 0.20 ms at 1.5 µs: about 5% slower, not 30%.
    n, S, B = 512, 25e6, 50e9 * 0.9
    bandwidth = 2 * (n - 1) / n * S / B
    latency_10, latency_15 = 2 * (7 * 1e-6 + 63 * 1.0e-6), 2 * (7 * 1e-6 + 63 * 1.5e-6)
    r = size("allreduce", gpu="h100-sxm", gpus=n, size_mb=25, latency_us=1.0)
    assert (r.nodes, r.fabric) == (64, "InfiniBand NDR 400 Gb/s")
    assert r.bandwidth_ms == pytest.approx(bandwidth * 1e3, rel=REL)
    assert r.latency_ms == pytest.approx(latency_10 * 1e3, rel=REL)
    assert r.slowdown_from_half_us == pytest.approx((latency_15 - latency_10) / (bandwidth + latency_10), rel=5e-3)
    assert r.slowdown_from_half_us < 0.10 < 0.30


def test_gradients_of_a_model_as_the_message(size) -> None:
    r = size("allreduce", gpu="h100", gpus=8, model="llama-3-8b")
    assert r.size_mb == pytest.approx(8.03e9 * 2 / 1e6, rel=REL)
    fp32 = size("allreduce", gpu="h100", gpus=8, model="llama-3-8b", grad_bytes=4)
    assert fp32.bandwidth_ms == pytest.approx(2 * r.bandwidth_ms, rel=REL)


def test_pcie_only_gpus(size) -> None:
    r = size("allreduce", gpu="t4", gpus=4, size_mb=100)
    assert r.fabric == "PCIe Gen3 x16"
    assert r.bandwidth_ms == pytest.approx(2 * 3 / 4 * 100e6 / (16e9 * 0.8) * 1e3, rel=REL)
    with pytest.raises(InputConflictError) as info:
        size("allreduce", gpu="t4", gpus=4, size_mb=100, intra_fabric="nvlink")
    assert info.value.problems[0].field == "intra_fabric" and info.value.problems[0].allowed == "pcie"


def test_slower_networks_take_longer(size) -> None:
    times = [size("allreduce", gpu="h100", gpus=64, size_mb=500, inter_fabric=f).total_ms
             for f in ("infiniband-xdr", "infiniband-ndr", "roce-200", "roce-100", "ethernet-25")]
    assert times == sorted(times)


def test_missing_message_size(size) -> None:
    with pytest.raises(InputError) as info:
        size("allreduce", gpu="h100", gpus=8)
    assert info.value.problems[0].field == "size_mb"
    with pytest.raises(InputError):
        size("allreduce", gpu="h100", gpus=1, size_mb=10)


def test_seed_claim_a100_nvlink_600_is_bidirectional(size) -> None:
    a100 = size("nccl-expected", gpu="a100-80gb-sxm", gpus=8)
    h100 = size("nccl-expected", gpu="h100-sxm", gpus=8)
    assert a100.link_gbps_per_direction == 600 / 2
    assert h100.link_gbps_per_direction == 900 / 2
    assert a100.expected_busbw_gbps.typical == pytest.approx(300 * 0.8)


@pytest.mark.parametrize(("measured", "verdict", "warning"), [
    (230, "healthy", None),
    (120, "degraded", "link_degraded"),
    (60, "broken", "link_broken"),
    (25, "broken", "nvlink_down"),  # PCIe Gen4 level (32 GB/s x 0.8): NVLink is not in use
])
def test_nccl_verdicts(size, measured, verdict, warning) -> None:
    r = size("nccl-expected", gpu="a100-80gb-sxm", gpus=8, measured_busbw_gbps=measured)
    assert r.verdict == verdict
    assert r.ratio == pytest.approx(measured / 240, rel=5e-3)  # rounded to 3 significant digits
    codes = {w.code for w in r.work.warnings}
    assert (warning in codes) if warning else not codes


def test_multi_node_expectation_is_the_network(size) -> None:
    # Eight 400 Gb/s NICs per node (50 GB/s each at 90%) against NVLink 450 GB/s at 80%: the smaller, 360 GB/s.
    r = size("nccl-expected", gpu="h100", gpus=64)
    assert r.nodes == 8 and r.expected_busbw_gbps.typical == pytest.approx(min(8 * 50 * 0.9, 450 * 0.8))


def test_a_node_with_one_working_nic_fails_the_multi_node_check(size) -> None:
    # The single-link figure (about 45 GB/s) would pass a node whose other seven NICs are down.
    r = size("nccl-expected", gpu="h100", gpus=16, measured_busbw_gbps=45)
    assert r.verdict == "broken" and "link_broken" in {w.code for w in r.work.warnings}
    fewer = size("nccl-expected", gpu="h100", gpus=16, nics_per_node=1)
    assert fewer.expected_busbw_gbps.typical == pytest.approx(50 * 0.9)


def test_ethernet_defaults_to_one_port_per_node(size) -> None:
    r = size("nccl-expected", gpu="h100", gpus=16, inter_fabric="ethernet-100")
    assert r.expected_busbw_gbps.typical == pytest.approx(12.5 * 0.5)


def test_a_low_measurement_says_how_many_times_below_expected_it_is(size) -> None:
    # Two 8 x H100 nodes with eight 400G NICs each should reach min(8 x 50 x 0.9, 450 x 0.8) = 360 GB/s; 100 is 3.6x below.
    r = size("nccl-expected", gpu="h100", gpus=16, measured_busbw_gbps=100)
    assert r.shortfall == pytest.approx(3.6, rel=5e-3) and r.verdict == "broken"
    assert size("nccl-expected", gpu="h100", gpus=16).shortfall is None
