"""Vendor claims between two cards.

- `every_workload(ctx)`: "MI300X beats H100 on every workload". The catalog's memory, bandwidth, dense BF16/FP8
  compute and scale-up link of both cards, the software stack of each vendor, and which workload each figure decides:
  false when the claimed card is behind in any figure, else only partly true (the software and the workload decide).
- `generation_points(ctx, gpus, claimed)`: "the new B200 is 5× faster than H100". Added to an overstated speed-up:
  FP8 like for like, where the vendor's bigger figures come from (lower precision, sparsity, large-batch inference,
  a rack-wide NVLink domain; claim-vendor-speedups in the knowledge base), and what a training user should expect.
"""

from __future__ import annotations

from service.assistant.compose.fmt import num
from service.assistant.messages import say

STACKS = {"nvidia": "CUDA", "amd": "ROCm", "huawei": "CANN", "intel": "Intel Gaudi software"}


def every_workload(ctx):
    from service.assistant.claim_checks import Finding, _gpus, cue

    lang, catalog = ctx.lang, ctx.catalog
    first, second = (catalog.gpus[g] for g in _gpus(ctx.slots)[:2])
    a, b = (second, first) if cue("slower", ctx.text) and not cue("faster", ctx.text) else (first, second)
    figures = {
        "memory": (a.memory_gb, b.memory_gb),
        "bandwidth": (a.memory_bandwidth_gbps, b.memory_bandwidth_gbps),
        "compute": (a.dense_tflops("bf16") or a.dense_tflops("fp16"), b.dense_tflops("bf16") or b.dense_tflops("fp16")),
    }
    ratios = {k: x / y for k, (x, y) in figures.items()}
    behind = [k for k, r in ratios.items() if r < 0.95]
    verdict = "false" if behind else "partly_true"
    fp8 = (a.dense_tflops("fp8"), b.dense_tflops("fp8"))
    ctx.record(
        "claim-check",
        {"claimed_better": a.id, "than": b.id, "claim": "every workload"},
        {
            **{f"{k}_ratio": r for k, r in ratios.items()},
            "claimed_memory_gb": a.memory_gb,
            "other_memory_gb": b.memory_gb,
            "claimed_bandwidth_gbps": a.memory_bandwidth_gbps,
            "other_bandwidth_gbps": b.memory_bandwidth_gbps,
            "claimed_dense_tflops": figures["compute"][0],
            "other_dense_tflops": figures["compute"][1],
            "claimed_fp8_tflops": fp8[0],
            "other_fp8_tflops": fp8[1],
            "verdict": verdict,
            "claimed_link_gbps": a.scale_up.bandwidth_gbps_bidir if a.scale_up else None,
            "other_link_gbps": b.scale_up.bandwidth_gbps_bidir if b.scale_up else None,
        },
    )
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang))
        + " "
        + say(
            "claims_extra.vendor_lead",
            lang,
            a=a.name,
            b=b.name,
            mem_a=num(a.memory_gb),
            mem_b=num(b.memory_gb),
            mem_ratio=num(ratios["memory"]),
            bw_a=num(a.memory_bandwidth_gbps),
            bw_b=num(b.memory_bandwidth_gbps),
            bw_ratio=num(ratios["bandwidth"]),
            bf16_a=num(figures["compute"][0], 4),
            bf16_b=num(figures["compute"][1], 4),
            bf16_ratio=num(ratios["compute"]),
        )
    )
    points = []
    if all(fp8):
        points.append(say("claims_extra.vendor_fp8", lang, fp8_a=num(fp8[0], 4), fp8_b=num(fp8[1], 4), fp8_ratio=num(fp8[0] / fp8[1])))
    if behind:
        sep = "、" if lang == "zh" else " and "
        points.append(say("claims_extra.vendor_behind", lang, a=a.name, b=b.name, what=sep.join(say(f"claims_extra.vendor_dim.{k}", lang) for k in behind)))
    points.append(say("claims_extra.vendor_depends", lang, link_a=_link(a), link_b=_link(b)))
    stack_a, stack_b = STACKS.get(a.vendor, a.vendor), STACKS.get(b.vendor, b.vendor)
    if stack_a != stack_b:
        points.append(say("claims_extra.vendor_software", lang, a=a.name, b=b.name, stack_a=stack_a, stack_b=stack_b))
    else:
        points.append(say("claims_extra.vendor_same_stack", lang, stack=stack_a))
    points.append(say("claims_extra.vendor_advice", lang))
    return Finding("speedup", verdict, lead, points, topics=["claims", "hardware"])


def _link(gpu) -> str:
    return f"{gpu.scale_up.name.split(' (')[0]} {num(gpu.scale_up.bandwidth_gbps_bidir)} GB/s" if gpu.scale_up else "PCIe"


def generation_points(ctx, gpus: list[str]) -> list[str]:
    """Points for an overstated speed-up between two cards: FP8 like for like, the vendor figures' origin, the
    expectation for training. Recorded as one claim-check call so every figure is traceable."""
    lang, catalog = ctx.lang, ctx.catalog
    x, y = (catalog.gpus[g] for g in gpus[:2])
    fast, slow = (x, y) if (x.dense_tflops("bf16") or 0) >= (y.dense_tflops("bf16") or 0) else (y, x)
    fast_bf16, slow_bf16 = fast.dense_tflops("bf16"), slow.dense_tflops("bf16")
    if not (fast_bf16 and slow_bf16 and fast.dense_tflops("fp8")):
        return []
    compute_ratio, bw_ratio = fast_bf16 / slow_bf16, fast.memory_bandwidth_gbps / slow.memory_bandwidth_gbps
    fast_fp8, slow_fp8 = fast.dense_tflops("fp8"), slow.dense_tflops("fp8")
    sparse = fast.sparse_fp8_tflops
    out = {
        "fast": fast.id,
        "slow": slow.id,
        "fast_fp8_tflops": fast_fp8,
        "slow_fp8_tflops": slow_fp8,
        "fast_sparse_fp8_tflops": sparse,
        "slow_bf16_tflops": slow_bf16,
        "bf16_ratio": compute_ratio,
        "bandwidth_ratio": bw_ratio,
    }
    points = []
    if slow_fp8:
        out["fp8_ratio"] = round(fast_fp8 / slow_fp8, 3)
        points.append(
            say(
                "claims_extra.gen_fp8",
                lang,
                fast=fast.name,
                slow=slow.name,
                fast_fp8=num(fast_fp8, 4),
                slow_fp8=num(slow_fp8, 4),
                fp8_ratio=num(fast_fp8 / slow_fp8),
            )
        )
    else:
        out["fp8_vs_bf16_ratio"] = round(fast_fp8 / slow_bf16, 3)
        points.append(say("claims_extra.gen_no_fp8", lang, fast=fast.name, slow=slow.name, fast_fp8=num(fast_fp8, 4), mixed_ratio=num(fast_fp8 / slow_bf16)))
    if sparse:
        out["sparse_fp8_vs_bf16_ratio"] = round(sparse / slow_bf16, 3)
        points.append(say("claims_extra.gen_sources", lang, fast=fast.name, slow=slow.name, fast_sparse=num(sparse, 4), sparse_ratio=num(sparse / slow_bf16)))
    points.append(say("claims_extra.gen_training", lang, compute_ratio=num(compute_ratio), bw_ratio=num(bw_ratio)))
    ctx.record("claim-check", {"fast": fast.id, "slow": slow.id, "check": "vendor speed-up figures"}, out)
    return points
