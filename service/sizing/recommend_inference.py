"""Tier recommendation for serving: the cheapest GPU count (1-8, tensor parallel) whose memory holds
the weights and the KV cache for the requested concurrency and context."""

from __future__ import annotations

import math

from service.catalog import Catalog, GpuSpec
from service.errors import InputConflictError, Problem
from service.sizing.advice import deployment_advice, warn_bottlenecks
from service.sizing.inference import (
    InferenceRequest,
    InferenceResult,
    estimate_inference,
)
from service.sizing.memory import resolve_precision
from service.sizing.recommendation import (
    Option,
    Recommendation,
    Workload,
    Candidate,
    option_of,
    rental_price,
)
from service.sizing.shapes import ModelShape
from service.sizing.work import Ledger, NullLedger, sig

MAX_INFERENCE_GPUS = 1024


def recommend_inference(req: Workload, catalog: Catalog, shape: ModelShape, pinned: GpuSpec | None, ledger: Ledger) -> Recommendation:
    if req.gpus is not None and req.gpus > MAX_INFERENCE_GPUS:
        raise InputConflictError([Problem("gpus", f"serving is sized on at most {MAX_INFERENCE_GPUS} GPUs per replica",
                                          f"推理部署每个副本最多按 {MAX_INFERENCE_GPUS} 张 GPU 计算", allowed=f"<= {MAX_INFERENCE_GPUS}")])
    ledger.field(req, "concurrency")
    pricing = ledger.field(req, "pricing")
    gpus_considered = [pinned] if pinned else [g for g in catalog.gpus.values() if catalog.instances_for(g.id)]
    found: list[tuple[Candidate, InferenceResult]] = []
    for gpu in gpus_considered:
        weights = req.precision if req.precision in ("fp16", "bf16", "fp8") else None
        if weights == "bf16" and not gpu.supports_bf16 or weights == "fp8" and not gpu.supports_fp8:
            if pinned:
                resolve_precision(weights, gpu, NullLedger())
            continue
        counts = [req.gpus] if req.gpus else [1, 2, 4, 8]
        for n in counts:
            if not req.gpus and shape.params * (1 if weights == "fp8" else 2) / n > gpu.memory_gb * 1e9:
                continue  # the weights alone exceed the memory: the full estimate (and its ledger) could only say so
            result = estimate_inference(InferenceRequest(model=req.model, params_b=req.params_b, weights=weights, gpu=gpu.id, gpus=n,
                                                         concurrency=req.concurrency, context_len=req.context_len), catalog)
            if result.fit != "does_not_fit":
                cand = Candidate(gpu=gpu, gpus=n, precision=result.weights_format, sharding="tensor-parallel" if n > 1 else "none",
                                  recompute="n/a", per_gpu_bytes=result.per_gpu_total_gib * 2**30, hours=None, price=None)
                cand.price = rental_price(catalog, gpu, n, pricing, req.currency, req.fx_cny_per_usd)
                found.append((cand, result))
                break
    if not found:
        raise InputConflictError([Problem("gpus", "the model and its KV cache do not fit on up to 8 GPUs of any catalog type at 16-bit; try weights=int8/int4 with the inference tool",
                                          "在任一目录 GPU 的 8 卡以内，以 16 位精度都放不下模型及其 KV 缓存；可用 inference 工具尝试 int8/int4 权重")])
    priced = [f for f in found if f[0].price is not None] or found
    by_cost = min(priced, key=lambda f: (f[0].cost_per_hour or math.inf, f[0].gpus))
    by_speed = max(priced, key=lambda f: f[1].decode_aggregate_tokens_per_second or 0)
    by_count = min(priced, key=lambda f: (f[0].gpus, f[0].cost_per_hour or math.inf))
    options: list[Option] = []
    seen: set[tuple[str, int]] = set()
    for label, (cand, _) in (("recommended", by_cost), ("fastest", by_speed), ("fewest-gpus", by_count)):
        if (cand.gpu.id, cand.gpus) not in seen:
            seen.add((cand.gpu.id, cand.gpus))
            options.append(option_of(label, cand, catalog, None, None))
    chosen, result = by_cost
    warn_bottlenecks(chosen, options[0].configuration, req, ledger)
    deployment, reason_en, reason_zh, be = deployment_advice(req, chosen, catalog, ledger)
    profile = catalog.tiers[options[0].tier]
    return Recommendation(
        task="inference", method="serve", model=shape.name, params_b=sig(shape.params / 1e9), tokens=None, currency=req.currency,
        tier=options[0].tier, tier_name_en=profile.name_en, tier_name_zh=profile.name_zh, recommended=options[0], alternatives=options[1:],
        deployment=deployment, deployment_reason_en=reason_en, deployment_reason_zh=reason_zh, checkpoint_gb=None,
        inference=result, break_even=be, work=ledger.work(),
    )
