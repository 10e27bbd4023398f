"""Size a serving engine's memory for the user's own launch: weights per tensor-parallel rank, what the engine's memory
fraction leaves for the KV cache, how many tokens that holds, and the setting that makes the configured length fit.

The engines pre-allocate: vLLM takes `gpu_memory_utilization` (0.9) of each GPU at start-up, loads the weights, keeps a
reserve for activations and CUDA graphs, and turns all the rest into KV-cache blocks. So "vLLM uses 90% of my card" is
by design, and "max seq len is larger than the KV cache" means one sequence of `max_model_len` does not fit in what is
left. The inference tool gives the weights and the KV bytes per token; the rest is recorded as one computation.
"""

from __future__ import annotations

import math
from typing import Any

from service.assistant.capabilities.base import Finding, capability
from service.assistant.capabilities.job import SERVING_FACTS, card, case_of, model_payload, record_facts
from service.assistant.handlers.base import Context
from service.assistant.messages import say
from service.render.fmt import gib, num

DEFAULT_FRACTION = {"vllm": 0.9, "sglang": 0.88, "tgi": 1.0, "lmdeploy": 0.8}
RESERVE_GIB = 2.0  # activations of the profiled batch, CUDA graphs and the CUDA context, per GPU (the inference tool's overhead)
WEIGHTS = {"awq": "int4", "gptq": "int4", "bitsandbytes": "int4", "marlin": "int4", "fp8": "fp8", "int8": "int8", "int4": "int4"}


@capability("size_serving_memory")
def size_serving_memory(ctx: Context) -> Finding | None:
    lang = ctx.lang
    case = case_of(ctx)
    facts = record_facts(ctx, SERVING_FACTS + ("kv_error_max_len", "kv_error_capacity_tokens", "kv_cache_tokens", "weights_loaded_gib"))
    model = model_payload(ctx, facts)
    if model is None:
        return None
    gpu, capacity = card(ctx, facts)
    tp = int(facts.get("tp") or 1)
    engine = str(facts.get("engine") or "vllm")
    fraction = float(facts.get("gpu_memory_utilization") or DEFAULT_FRACTION.get(engine, 0.9))
    length = int(facts.get("max_model_len") or facts.get("kv_error_max_len") or 0) or None
    payload: dict[str, Any] = {**model, "gpus": tp, "context_len": length, "gpu": gpu,
                               "weights": WEIGHTS.get(str(facts.get("quantization", "")).lower()),
                               "kv_cache": "fp8" if "fp8" in str(facts.get("kv_cache_dtype", "")).lower() else None}
    if facts.get("precision") == "fp16" or (gpu and not ctx.catalog.gpus[gpu].supports_bf16):
        payload["weights"] = payload["weights"] or "fp16"
    result, _ = ctx.try_run("inference", {k: v for k, v in payload.items() if v is not None})
    if result is None:
        return None
    if capacity is None:
        capacity = result.gpu_memory_gib
    weights_per_gpu = result.weights_gib / tp
    length = length or result.context_len
    per_token = result.kv_bytes_per_token / tp  # KV heads are split over the tensor-parallel ranks
    works = [("inference", result.work)]
    if capacity is None:
        lead = say("case.serving.weights_only", lang, weights=gib(weights_per_gpu), tp=tp)
        return Finding("size_serving_memory", lead=lead, works=works, basis={"weights_per_gpu": weights_per_gpu})
    budget = capacity * fraction
    room = budget - weights_per_gpu - RESERVE_GIB
    tokens = max(0, math.floor(room * 2**30 / per_token)) if per_token else 0
    reported = facts.get("kv_error_capacity_tokens") or facts.get("kv_cache_tokens")
    if reported:
        # What the engine measured beats the estimate: it profiled this card, this model and this build.
        tokens = int(reported)
        room = tokens * per_token / 2**30
    one_sequence = length * per_token / 2**30
    missing = max(0.0, one_sequence - room)
    needed_fraction = min(1.0, fraction + missing / capacity) if reported else min(1.0, (weights_per_gpu + RESERVE_GIB + one_sequence) / capacity)
    fit_len = (tokens // 16) * 16  # a whole number of 16-token blocks
    computed = {"budget_gib": round(budget, 2), "weights_per_gpu_gib": round(weights_per_gpu, 2), "reserve_gib": RESERVE_GIB,
                "kv_room_gib": round(room, 2), "kv_bytes_per_token_per_gpu": round(per_token, 1), "kv_tokens": tokens,
                "one_sequence_gib": round(one_sequence, 2), "fraction_needed": round(needed_fraction, 2), "max_model_len_that_fits": fit_len,
                "gpu_memory_utilization": fraction, "capacity_gib": capacity, "tp": tp, "max_model_len": length}
    ctx.record("serving-kv", {"engine": engine, "gpu_memory_utilization": fraction, "tp": tp, "max_model_len": length, "capacity_gib": capacity},
               computed)
    values = {"weights": gib(weights_per_gpu), "budget": gib(budget), "fraction": num(fraction), "room": gib(max(room, 0)),
              "tokens": f"{tokens:,}", "length": f"{length:,}", "one": gib(one_sequence), "needed": num(needed_fraction),
              "fit_len": f"{fit_len:,}", "tp": tp, "tp2": tp * 2, "capacity": gib(capacity)}
    points: list[str] = []
    if reported:
        points.append(say("case.serving.engine_said", lang, reported=f"{int(reported):,}"))
    if room <= 0:
        lead = say("case.serving.weights_too_big", lang, **values)
        points.append(say("case.serving.fix_weights", lang, **values))
        verdict = "no"
    elif tokens < length:
        lead = say("case.serving.kv_short", lang, **values)
        points.append(say("case.serving.fix_length", lang, **values))
        if needed_fraction < 0.98:
            points.append(say("case.serving.fix_fraction", lang, **values))
        points.append(say("case.serving.fix_other", lang, **values))
        verdict = "no"
    else:
        lead = say("case.serving.by_design" if case.act in ("cause", "none", "procedure") else "case.serving.fits", lang, **values)
        points.append(say("case.serving.lower_fraction", lang, **values))
        verdict = "yes"
    return Finding("size_serving_memory", lead=lead, points=points[:5], works=works, verdict=verdict, basis=computed,
                   follow_ups=[say("case.follow.serving_concurrency", lang)])
