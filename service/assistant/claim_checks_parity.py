""""X trains as fast as Y (at half the price)": what an expert adds beyond the dense-compute gap.

`_parity` in claim_checks_speed states the compute ratio. For training, parity also fails on the three things a cheaper card
gives up, each from the catalog or a tool:
- memory: capacity, memory type and bandwidth (GDDR6 at 864 GB/s against HBM3 at 3,350 GB/s for L40S against H100);
- the GPU-to-GPU link: a PCIe-only card sends gradients over PCIe, not NVLink (one gradient all-reduce of a 7B model
  across 8 cards on each, from the allreduce tool);
- price: when the claim is about price, the catalog's cheapest on-demand rates per unit of dense compute.
Then where the claim is roughly fair: work that fits one card and needs no fast link (single-card inference, small
LoRA/QLoRA fine-tunes), with the training-memory tool's figure for an 8B LoRA on the cheaper card.
Sentences are in the message catalog (claims_expert.parity_*).
"""

from __future__ import annotations

from service.assistant.compose.fmt import link_name, num
from service.assistant.messages import say
from service.sizing.cost import cheapest_instance

ALLREDUCE_PARAMS_B = 7  # the gradient all-reduce compared across 8 cards
FAIR_PARAMS_B = 8  # "a small fine-tune": LoRA of an 8B model on one card


def training_points(ctx, fast, slow, prec: str, compute_ratio: float, bw_ratio: float, *, link: bool = True) -> list[str]:
    """Points for a false training-parity claim; empty when the two cards differ in compute only. `link=False` leaves
    the GPU-to-GPU link to a caller that states it another way (the consumer-card points, with P2P)."""
    from service.assistant.claim_checks import cue

    lang = ctx.lang
    points = []
    if bw_ratio >= 1.5:
        # Decode is no exception here: the cheaper card's memory is slower too.
        points.append(say("claims_expert.parity_memory", lang, slow=slow.name, fast=fast.name, slow_gb=num(slow.memory_gb), fast_gb=num(fast.memory_gb),
                          slow_type=slow.memory_type or "", fast_type=fast.memory_type or "", slow_bw=num(slow.memory_bandwidth_gbps),
                          fast_bw=num(fast.memory_bandwidth_gbps), bw_ratio=num(bw_ratio)))
    link_point = _link_point(ctx, fast, slow) if link else None
    if link_point:
        points.append(link_point)
    if cue("price", ctx.text):
        price = _price_point(ctx, fast, slow, prec)
        if price:
            points.append(price)
    if points:
        points.append(_fair_point(ctx, fast, slow))
    return points


def _link_point(ctx, fast, slow) -> str | None:
    if slow.scale_up is not None or fast.scale_up is None:
        return None
    lang = ctx.lang
    payload = {"params_b": ALLREDUCE_PARAMS_B, "gpus": 8, "gpus_per_node": 8}
    slow_ar, _ = ctx.try_run("allreduce", {**payload, "gpu": slow.id})
    fast_ar, _ = ctx.try_run("allreduce", {**payload, "gpu": fast.id})
    ctx.record("gpu-figures", {"gpus": [slow.id, fast.id]},
               {"pcie_gen": slow.pcie_gen, "pcie_gbps_per_direction": slow.pcie_gbps_per_direction,
                "link_gbps_bidir": fast.scale_up.bandwidth_gbps_bidir})
    text = say("claims_expert.parity_link", lang, slow=slow.name, fast=fast.name, gen=slow.pcie_gen, pcie=num(slow.pcie_gbps_per_direction),
               link=link_name(fast.scale_up.name, lang), link_bw=num(fast.scale_up.bandwidth_gbps_bidir))
    if slow_ar is not None and fast_ar is not None:
        ratio = slow_ar.total_ms / fast_ar.total_ms
        ctx.record("allreduce-ratio", {"slow_gpu": slow.id, "fast_gpu": fast.id, "slow_ms": slow_ar.total_ms, "fast_ms": fast_ar.total_ms},
                   {"ratio": ratio})
        text += " " + say("claims_expert.parity_allreduce", lang, params=ALLREDUCE_PARAMS_B, slow=slow.name, fast=fast.name,
                          slow_ms=num(slow_ar.total_ms), fast_ms=num(fast_ar.total_ms), ratio=num(ratio))
    return text


def _price_point(ctx, fast, slow, prec: str) -> str | None:
    """Price per unit of dense compute at the cheapest listed on-demand rates: "half the price" for a third of the compute."""
    p_slow, p_fast = cheapest_instance(ctx.catalog, slow.id), cheapest_instance(ctx.catalog, fast.id)
    if p_slow is None or p_fast is None:
        return None
    tf_slow, tf_fast = slow.dense_tflops(prec), fast.dense_tflops(prec)
    price_ratio = p_slow.price_per_gpu_hour / p_fast.price_per_gpu_hour
    per_compute = (p_slow.price_per_gpu_hour / tf_slow) / (p_fast.price_per_gpu_hour / tf_fast)
    ctx.record("price-per-compute", {"slow": slow.id, "fast": fast.id, "precision": prec, "slow_instance": p_slow.instance,
                                     "fast_instance": p_fast.instance},
               {"slow_usd_per_gpu_hour": p_slow.price_per_gpu_hour, "fast_usd_per_gpu_hour": p_fast.price_per_gpu_hour,
                "price_ratio": price_ratio, "slow_dense_tflops": tf_slow, "fast_dense_tflops": tf_fast, "cost_per_compute_ratio": per_compute})
    key = "claims_expert.parity_price_dearer" if per_compute >= 1 else "claims_expert.parity_price_cheaper"
    return say(key, ctx.lang, slow=slow.name, fast=fast.name, p_slow=num(p_slow.price_per_gpu_hour), p_fast=num(p_fast.price_per_gpu_hour),
               price_ratio=num(price_ratio), per_compute=num(per_compute if per_compute >= 1 else 1 / per_compute), precision=prec.upper())


def _fair_point(ctx, fast, slow) -> str:
    """Where the claim is roughly fair: one card, no fast link, the job fits in its memory."""
    lora, _ = ctx.try_run("training-memory", {"params_b": FAIR_PARAMS_B, "method": "lora", "gpu": slow.id})
    values = {"slow": slow.name, "fast": fast.name, "slow_gb": num(slow.memory_gb)}
    if lora is not None and lora.fit != "does_not_fit":
        return say("claims_expert.parity_fair_lora", ctx.lang, **values, params=FAIR_PARAMS_B, lora=num(lora.per_gpu.total_gib))
    return say("claims_expert.parity_fair", ctx.lang, **values)
