"""Size a serving engine's memory for the user's own launch: weights per tensor-parallel rank, what the engine's memory
fraction leaves for the KV cache, how many tokens that holds, and the setting that makes the configured length fit.

The engines pre-allocate (data/engines.yaml, from their documentation): vLLM takes `gpu_memory_utilization` (0.9) of each
GPU at start-up, loads the weights, keeps a reserve for activations and CUDA graphs, and turns all the rest into KV-cache
blocks. So "vLLM uses 90% of my card" is by design, and "max seq len is larger than the KV cache" means one sequence of
`max_model_len` does not fit in what is left. The inference tool gives the weights and the KV bytes per token; the rest is
recorded as one computation. What the engine itself reported (its KV-cache size in the error) beats the estimate.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

from service import yaml_files
from service.assistant.capabilities.base import Finding, capability
from service.assistant.capabilities.diagnose import source_hit
from service.assistant.capabilities.job import SERVING_FACTS, card, case_of, engine_of, model_payload, record_facts
from service.assistant.handlers.base import Context
from service.assistant.messages import say
from service.render.fmt import gib, num

ENGINES = Path(__file__).parent / "data" / "engines.yaml"
RESERVE_GIB = 2.0  # activations of the profiled batch, CUDA graphs and the CUDA context, per GPU (the inference tool's overhead)
WEIGHTS = {"awq": "int4", "gptq": "int4", "bitsandbytes": "int4", "marlin": "int4", "fp8": "fp8", "int8": "int8", "int4": "int4"}
COUNTS = (1, 2, 4, 8, 16, 32, 64)


@cache
def engines() -> dict[str, dict[str, Any]]:
    return yaml_files.safe_load(ENGINES.read_text(encoding="utf-8"))


def _engine(ctx: Context) -> tuple[str, dict[str, Any]] | None:
    """The engine and its documented memory settings; None for a runtime that does not pre-allocate (Ollama, llama.cpp)."""
    name = engine_of(ctx) or "vllm"
    spec = engines().get(name)
    return (name, spec) if spec else None


def _knobs(ctx: Context, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The engine's own flags and defaults, recorded so the figures an answer takes from them are traceable to its documentation."""
    knobs = {"engine": spec["name"], "fraction_flag": spec["fraction_flag"], "fraction_default": spec["fraction_default"],
             "length_flag": spec["length_flag"], "tp_flag": spec["tp_flag"]}
    if not any(c.tool == "engine-settings" and c.input.get("engine") == name for c in ctx.tool_calls):
        ctx.record("engine-settings", {"engine": name, "source": spec["source"]["url"]}, knobs)
    return knobs


@capability("size_serving_memory")
def size_serving_memory(ctx: Context) -> Finding | None:
    lang = ctx.lang
    case = case_of(ctx)
    facts = record_facts(ctx, SERVING_FACTS + ("kv_error_max_len", "kv_error_capacity_tokens", "kv_cache_tokens", "weights_loaded_gib"))
    engine = _engine(ctx)
    if engine is None:
        return None
    name, spec = engine
    knobs = _knobs(ctx, name, spec)
    hit = source_hit(f"engine-{name}", lang, spec["source"], say("case.serving.engine_source", lang, **knobs))
    model = model_payload(ctx, facts)
    if model is None:
        if case.signatures:
            return None  # an error with no model to size: the diagnosis of the error answers (the table's fallback)
        if case.act in ("cause", "none", "procedure", "yes_no") and "memory" in case.mentions("topic"):
            lead = say("case.serving.by_design_generic", lang, **knobs)
            return Finding("size_serving_memory", lead=lead, points=[say("case.serving.lower_fraction_generic", lang, **knobs) + " [1]"],
                           hits=[hit], verdict="yes")
        return None
    gpu, capacity = card(ctx, facts)
    tp = int(facts.get("tp") or ctx.slots.gpus or 1) if facts.get("tp") or not _count_asked(ctx) else 1
    fraction = float(facts.get("gpu_memory_utilization") or spec["fraction_default"])
    length = int(facts.get("max_model_len") or facts.get("kv_error_max_len") or ctx.slots.context_len or 0) or None
    payload: dict[str, Any] = {**model, "gpus": tp, "context_len": length, "gpu": gpu,
                               "weights": WEIGHTS.get(str(facts.get("quantization", "")).lower()) or ctx.slots.weights,
                               "kv_cache": "fp8" if "fp8" in str(facts.get("kv_cache_dtype", "")).lower() else None}
    if facts.get("precision") == "fp16" or (gpu and not ctx.catalog.gpus[gpu].supports_bf16):
        payload["weights"] = payload["weights"] or "fp16"
    result, _ = ctx.try_run("inference", {k: v for k, v in payload.items() if v is not None})
    if result is None:
        return None
    works = [("inference", result.work)]
    if capacity is None:
        if case.subject == "serving_memory":
            return None  # an OOM on a card we cannot size: the diagnosis of a serving OOM answers
        weights = _weights_only(ctx, payload, result, works, lang)
        if _usage_reported(case):
            # "Loading this 7B takes 70 GB, how do I turn the KV cache off?": the engine's reservation is the answer; the
            # weights the model really needs are its evidence.
            lead = say("case.serving.by_design_generic", lang, **knobs)
            points = [say("case.serving.lower_fraction_generic", lang, **knobs) + " [1]", _plain(weights.lead), *weights.points]
            return Finding("size_serving_memory", lead=lead, points=points, works=works, hits=[hit], verdict="yes", basis=weights.basis)
        return weights
    if _count_asked(ctx) and not facts.get("tp"):
        counted = _fewest_gpus(ctx, payload, capacity, fraction)
        if counted is not None:
            gpus, fitting = counted
            lead = say("case.serving.count", lang, gpus=gpus, card=ctx.catalog.gpus[gpu].name if gpu else "GPU", weights=gib(fitting.weights_gib),
                       per_gpu=gib(fitting.weights_gib / gpus), capacity=gib(capacity), fraction=num(fraction), **knobs)
            points = [say("case.serving.count_nodes", lang, nodes=math.ceil(gpus / 8))] if gpus > 8 else []
            return Finding("size_serving_memory", lead=lead, points=points, works=[("inference", fitting.work)], hits=[hit], verdict=str(gpus))
    return _budget(ctx, case, facts, result, capacity, tp, fraction, length, knobs, hit, works, lang, of_free=spec["fraction_of"] == "free_after_weights")


def _usage_reported(case) -> bool:
    """The user reports what the engine takes ("takes about 70GB", "显存占到40G") and asks why or what to do about it."""
    return "usage" in case.mentions("topic") and case.act in ("cause", "none", "procedure", "yes_no")


def _plain(text: str) -> str:
    return text.replace("**", "")


def _count_asked(ctx: Context) -> bool:
    return "count" in case_of(ctx).mentions("topic")


def _fewest_gpus(ctx: Context, payload: dict[str, Any], capacity: float, fraction: float):
    """The fewest GPUs (powers of two) whose share of the weights, the reserve and one sequence fit the engine's fraction."""
    for gpus in COUNTS:
        result, _ = ctx.try_run("inference", {**{k: v for k, v in payload.items() if v is not None}, "gpus": gpus})
        if result is None:
            continue
        if result.weights_gib / gpus + RESERVE_GIB + result.kv_per_sequence_gib / gpus <= capacity * fraction:
            return gpus, result
    return None


def _weights_only(ctx: Context, payload: dict[str, Any], result, works, lang: str) -> Finding:
    """No card named: the weights in each format and one sequence's KV cache, the figures any card is judged by."""
    rows = []
    for fmt in ("bf16", "int8", "int4"):
        other, _ = ctx.try_run("inference", {**{k: v for k, v in payload.items() if v is not None}, "weights": fmt, "gpus": 1})
        if other is not None:
            rows.append((fmt, other.weights_gib))
    lead = say("case.serving.weights_formats", lang, bf16=gib(rows[0][1]) if rows else "?", int8=gib(rows[1][1]) if len(rows) > 1 else "?",
               int4=gib(rows[2][1]) if len(rows) > 2 else "?")
    points = [say("case.serving.kv_per_sequence", lang, length=f"{result.context_len:,}", kv=gib(result.kv_per_sequence_gib)),
              say("case.serving.overhead", lang, reserve=gib(RESERVE_GIB))]
    return Finding("size_serving_memory", lead=lead, points=points, works=works, verdict=None, basis={"weights": result.weights_gib})


def _budget(ctx, case, facts, result, capacity, tp, fraction, length, knobs, hit, works, lang, *, of_free: bool = False) -> Finding:
    weights_per_gpu = result.weights_gib / tp
    length = length or result.context_len
    per_token = result.kv_bytes_per_token / tp  # KV heads are split over the tensor-parallel ranks
    # vLLM, SGLang and TGI take a share of the whole card; LMDeploy and TensorRT-LLM a share of what the weights leave free.
    budget = (weights_per_gpu + RESERVE_GIB + fraction * (capacity - weights_per_gpu - RESERVE_GIB)) if of_free else capacity * fraction
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
    computed = {"budget_gib": round(budget, 4), "weights_per_gpu_gib": round(weights_per_gpu, 4), "reserve_gib": RESERVE_GIB,
                "kv_room_gib": round(room, 4), "kv_bytes_per_token_per_gpu": round(per_token, 1), "kv_tokens": tokens,
                "one_sequence_gib": round(one_sequence, 4), "fraction_needed": round(needed_fraction, 3), "max_model_len_that_fits": fit_len,
                "gpu_memory_utilization": fraction, "capacity_gib": capacity, "tp": tp, "max_model_len": length,
                "sequences_at_full_length": tokens // length if length else 0}
    ctx.record("serving-kv", {"engine": knobs["engine"], "gpu_memory_utilization": fraction, "tp": tp, "max_model_len": length, "capacity_gib": capacity},
               computed)
    values = {"weights": gib(weights_per_gpu), "budget": gib(budget), "fraction": num(fraction), "room": gib(max(room, 0)),
              "tokens": f"{tokens:,}", "length": f"{length:,}", "one": gib(one_sequence), "needed": num(needed_fraction),
              "fit_len": f"{fit_len:,}", "tp": tp, "tp2": tp * 2, "capacity": gib(capacity), "sequences": f"{computed['sequences_at_full_length']:,}",
              **knobs}
    points: list[str] = []
    if reported:
        share = round(100 * int(reported) / length) if length else 0
        ctx.record("kv-share", {"reported_tokens": int(reported), "max_model_len": length}, {"share_percent": share})
        points.append(say("case.serving.engine_said", lang, reported=f"{int(reported):,}", share=share, length=f"{length:,}"))
    if room <= 0:
        lead = say("case.serving.weights_too_big", lang, **values)
        points.append(say("case.serving.fix_weights", lang, **values))
        verdict = "no"
    elif tokens < length:
        lead = say("case.serving.kv_short", lang, **values)
        points.append(say("case.serving.kv_per_token", lang, kib=num(result.kv_bytes_per_token / 1024), tp=tp))
        points.append(say("case.serving.fix_length", lang, **values))
        if needed_fraction < 0.98:
            points.append(say("case.serving.fix_fraction", lang, **values))
        points.append(say("case.serving.fix_other", lang, **values))
        verdict = "no"
    else:
        lead = say("case.serving.by_design" if case.act in ("cause", "none", "procedure") else "case.serving.fits", lang, **values)
        points.append(say("case.serving.concurrency", lang, **values))
        points.append(say("case.serving.lower_fraction", lang, **values) + " [1]")
        verdict = "yes"
    return Finding("size_serving_memory", lead=lead, points=points[:5], works=works, hits=[hit], verdict=verdict, basis=computed,
                   follow_ups=[say("case.follow.serving_concurrency", lang)])
