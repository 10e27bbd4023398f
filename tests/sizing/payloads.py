"""One valid request per registered tool, shared by the core, REST and CLI tests.

test_registry checks that every registered tool has one here, so a new tool cannot go untested.
"""

from __future__ import annotations

BASE_PAYLOADS: dict[str, dict] = {
    "training-memory": {"model": "llama-3-8b", "gpu": "a100", "method": "lora", "gpus": 8, "sharding": "zero3", "seq_len": 4096, "flash_attention": False},
    "inference": {"model": "llama-3-8b", "gpu": "a10", "concurrency": 4, "weights": "fp16"},
    "kv-capacity": {"model": "llama-3.1-8b", "gpu": "h100-sxm", "gpu_memory_utilization": 0.95, "max_model_len": 8192},
    "training-compute": {"model": "llama-3-8b", "tokens": 1e12, "recompute": "full"},
    "training-time": {"model": "llama-3-70b", "tokens": 15e12, "gpu": "H100 SXM", "gpus": 512},
    "step-time": {"model": "llama-2-70b", "gpu": "a100-80gb-sxm", "gpus": 1024, "tp": 8, "pp": 4, "micro_batch": 1, "global_batch": 1024, "seq_len": 4096},
    "gpus-for-deadline": {"model": "llama-3-70b", "tokens": 15e12, "gpu": "h100", "deadline_hours": 720},
    "tokens-in-budget": {"model": "llama-3-70b", "gpu": "h100", "gpus": 512, "hours": 240},
    "compute-optimal": {"gpu": "h100", "gpus": 512, "hours": 720},
    "allreduce": {"gpu": "h100", "gpus": 512, "size_mb": 25, "latency_us": 1.5},
    "nccl-expected": {"gpu": "a100", "gpus": 8, "measured_busbw_gbps": 30},
    "data-loader": {"tokens_per_second": 2.7e6},
    "checkpoint": {"model": "llama-3.1-405b", "gpus": 16384},
    "cost": {"model": "llama-3-8b", "tokens": 1e11, "gpus": 8, "currency": "CNY"},
    "break-even": {"gpu": "h100", "gpus": 8, "utilization": 0.9},
    "reserved-vs-on-demand": {"gpu": "h100", "gpus": 8, "utilization": 0.45},
    "recommend": {"model": "qwen-14b", "method": "full", "tokens": 1e9, "yearly_utilization": 0.9},
}
