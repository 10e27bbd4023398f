"""Inference memory and speed: weights, KV cache (GQA/MQA/MLA), memory-bound decode, prefill."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from service.catalog import Catalog
from service.errors import InputConflictError, Problem
from service.sizing import references as ref
from service.sizing.base import ModelRef, SizingResult
from service.sizing.compute import Band
from service.sizing.memory import DEFAULT_OVERHEAD_GIB, Fit, fit_verdict
from service.sizing.shapes import ModelShape, gib, resolve_shape
from service.sizing.work import Ledger, sig

WeightFormat = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4"]
KvFormat = Literal["fp16", "bf16", "fp8", "int8"]

# int4 (GPTQ/AWQ) with group size 128 and a 16-bit scale + zero per group: 4 + 32/128 bits.
WEIGHT_BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 4.25 / 8}
KV_BYTES = {"fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0}
PREFILL_MFU = 0.5
DECODE_EFFICIENCY = Band(low=0.5, typical=0.7, high=0.8)
KV_MEMORY_FRACTION = 0.9  # vLLM's default gpu_memory_utilization


class InferenceRequest(ModelRef):
    weights: WeightFormat | None = Field(default=None, description="default: bf16 where supported, else fp16")
    kv_cache: KvFormat | None = Field(default=None, description="default: 16-bit like the weights")
    context_len: int | None = Field(default=None, ge=1, le=10_000_000, description="tokens per sequence (prompt + output); default min(context, 4096)")
    prompt_tokens: int | None = Field(default=None, ge=1, le=10_000_000, description="default: half the context")
    concurrency: int = Field(default=1, ge=1, le=100_000, description="sequences decoded together")
    gpu: str | None = Field(default=None, max_length=80)
    gpus: int = Field(default=1, ge=1, le=1024, description="GPUs the model is split over (tensor parallel)")
    overhead_gib: float = Field(default=DEFAULT_OVERHEAD_GIB, ge=0, le=64)


class InferenceResult(SizingResult):
    tool: Literal["inference"] = "inference"
    model: str
    params_b: float
    weights_format: WeightFormat
    kv_format: KvFormat
    context_len: int
    concurrency: int
    gpus: int
    weights_gib: float
    kv_bytes_per_token: float
    kv_per_sequence_gib: float
    kv_total_gib: float
    per_gpu_total_gib: float
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    fit: Fit | None = None
    max_concurrency: int | None = Field(default=None, description="sequences of context_len that fit in 90% of GPU memory")
    decode_tokens_per_second: Band | None = Field(default=None, description="per sequence")
    decode_aggregate_tokens_per_second: float | None = None
    decode_bound: Literal["memory", "compute"] | None = None
    prefill_seconds: float | None = None
    time_to_first_token_s: float | None = None


def kv_bytes_per_token(shape: ModelShape, kv_bytes: float, ledger: Ledger) -> float:
    if shape.mla_latent_dim:
        return ledger.step("kv.per_token_mla", "(kv_lora_rank + rope_dim)·L·bytes", shape.mla_latent_dim * shape.layers * kv_bytes, "bytes")
    return ledger.step("kv.per_token", "2·L·kv_heads·head_dim·bytes", 2 * shape.layers * shape.kv_heads * shape.head_dim * kv_bytes, "bytes")


def estimate_inference(req: InferenceRequest, catalog: Catalog) -> InferenceResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    gpu = catalog.gpu(req.gpu) if req.gpu else None
    if gpu:
        ledger.given("gpu", gpu.id)
        ledger.from_catalog("gpu_memory", gpu.memory_gb, "GiB", gpu.id)
    default_fmt = "bf16" if gpu is None or gpu.supports_bf16 else "fp16"
    weights_fmt = ledger.field(req, "weights", default=default_fmt)
    if gpu and weights_fmt == "bf16" and not gpu.supports_bf16:
        raise InputConflictError([Problem("weights", f"{gpu.name} does not support bf16; use fp16, int8 or int4",
                                          f"{gpu.name} 不支持 bf16；请使用 fp16、int8 或 int4", allowed="fp16, int8, int4")])
    if gpu and weights_fmt == "fp8" and not gpu.supports_fp8:
        raise InputConflictError([Problem("weights", f"{gpu.name} has no FP8 support; use int8 or int4 for 8/4-bit weights",
                                          f"{gpu.name} 不支持 FP8；8 位或 4 位权重请使用 int8 或 int4", allowed="fp16, bf16, int8, int4")])
    kv_fmt = ledger.field(req, "kv_cache", default="fp16" if weights_fmt == "fp16" or default_fmt == "fp16" else "bf16")
    context = ledger.field(req, "context_len", "tokens", "min(model context, 4096)", default=min(shape.context_length, 4096))
    if context > shape.context_length and not shape.estimated:
        ledger.warn("context_beyond_model", f"context_len {context} exceeds the model's context length {shape.context_length}.",
                    f"context_len {context} 超过模型的上下文长度 {shape.context_length}。")
    concurrency = ledger.field(req, "concurrency")
    gpus = ledger.field(req, "gpus")
    ledger.cite(ref.TRANSFORMER_MATH.title, ref.TRANSFORMER_MATH.url)
    ledger.cite(ref.PAGED_ATTENTION.title, ref.PAGED_ATTENTION.url)

    per_param = WEIGHT_BYTES[weights_fmt]
    if weights_fmt in ("int8", "int4"):
        # Embeddings and the output head usually stay 16-bit in GPTQ/AWQ/bitsandbytes checkpoints.
        weights = ledger.step("weights.quantized", f"(P − embeddings)·{per_param:g} + embeddings·2", (shape.params - shape.embedding_params) * per_param + shape.embedding_params * 2, "bytes")
    else:
        weights = ledger.step("weights", f"P·{per_param:g}", shape.params * per_param, "bytes")
    per_token = kv_bytes_per_token(shape, KV_BYTES[kv_fmt], ledger)
    per_seq = ledger.step("kv.per_sequence", "per_token·context_len", per_token * context, "bytes")
    kv_total = ledger.step("kv.total", "per_sequence·concurrency", per_seq * concurrency, "bytes")
    overhead = ledger.field(req, "overhead_gib", "GiB", "CUDA context, CUDA graphs, activations of the running batch")
    per_gpu = ledger.step("per_gpu.total", "(weights + kv)/gpus + overhead", (weights + kv_total) / gpus + overhead * 2**30, "bytes")

    result: dict = {}
    if gpu:
        capacity = gpu.memory_gb * 2**30
        result["gpu"], result["gpu_memory_gib"] = gpu.id, gpu.memory_gb
        result["fit"] = fit_verdict(gib(per_gpu), gpu.memory_gb)
        free_for_kv = capacity * KV_MEMORY_FRACTION * gpus - weights - overhead * 2**30 * gpus
        result["max_concurrency"] = max(0, math.floor(free_for_kv / per_seq)) if per_seq > 0 else None
        ledger.step("kv.max_concurrency", "(0.9·memory·gpus − weights − overhead) / kv_per_sequence", result["max_concurrency"] or 0, "sequences")
        if result["fit"] == "does_not_fit":
            ledger.warn("does_not_fit", f"Needs {gib(per_gpu):.1f} GiB per GPU; {gpu.name} has {gpu.memory_gb:g} GiB.",
                        f"每张 GPU 需要 {gib(per_gpu):.1f} GiB；{gpu.name} 只有 {gpu.memory_gb:g} GiB。", "critical")
        result.update(_speed(shape, gpu, weights, per_seq, concurrency, gpus, req, ledger))
    return InferenceResult(
        model=shape.name, params_b=sig(shape.params / 1e9), weights_format=weights_fmt, kv_format=kv_fmt, context_len=context,
        concurrency=concurrency, gpus=gpus, weights_gib=sig(gib(weights)), kv_bytes_per_token=per_token,
        kv_per_sequence_gib=sig(gib(per_seq)), kv_total_gib=sig(gib(kv_total)), per_gpu_total_gib=sig(gib(per_gpu)),
        work=ledger.work(), **result,
    )


def _speed(shape: ModelShape, gpu, weights: float, per_seq: float, concurrency: int, gpus: int, req: InferenceRequest, ledger: Ledger) -> dict:
    bandwidth = ledger.from_catalog("memory_bandwidth", gpu.memory_bandwidth_gbps, "GB/s", gpu.id) * 1e9
    peak = gpu.dense_tflops("bf16" if gpu.supports_bf16 else "fp16") * 1e12
    # MoE decode reads only the routed experts' weights at small batch.
    read_weights = weights if not shape.is_moe else weights * min(1.0, shape.active_params / shape.params * concurrency)
    # The average sequence has filled half its context during decode.
    bytes_per_step = read_weights + concurrency * per_seq / 2
    ledger.step("decode.bytes_per_step", "weights read + concurrency·kv_per_sequence/2", bytes_per_step, "bytes")
    tp_penalty = 0.85 if gpus > 1 else 1.0
    if gpus > 1:
        ledger.assume("tp_decode", "Tensor-parallel decode loses ~15% to per-layer all-reduces.", "张量并行解码因每层 all-reduce 约损失 15% 效率。")

    def step_time(eta: float) -> float:
        memory = bytes_per_step / (gpus * bandwidth * eta * tp_penalty)
        compute = 2 * shape.active_params * concurrency / (gpus * peak * PREFILL_MFU)
        return max(memory, compute)

    band = Band(low=sig(1 / step_time(DECODE_EFFICIENCY.low)), typical=sig(1 / step_time(DECODE_EFFICIENCY.typical)), high=sig(1 / step_time(DECODE_EFFICIENCY.high)))
    ledger.default("bandwidth_efficiency", DECODE_EFFICIENCY.typical, "", "achieved/peak HBM bandwidth 0.5-0.8 in decode")
    ledger.step("decode.tokens_per_s", "1 / max(bytes_per_step/(gpus·BW·η), 2·N·concurrency/(gpus·peak·0.5))", band.typical, "tokens/s")
    compute_bound = 2 * shape.active_params * concurrency / (gpus * peak * PREFILL_MFU) > bytes_per_step / (gpus * bandwidth * DECODE_EFFICIENCY.typical * tp_penalty)
    prompt = ledger.field(req, "prompt_tokens", "tokens", "half the context", default=max(1, req.context_len // 2 if req.context_len else min(shape.context_length, 4096) // 2))
    prefill_flops = (2 * shape.active_params + 2 * shape.layers * shape.hidden * prompt) * prompt * concurrency
    prefill = ledger.step("prefill.seconds", "(2·N + 2·L·h·prompt)·prompt·concurrency / (gpus·peak·0.5)", prefill_flops / (gpus * peak * PREFILL_MFU), "s")
    ledger.cite(ref.ROOFLINE_DECODE.title, ref.ROOFLINE_DECODE.url)
    return {
        "decode_tokens_per_second": band,
        "decode_aggregate_tokens_per_second": sig(band.typical * concurrency),
        "decode_bound": "compute" if compute_bound else "memory",
        "prefill_seconds": sig(prefill),
        "time_to_first_token_s": sig(prefill / concurrency + 1 / band.typical),
    }
