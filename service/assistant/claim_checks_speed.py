"""Speed claims between cards or precisions (a speed-up factor, "as fast as", "faster than", a datasheet ratio) held
against the catalog, kept apart from claim_checks.py, which classifies a claim and dispatches these kinds here."""

from __future__ import annotations

import re

from service.assistant.claim_checks_consumer import consumer_pair
from service.assistant.claim_checks_parity import training_points
from service.assistant.claim_finding import FACTOR, Finding, _factor, _gpus, _precision, cue
from service.assistant.compose.fmt import num
from service.assistant.messages import say

# Share of a training step spent in matrix multiplications, the only part a faster number format speeds up
# (an assumption stated in the answer: GEMM-heavy LLM training, the rest is attention softmax, norms, communication, data).
GEMM_SHARE = (0.5, 0.7)
PARITY_FALSE_ABOVE = 1.5  # "as fast as" is false when one card has this much more dense compute


def speedup_claim(ctx) -> Finding:
    text, lang, catalog = ctx.text, ctx.lang, ctx.catalog
    factor = FACTOR.search(text)
    parity = factor is None and not cue("doubles", text) and cue("same_speed", text)
    claimed = _factor(factor.group(1)) if factor else 1.0 if parity else 2.0
    gpus = _gpus(ctx.slots)
    precision = _precision(text)
    if len(gpus) <= 1:  # a precision speed-up on one card: FP8 vs BF16 (on an H100 when no card is named)
        spec = catalog.gpus[gpus[0] if gpus else "h100-sxm"]
        fast, slow = (precision, "bf16") if precision in ("fp8", "int8") else ("bf16", "fp32")
        fast_tf, slow_tf = spec.dense_tflops(fast), spec.dense_tflops(slow)
        ratio = fast_tf / slow_tf
        # Peak ratios bound end-to-end gains from above: claiming the whole paper ratio is overstated.
        verdict = "optimistic" if claimed >= ratio * 0.9 else "plausible" if claimed >= 0.5 * ratio else "conservative"
        ctx.record("claim-check", {"gpu": spec.id, "claimed_speedup": claimed, "fast": fast, "slow": slow},
                   {"fast_dense_tflops": fast_tf, "slow_dense_tflops": slow_tf, "ratio": ratio, "verdict": verdict})
        lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
            "claim.precision_ratio", lang, gpu=spec.name, fast=fast.upper(), slow=slow.upper(), fast_tf=num(fast_tf), slow_tf=num(slow_tf), ratio=num(ratio))
        return Finding("speedup", verdict, lead, [_end_to_end(ctx, ratio, fast, slow)], topics=["claims", "precision"])
    a, b = (catalog.gpus[g] for g in gpus[:2])
    subject = next((name for name, pattern in SPEC_SUBJECTS if pattern.search(text)), None)
    if subject is not None and factor is not None:
        return _spec_ratio(ctx, a, b, subject, claimed)  # "H100 的显存带宽是 A100 的 3 倍": a datasheet ratio, not a speed-up
    prec = precision if precision in ("fp8", "fp16", "bf16") and a.dense_tflops(precision) and b.dense_tflops(precision) else \
        "bf16" if a.supports_bf16 and b.supports_bf16 else "fp16"
    fast, slow = (a, b) if a.dense_tflops(prec) >= b.dense_tflops(prec) else (b, a)
    compute_ratio = fast.dense_tflops(prec) / slow.dense_tflops(prec)
    bw_ratio = fast.memory_bandwidth_gbps / slow.memory_bandwidth_gbps
    high, low = max(compute_ratio, bw_ratio), min(compute_ratio, bw_ratio)
    verdict = "optimistic" if claimed > high * 1.05 else "conservative" if claimed < low * 0.95 else "plausible"
    if parity and compute_ratio >= PARITY_FALSE_ABOVE:
        return _parity(ctx, fast, slow, prec, compute_ratio, bw_ratio)
    ctx.record("claim-check", {"fast": fast.id, "slow": slow.id, "precision": prec, "claimed_speedup": claimed},
               {"compute_ratio": compute_ratio, "bandwidth_ratio": bw_ratio, "verdict": verdict,
                "fast_dense_tflops": fast.dense_tflops(prec), "slow_dense_tflops": slow.dense_tflops(prec),
                "fast_memory_gb": fast.memory_gb, "slow_memory_gb": slow.memory_gb})
    key = {"optimistic": "claim.speedup_claim_over", "plausible": "claim.speedup_claim_within", "conservative": "claim.speedup_claim_under"}[verdict]
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim.speedup_datasheet", lang, fast=fast.name, slow=slow.name, precision=prec.upper(), compute_ratio=num(compute_ratio), bw_ratio=num(bw_ratio))
    points = [say(key, lang, claimed=num(claimed))]
    if compute_ratio < 1.05 < bw_ratio:
        # H200 against H100: the same tensor cores; only memory differs, which compute-bound training barely feels.
        points.insert(0, say("claim.same_compute", lang, fast=fast.name, slow=slow.name, tflops=num(slow.dense_tflops(prec), 4),
                             precision=prec.upper(), fast_gb=num(fast.memory_gb), slow_gb=num(slow.memory_gb)))
    return Finding("speedup", verdict, lead, points, topics=["claims", "gpu-selection"])


def _end_to_end(ctx, ratio: float, fast: str, slow: str) -> str:
    """Amdahl's law: only the GEMM share of the step runs `ratio`× faster, so the end-to-end gain is a band well below the peak ratio."""
    low, high = (1 / ((1 - f) + f / ratio) for f in GEMM_SHARE)
    ctx.record("amdahl-speedup", {"peak_ratio": ratio, "gemm_share_low": GEMM_SHARE[0], "gemm_share_high": GEMM_SHARE[1]},
               {"end_to_end_low": low, "end_to_end_high": high, "gemm_share_low_pct": GEMM_SHARE[0] * 100, "gemm_share_high_pct": GEMM_SHARE[1] * 100})
    return say("claim_advice.end_to_end", ctx.lang, low=num(low), high=num(high), ratio=num(ratio), fast=fast.upper(), slow=slow.upper(),
               share_low=f"{GEMM_SHARE[0]:.0%}", share_high=f"{GEMM_SHARE[1]:.0%}")


def _parity(ctx, fast, slow, prec: str, compute_ratio: float, bw_ratio: float) -> Finding:
    """"X is as fast as Y": false for training when the dense compute differs this much; bandwidth-bound decode is the exception."""
    lang = ctx.lang
    fast_tf, slow_tf = fast.dense_tflops(prec), slow.dense_tflops(prec)
    ctx.record("claim-check", {"fast": fast.id, "slow": slow.id, "precision": prec, "claimed_speedup": 1.0},
               {"fast_dense_tflops": fast_tf, "slow_dense_tflops": slow_tf, "compute_ratio": compute_ratio,
                "bandwidth_ratio": bw_ratio, "fast_bandwidth_gbps": fast.memory_bandwidth_gbps,
                "slow_bandwidth_gbps": slow.memory_bandwidth_gbps, "verdict": "false"})
    compute = say("claim_advice.parity", lang, fast=fast.name, slow=slow.name, precision=prec.upper(), fast_tf=num(fast_tf, 4),
                  slow_tf=num(slow_tf, 4), ratio=num(compute_ratio))
    decode = say("claim_advice.parity_decode", lang, fast=fast.name, slow=slow.name, fast_bw=num(fast.memory_bandwidth_gbps),
                 slow_bw=num(slow.memory_bandwidth_gbps))
    if cue("inference", ctx.text) and bw_ratio < 1.5:
        # "H20 is basically an H100 for inference": decode (bandwidth) is close, prefill (compute) is not: partly true.
        lead = say("claim.lead", lang, verdict=say("claim.verdict.partly_true", lang)) + " " + say(
            "claim_advice.parity_inference", lang, fast=fast.name, slow=slow.name, fast_bw=num(fast.memory_bandwidth_gbps),
            slow_bw=num(slow.memory_bandwidth_gbps))
        return Finding("speedup", "partly_true", lead, [compute, say("claim_advice.parity_prefill", lang, slow=slow.name)],
                       topics=["claims", "inference", "gpu-selection"])
    lead = say("claim.lead", lang, verdict=say("claim.verdict.false", lang)) + " " + compute
    # A consumer card against a data-centre one gets its link point (with P2P) from the consumer points added after.
    extra = training_points(ctx, fast, slow, prec, compute_ratio, bw_ratio, link=consumer_pair(ctx.catalog, [fast.id, slow.id]) is None)
    points = extra if bw_ratio >= 1.5 else [decode, *extra]  # decode is close only when the bandwidths are
    return Finding("speedup", "false", lead, points, topics=["claims", "gpu-selection"])


def ordering_claim(ctx) -> Finding:
    """"A is faster than B": training speed follows dense compute; bandwidth decides decode. The first card named is the
    one the claim is about (faster, or slower when the claim says so)."""
    lang, catalog = ctx.lang, ctx.catalog
    first, second = (catalog.gpus[g] for g in _gpus(ctx.slots)[:2])
    claimed, other = (second, first) if cue("slower", ctx.text) and not cue("faster", ctx.text) else (first, second)
    precision = _precision(ctx.text)
    prec = precision if precision in ("fp8", "fp16", "bf16") and claimed.dense_tflops(precision) and other.dense_tflops(precision) else \
        "bf16" if claimed.supports_bf16 and other.supports_bf16 else "fp16"
    compute_ratio = claimed.dense_tflops(prec) / other.dense_tflops(prec)
    bw_ratio = claimed.memory_bandwidth_gbps / other.memory_bandwidth_gbps
    # More compute is faster training only if memory bandwidth does not fall far behind (L40S against A100: 1.16× the
    # compute, 0.42× the bandwidth); either advantage alone makes the claim partly true.
    ahead_compute, ahead_bw = compute_ratio >= 1.05, bw_ratio >= 1.05
    verdict = "true" if ahead_compute and bw_ratio >= 0.8 else "partly_true" if ahead_compute or ahead_bw or compute_ratio > 0.95 else "false"
    ctx.record("claim-check", {"claimed_faster": claimed.id, "than": other.id, "precision": prec},
               {"claimed_dense_tflops": claimed.dense_tflops(prec), "other_dense_tflops": other.dense_tflops(prec),
                "compute_ratio": compute_ratio, "claimed_bandwidth_gbps": claimed.memory_bandwidth_gbps,
                "other_bandwidth_gbps": other.memory_bandwidth_gbps, "bandwidth_ratio": bw_ratio, "verdict": verdict})
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim_advice.ordering", lang, claimed=claimed.name, other=other.name, precision=prec.upper(), claimed_tf=num(claimed.dense_tflops(prec), 4),
        other_tf=num(other.dense_tflops(prec), 4), compute_ratio=num(compute_ratio), claimed_bw=num(claimed.memory_bandwidth_gbps),
        other_bw=num(other.memory_bandwidth_gbps), bw_ratio=num(bw_ratio))
    return Finding("speedup", verdict, lead, [say("claim_advice.ordering_point", lang)], topics=["claims", "gpu-selection"])


# A ratio claimed for one datasheet figure: memory bandwidth, memory capacity or the GPU-to-GPU link (tried in this order).
SPEC_SUBJECTS = (
    ("memory_bandwidth_gbps", re.compile(r"显存带宽|内存带宽|memory bandwidth|\bhbm\b|\bbandwidth\b|带宽(?!.{0,6}(?:nvlink|互联|卡间))", re.I)),
    ("memory_gb", re.compile(r"显存(?!带宽)(?:容量|大小)?|\bvram\b|\bmemory\b(?![\s-]*(?:bandwidth|bound))|容量", re.I)),
    ("nvlink_gbps", re.compile(r"nvlink|卡间(?:互联|带宽)|interconnect", re.I)),
)
SPEC_MATCH = 0.15  # a claimed ratio within 15% of the datasheet's is true as stated


def _spec_ratio(ctx, a, b, subject: str, claimed: float) -> Finding:
    """The first card named against the second on one datasheet figure, held against the claimed ratio."""
    def value(gpu):
        if subject == "nvlink_gbps":
            return gpu.scale_up.bandwidth_gbps_bidir if gpu.scale_up else gpu.pcie_gbps_per_direction * 2
        return getattr(gpu, subject)

    va, vb = value(a), value(b)
    ratio = va / vb
    verdict = "true" if abs(claimed / ratio - 1) <= SPEC_MATCH else "false"
    ctx.record("claim-check", {"gpu": a.id, "against": b.id, "figure": subject, "claimed_ratio": claimed},
               {f"{a.id}_value": va, f"{b.id}_value": vb, "ratio": ratio, "verdict": verdict})
    lang = ctx.lang
    what = say(f"claim.spec_figure.{subject}", lang)
    unit = {"memory_bandwidth_gbps": "GB/s", "memory_gb": "GB", "nvlink_gbps": "GB/s"}[subject]
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        f"claim.spec_ratio_{verdict}", lang, a=a.name, b=b.name, what=what, va=f"{num(va)} {unit}", vb=f"{num(vb)} {unit}", ratio=num(ratio),
        claimed=num(claimed))
    compute = a.dense_tflops("bf16") / b.dense_tflops("bf16") if a.dense_tflops("bf16") and b.dense_tflops("bf16") else None
    # A false ratio close to the compute ratio is most likely the compute figure quoted for the wrong one.
    mixed_up = verdict == "false" and compute is not None and abs(claimed / compute - 1) <= 2 * SPEC_MATCH
    points = [say("claim.spec_ratio_compute", lang, a=a.name, b=b.name, compute=num(compute))] if mixed_up else []
    if points:
        ctx.record("claim-check", {"gpu": a.id, "against": b.id, "figure": "bf16_dense_tflops"},
                   {"compute_ratio": a.dense_tflops("bf16") / b.dense_tflops("bf16")})
    return Finding("speedup", verdict, lead, points, topics=["claims", "hardware"])
