"""Latency of the sizing tools: median and p95 of warm calls, as REST and the CLI make them
(dict payload -> request validation -> calculation -> result with its work).

Targets (issue "sizing core"): each calculator < 1 ms median; recommend < 5 ms median.

    python -m bench sizing
"""

from __future__ import annotations

import gc
import statistics
import time

from service.catalog import default_catalog
from service.sizing import all_tools, get_tool

CALLS = 300
RECOMMEND_CALLS = 60
WARMUP = 5

CALCULATORS: dict[str, dict] = {
    "training-memory": {"model": "llama-3-70b", "gpu": "a100", "gpus": 64, "sharding": "zero3", "seq_len": 4096},
    "inference": {"model": "llama-3-8b", "gpu": "a10", "concurrency": 8},
    "training-compute": {"model": "llama-3-70b", "tokens": 15e12},
    "training-time": {"model": "llama-3-70b", "tokens": 15e12, "gpu": "h100", "gpus": 512},
    "gpus-for-deadline": {"model": "llama-3-70b", "tokens": 15e12, "gpu": "h100", "deadline_hours": 720},
    "tokens-in-budget": {"model": "llama-3-70b", "gpu": "h100", "gpus": 512, "hours": 240},
    "allreduce": {"gpu": "h100", "gpus": 512, "size_mb": 25},
    "nccl-expected": {"gpu": "a100", "gpus": 8, "measured_busbw_gbps": 30},
    "data-loader": {"tokens_per_second": 2.7e6},
    "checkpoint": {"model": "llama-3.1-405b", "gpus": 16384},
    "cost": {"gpu_hours": 10_000, "gpus": 8},
    "cost (model + tokens: times every GPU type)": {"model": "llama-3-8b", "tokens": 1e11, "gpus": 8},
    "break-even": {"gpu": "h100", "gpus": 8, "utilization": 0.9},
}

WORKLOADS: dict[str, dict] = {
    "qlora llama-3-8b, 10k samples": {"model": "llama-3-8b", "method": "qlora", "samples": 10_000, "seq_len": 1024},
    "full ft qwen-14b, 1B tokens": {"model": "qwen-14b", "method": "full", "tokens": 1e9},
    "pretrain llama-3-70b, 15T tokens": {"model": "llama-3-70b", "task": "pretrain", "tokens": 15e12},
    "pretrain 70b, budget + utilization": {"model": "llama-3-70b", "task": "pretrain", "tokens": 15e12, "budget": 1e6, "yearly_utilization": 0.9},
    "inference llama-3-70b, 32 streams": {"model": "llama-3-70b", "task": "inference", "concurrency": 32},
}


def _timings_ms(tool_name: str, payload: dict, calls: int) -> list[float]:
    tool, catalog = get_tool(tool_name), default_catalog()
    for _ in range(WARMUP):
        tool(payload, catalog)
    out = []
    gc.disable()
    try:
        for _ in range(calls):
            start = time.perf_counter_ns()
            tool(payload, catalog)
            out.append((time.perf_counter_ns() - start) / 1e6)
    finally:
        gc.enable()
    return out


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def run() -> list[tuple[str, str, str]]:
    missing = {t.name for t in all_tools()} - {n.split(" (")[0] for n in CALCULATORS} - {"recommend"}
    rows: list[tuple[str, str, str]] = []
    for name, payload in CALCULATORS.items():
        t = _timings_ms(name.split(" (")[0], payload, CALLS)
        rows.append((name, f"{statistics.median(t):.3f} / {_p95(t):.3f} ms", "median / p95; target median < 1 ms"))
    for label, payload in WORKLOADS.items():
        t = _timings_ms("recommend", payload, RECOMMEND_CALLS)
        rows.append((f"recommend: {label}", f"{statistics.median(t):.2f} / {_p95(t):.2f} ms", "median / p95; target median < 5 ms"))
    if missing:
        rows.append(("not benchmarked", ", ".join(sorted(missing)), "add a payload to CALCULATORS"))
    return rows
