"""Claims an expert answers with a comparison, not a bare ratio: vendor speed-up headlines, linear scaling, "X beats Y
on every workload", a pre-training time next to the GPU-hours it has, and blanket memory figures (en and zh)."""

from __future__ import annotations

import pytest

from service.assistant.messages import say
from tests.assistant.test_claim_checks import CATALOG, _run


def _text(finding) -> str:
    return " ".join([finding.lead, *finding.points, *finding.notes])


@pytest.mark.parametrize("text", ["Marketing says the new B200 trains 5x faster than an H100. Buy?", "厂商宣传新一代 B200 比 H100 快 4 倍，是真的吗？"])
def test_a_generation_headline_gets_fp8_the_figures_origin_and_the_training_expectation(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "speedup" and finding.verdict == "optimistic"
    body = _text(finding)
    b200, h100 = CATALOG.gpus["b200"], CATALOG.gpus["h100-sxm"]
    assert "FP8" in body and "FP4" in body and "NVLink" in body
    assert f"{b200.fp8_dense_tflops:,.0f}" in body and f"{h100.fp8_dense_tflops:,.0f}" in body
    figures = ctx.tool_calls[-1].output
    assert figures["fp8_ratio"] == pytest.approx(b200.fp8_dense_tflops / h100.fp8_dense_tflops, rel=1e-3)
    assert figures["fast_sparse_fp8_tflops"] == b200.sparse_fp8_tflops


def test_a_model_number_ending_in_x_is_not_a_claimed_factor() -> None:
    kind, finding, _ = _run("AMD MI300X 比 H100 快，对吗？")
    assert kind == "ordering" and "300" not in " ".join(finding.points)


@pytest.mark.parametrize(
    "text, gpus",
    [
        ("If one GPU trains at speed S, then 8 GPUs give exactly 8x S; scaling is linear, right?", 8),
        ("64 张 A100 的训练速度就是单卡的 64 倍吧？", 64),
        ("Adding GPUs always scales training linearly.", None),
    ],
)
def test_linear_scaling_is_sublinear_with_the_allreduce_tool_numbers(text: str, gpus: int | None) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "scaling" and finding.verdict == "false"
    assert "allreduce" in {c.tool for c in ctx.tool_calls}
    output = ctx.tool_calls[-1].output
    rows = [v for k, v in output.items() if k.startswith("gpus_")]
    assert rows and all(0 < r["efficiency"] < 1 for r in rows)
    if gpus:
        assert f"gpus_{gpus}" in output and output[f"gpus_{gpus}"]["speedup"] < gpus
    body = _text(finding)
    assert "all-reduce" in body and ("NVLink" in body or "PCIe" in body)


def test_a_sublinear_claim_is_true() -> None:
    kind, finding, _ = _run("Scaling across 16 GPUs is sublinear, not linear, correct?")
    assert kind == "scaling" and finding.verdict == "true"


@pytest.mark.parametrize("text", ["MI300X is faster than the H100 for every workload.", "AMD MI300X 在所有场景下都全面超越 H100，对吗？"])
def test_every_workload_gets_memory_bandwidth_software_and_it_depends(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "every_workload" and finding.verdict == "partly_true"
    body = _text(finding)
    assert "ROCm" in body and "CUDA" in body and "192" in body and "5,300" in body
    assert ctx.tool_calls[-1].output["memory_ratio"] == pytest.approx(192 / 80, rel=1e-3)


def test_every_workload_is_false_when_the_card_trails_in_a_figure() -> None:
    kind, finding, _ = _run("the A100 beats the H100 on every workload")
    assert kind == "every_workload" and finding.verdict == "false"
    assert say("claims_extra.vendor_dim.compute", "en") in _text(finding)


@pytest.mark.parametrize(
    "text, available",
    [
        ("A vendor says 256 H100 GPUs can train Llama 3 70B in 14 days. Realistic?", "86,016"),
        ("有人说 128 张 A100 能在 20 天内训练完 Llama 2 70B，靠谱吗？", "61,440"),
    ],
)
def test_a_time_claim_states_the_gpu_hours_it_has_next_to_those_needed(text: str, available: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "time" and finding.verdict == "not_credible"
    assert any(available in p and ("GPU-hours" in p or "GPU 小时" in p) for p in finding.points)
    record = next(c.output for c in ctx.tool_calls if "available_gpu_hours" in c.output)
    assert record["needed_over_available"] > 10


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("You need 80 GB of VRAM to run any 7B model.", "false"),
        ("8B 模型 4GB 显存就能跑，是真的吗？", "false"),
        ("a 7B model runs in 16 GB", "partly_true"),
        ("Llama 3 8B 至少要 80G 显存才能跑", "false"),
        ("Llama 3 8B runs in 24 GB", "true"),
    ],
)
def test_a_blanket_memory_claim_gets_weights_per_precision_and_the_kv_cache(text: str, verdict: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "vram" and finding.verdict == verdict
    assert [c.tool for c in ctx.tool_calls].count("inference") == 3
    assert finding.table is not None and len(finding.table.rows) == 3
    assert "KV cache" in finding.lead and "INT8" in finding.lead


def test_a_card_named_by_model_keeps_the_card_memory_check() -> None:
    kind, _, _ = _run("one A100 40GB cannot hold 70B full training")
    assert kind == "memory"
