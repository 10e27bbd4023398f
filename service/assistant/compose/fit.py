"""What an expert adds to a memory-fit answer: the verdict word first, where the memory goes, and what to do when it does not fit.

Every number shown comes from a training-memory or inference result, or is recorded here as a derived value
(GiB to GB, buffers plus overhead), so the grounding check can find it.
"""

from __future__ import annotations

from service.assistant.compose.fmt import num
from service.assistant.messages import say
from service.contract import ParagraphBlock

# Larger cards to name when a workload does not fit, smallest first: the first that holds it is the advice.
BIGGER_GPUS = ("l40s", "a100-80gb-sxm", "h100-sxm", "h200", "b200")
GIB = 2**30


def verdict(fit: str | None, lang: str) -> str:
    """"Yes — it fits." / "Tight — …" / "No — …" (zh: 能 / 勉强 / 不行): the first words of a fit answer."""
    return say(f"fit_advice.verdict.{fit}", lang) if fit else ""


def breakdown(ctx, result, option: str | None = None) -> ParagraphBlock:
    """Weights + gradients + optimizer states + activations + the rest = the per-GPU total, in GiB and GB."""
    p = result.per_gpu
    rest = p.buffers_gib + p.overhead_gib
    total_gb = p.total_gib * GIB / 1e9
    ctx.record("memory-breakdown", {"per_gpu_total_gib": p.total_gib, "buffers_gib": p.buffers_gib, "overhead_gib": p.overhead_gib},
               {"buffers_and_overhead_gib": rest, "per_gpu_total_gb": total_gb})
    key = "fit_advice.breakdown_option" if option else "fit_advice.breakdown"
    return ParagraphBlock(text=say(key, ctx.lang, option=option or "", weights=num(p.weights_gib), gradients=num(p.gradients_gib),
                                   optimizer=num(p.optimizer_gib), activations=num(p.activations_gib), rest=num(rest),
                                   total=num(p.total_gib), total_gb=num(total_gb), gpus=result.gpus))


def bigger_card(ctx, tool: str, payload: dict, have_gb: float) -> ParagraphBlock | None:
    """The smallest larger card on which the same workload fits, computed by the same tool."""
    for gpu_id in BIGGER_GPUS:
        gpu = ctx.catalog.gpus.get(gpu_id)
        if gpu is None or gpu.memory_gb <= have_gb:
            continue
        result, _ = ctx.try_run(tool, {**payload, "gpu": gpu_id})
        if result is None or result.fit != "fits":
            continue
        need = result.per_gpu_total_gib if tool == "inference" else result.per_gpu.total_gib
        return ParagraphBlock(text=say("fit_advice.bigger_card", ctx.lang, gpu=gpu.name, gb=num(gpu.memory_gb), need=num(need),
                                       gpus=payload.get("gpus") or 1))
    return None


def remedies(ctx, result, tool: str, payload: dict) -> list[ParagraphBlock]:
    """When a workload does not fit (or barely fits): the ladder of fixes, then a card that holds it."""
    if result.fit not in ("does_not_fit", "tight"):
        return []
    key = "fit_advice.remedies_serving" if tool == "inference" else "fit_advice.remedies_training"
    blocks = [ParagraphBlock(text=say(key, ctx.lang))]
    if result.fit == "does_not_fit" and result.gpu and result.gpu in ctx.catalog.gpus:
        card = bigger_card(ctx, tool, payload, ctx.catalog.gpus[result.gpu].memory_gb)
        if card is not None:
            blocks.append(card)
    return blocks


KV_BYTES = {"fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}


def kv_formula(ctx, result) -> ParagraphBlock | None:
    """KV cache per token written out with the model's own shape from the catalog: 2 × layers × KV heads × head dim × bytes."""
    model = ctx.catalog.models.get(ctx.slots.model or "")
    size = KV_BYTES.get(result.kv_format)
    if model is None or size is None:
        return None
    per_token = 2 * model.layers * model.kv_heads * model.head_dim * size
    if abs(per_token - result.kv_bytes_per_token) > 0.5:
        return None  # MLA or another cache layout: the tool's own formula (in the work block) is the one that applies
    ctx.record("catalog-lookup", {"model": model.id}, {"layers": model.layers, "kv_heads": model.kv_heads, "head_dim": model.head_dim,
                                                       "kv_bytes_per_element": size, "kv_bytes_per_token": per_token})
    return ParagraphBlock(text=say("fit_advice.kv_formula", ctx.lang, layers=model.layers, kv_heads=model.kv_heads, head_dim=model.head_dim,
                                   bytes=size, fmt=result.kv_format.upper(), per_token=f"{per_token:,}", kib=num(per_token / 1024),
                                   model=model.name, context=f"{result.context_len:,}", per_seq=num(result.kv_per_sequence_gib)))
