"""Decode-speed claims written as a rate: "10,000 tokens/s for a 70B on one H100 at batch 1".

At batch 1 every output token reads all the weights (the active experts' for MoE) and the sequence's KV cache from
memory, so tokens/s ≤ memory bandwidth ÷ bytes per token: the ceiling claim_checks_hardware computes per TP degree.
Two more facts answer what an expert is asked next: whether 16-bit weights even fit the GPUs named, and what the same
GPUs reach in aggregate over many concurrent sequences (batching reads the weights once per step for all of them;
compute and KV-cache memory bound it instead).
"""

from __future__ import annotations

from service.assistant.compose.fmt import num
from service.assistant.messages import say

AGGREGATE_MARGIN = 1.1  # an aggregate figure within 10% of the tool's estimate is plausible
TIGHT_NEAR = 0.7  # above this share of the bandwidth ceiling a claim is optimistic (decode reaches 50-80% of peak bandwidth)
OFFLOAD_RESIDENT = 0.9  # share of GPU memory that can hold weights when the rest is offloaded (CUDA context, activations)


def _model(ctx) -> dict:
    s = ctx.slots
    return {"model": s.model, "params_b": None if s.model else s.params_b}


def rate_finding(ctx, gpu, row, verdict: str, claimed_ms: float, model_name: str):
    """The finding for a tokens/s claim, from the TP degree shown (`row` as built by claim_checks_hardware.decode_latency)."""
    from service.assistant.claim_checks import Finding

    lang = ctx.lang
    r, weights_gb, floor_ms = row[0], row[1], row[2]
    claimed, ceiling, typical = 1000 / claimed_ms, 1000 / floor_ms, r.decode_tokens_per_second.typical
    values = {
        "model": model_name,
        "fmt": r.weights_format.upper(),
        "gpus": r.gpus,
        "gpu": gpu.name,
        "weights": num(weights_gb),
        "bw": num(gpu.memory_bandwidth_gbps * r.gpus),
        "ceiling": num(ceiling),
        "typical": num(typical),
        "claimed": num(claimed),
        "gap": num(claimed / ceiling),
    }
    quantised = _quantised(ctx, r, gpu, claimed) if r.weights_format in ("bf16", "fp16") and claimed > ceiling else []
    if quantised and verdict == "not_credible" and quantised[0][0]:
        verdict = "optimistic"  # out of reach with 16-bit weights, within reach with 4-bit ones
    ctx.record(
        "claim-check",
        {"claimed_tokens_per_s": claimed, "gpu": gpu.id, "gpus": r.gpus, "concurrency": 1},
        {
            "ceiling_tokens_per_s": ceiling,
            "typical_tokens_per_s": typical,
            "bandwidth_gbps": gpu.memory_bandwidth_gbps * r.gpus,
            "gap": claimed / ceiling,
            "verdict": verdict,
        },
    )
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say("claim.decode_rate_lead", lang, **values)
    points = [say("claim.decode_rate_why", lang, **values), *(text for _, text in quantised)]
    if r.weights_format not in ("bf16", "fp16"):
        sixteen, _ = ctx.try_run("inference", {**_model(ctx), "gpu": gpu.id, "gpus": r.gpus, "concurrency": 1})
        if sixteen is not None and sixteen.fit == "does_not_fit":
            points.insert(
                0,
                say(
                    "claim.decode_no_fit",
                    lang,
                    fmt=sixteen.weights_format.upper(),
                    weights=num(sixteen.weights_gib),
                    gpus=r.gpus,
                    gpu=gpu.name,
                    memory=num(sixteen.gpu_memory_gib),
                    shown=r.weights_format.upper(),
                ),
            )
    if r.gpus > 1:
        # Tensor parallelism adds the GPUs' bandwidth but pays an all-reduce per layer: over PCIe that eats much of the gain.
        key = "claim.decode_tp_pcie" if gpu.scale_up is None else "claim.decode_tp_nvlink"
        points.append(say(key, lang, gpus=r.gpus, gpu=gpu.name))
    points += _aggregate(ctx, r, gpu, claimed)
    return Finding("decode", verdict, lead, points, results=[r], topics=["inference"])


def _quantised(ctx, r, gpu, claimed: float) -> list[tuple[bool, str]]:
    """A vendor's "solution" may quantise: the same ceiling with 4-bit weights, which read about a quarter of the bytes."""
    four, _ = ctx.try_run("inference", {**_model(ctx), "gpu": gpu.id, "gpus": r.gpus, "concurrency": 1, "weights": "int4", "context_len": r.context_len})
    if four is None or four.fit == "does_not_fit":
        return []
    steps = {step.name: step.value for step in four.work.steps}
    read_gb = steps.get("decode.bytes_per_step", four.weights_gib * 2**30) / 1e9
    ceiling = gpu.memory_bandwidth_gbps * r.gpus / read_gb
    ctx.record(
        "decode-floor",
        {"weights": "int4", "bytes_per_token_gb": read_gb, "bandwidth_gbps": gpu.memory_bandwidth_gbps * r.gpus},
        {"ceiling_tokens_per_s": ceiling, "claimed_over_ceiling": claimed / ceiling},
    )
    key = "claim.decode_int4_short" if claimed > ceiling else "claim.decode_int4_reach"
    return [(claimed <= ceiling, say(key, ctx.lang, weights=num(read_gb), ceiling=num(ceiling), claimed=num(claimed), ratio=num(claimed / ceiling)))]


def _aggregate(ctx, r, gpu, claimed: float) -> list[str]:
    """The same GPUs with as many sequences as their memory holds: the aggregate the claim could mean."""
    base = {**_model(ctx), "gpu": gpu.id, "gpus": r.gpus, "context_len": r.context_len}
    room = r
    if not r.max_concurrency or r.max_concurrency < 2:
        # Weights that barely fit leave no KV-cache room for a batch: 4-bit weights are how such a card serves many users.
        room, _ = ctx.try_run("inference", {**base, "weights": "int4", "concurrency": 1})
        if room is None or not room.max_concurrency or room.max_concurrency < 2:
            return []
    busy, _ = ctx.try_run("inference", {**base, "weights": room.weights_format, "concurrency": room.max_concurrency})
    if busy is None or not busy.decode_aggregate_tokens_per_second:
        return []
    total = busy.decode_aggregate_tokens_per_second
    ctx.record(
        "decode-aggregate",
        {"concurrency": busy.concurrency, "weights": busy.weights_format},
        {"aggregate_tokens_per_s": total, "claimed_over_aggregate": claimed / total},
    )
    key = "claim.decode_aggregate_ok" if claimed <= total * AGGREGATE_MARGIN else "claim.decode_aggregate_short"
    return [
        say(
            key,
            ctx.lang,
            total=num(total),
            fmt=busy.weights_format.upper(),
            conc=f"{busy.concurrency:,}",
            context=f"{busy.context_len:,}",
            claimed=num(claimed),
            ratio=num(claimed / total),
            gpus=r.gpus,
            gpu=gpu.name,
        )
    ]


def offload_finding(ctx, gpu, claimed_ms: float, model: dict):
    """Even 4-bit weights do not fit the GPUs named ("70B on one 4090"): what does not fit is offloaded to CPU memory and
    read over PCIe for every token, so tokens/s ≤ PCIe bandwidth ÷ offloaded bytes."""
    from service.assistant.claim_checks import Finding

    lang, gpus = ctx.lang, ctx.slots.gpus or 1
    result, _ = ctx.try_run("inference", {**model, "gpu": gpu.id, "gpus": gpus, "concurrency": 1, "weights": "int4"})
    if result is None:
        return None
    weights_gb = result.weights_gib * 2**30 / 1e9
    resident_gb = OFFLOAD_RESIDENT * gpu.memory_gb * gpus
    offload_gb = weights_gb - resident_gb
    tight = offload_gb <= 0  # the weights fit, the KV cache of a full context beside them does not
    # Every token reads the weights once: from HBM when they fit, else the offloaded part over PCIe.
    ceiling = gpu.memory_bandwidth_gbps * gpus / weights_gb if tight else gpu.pcie_gbps_per_direction * gpus / offload_gb
    claimed = 1000 / claimed_ms
    near = TIGHT_NEAR if tight else 0.5
    verdict = "not_credible" if claimed > ceiling else "optimistic" if claimed > ceiling * near else "plausible"
    ctx.record(
        "weights-floor" if tight else "offload-floor",
        {
            "weights_gb": weights_gb,
            "gpu_memory_gb": gpu.memory_gb,
            "gpus": gpus,
            "resident_share": OFFLOAD_RESIDENT,
            "memory_bandwidth_gbps": gpu.memory_bandwidth_gbps,
            "pcie_gbps_per_direction": gpu.pcie_gbps_per_direction,
        },
        {
            "memory_gb_total": gpu.memory_gb * gpus,
            "resident_gb": resident_gb,
            "offloaded_gb": max(offload_gb, 0),
            "bandwidth_gbps": (gpu.memory_bandwidth_gbps if tight else gpu.pcie_gbps_per_direction) * gpus,
            "ceiling_tokens_per_s": ceiling,
            "claimed_tokens_per_s": claimed,
            "gap": claimed / ceiling,
            "verdict": verdict,
        },
    )
    values = {
        "model": result.model.removesuffix(" (estimated shape)"),
        "gpus": gpus,
        "gpu": gpu.name,
        "memory": num(gpu.memory_gb * gpus),
        "weights": num(weights_gb),
        "offload": num(offload_gb),
        "pcie": num(gpu.pcie_gbps_per_direction * gpus),
        "bw": num(gpu.memory_bandwidth_gbps * gpus),
        "ceiling": num(ceiling),
        "claimed": num(claimed),
        "gap": num(claimed / ceiling),
    }
    key = "claim.decode_weights_only" if tight else "claim.decode_offload"
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(key, lang, **values)
    points = [say("claim.decode_offload_more", lang, **values)]
    if tight and gpus > 1:
        points = [say("claim.decode_tp_pcie" if gpu.scale_up is None else "claim.decode_tp_nvlink", lang, gpus=gpus, gpu=gpu.name)]
    return Finding("decode", verdict, lead, points, topics=["inference"])
