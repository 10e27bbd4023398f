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
    text = say(key, ctx.lang, option=option or "", weights=num(p.weights_gib), gradients=num(p.gradients_gib),
               optimizer=num(p.optimizer_gib), activations=num(p.activations_gib), rest=num(rest),
               total=num(p.total_gib), total_gb=num(total_gb), gpus=result.gpus)
    whole = whole_weights(ctx, result)
    return ParagraphBlock(text=f"{whole} {text}" if whole else text)


TRAIN_WEIGHT_BYTES = {"fp32": 4.0}  # every other training precision keeps 16-bit weights


def whole_weights(ctx, result) -> str:
    """"Weights alone in BF16: 141 GB" / "4-bit weights: 37 GB": the first number that says why a model fits or not, for the whole model."""
    steps = {step.name: step.value for step in result.work.steps}
    if result.method == "qlora" and "qlora.nf4_weights" in steps:
        nf4, embeddings = steps["qlora.nf4_weights"], steps.get("qlora.embeddings_16bit", 0.0)
        total, key, fmt = nf4 + embeddings, "sizing_expert.weights_4bit", "NF4"
        inputs = {"nf4_weights_bytes": nf4, "embeddings_16bit_bytes": embeddings}
    else:
        per_param = TRAIN_WEIGHT_BYTES.get(result.precision, 2.0)
        total, key, fmt = result.params_b * 1e9 * per_param, "sizing_expert.weights_16bit", result.precision.upper()
        inputs = {"params": result.params_b * 1e9, "bytes_per_param": per_param}
    ctx.record("weights-size", inputs, {"weights_bytes": total, "weights_gb": total / 1e9, "weights_gib": total / GIB})
    return say(key, ctx.lang, fmt=fmt, gb=num(total / 1e9), gib=num(total / GIB))


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


def plan_weights(memory, lang: str) -> str | None:
    """The weights' size in a training plan, from the memory tool's own figures (no ctx to record a derivation): the NF4 base
    weights and 16-bit embeddings under QLoRA, the 16-bit weights when they are not split across GPUs."""
    steps = {step.name: step.value for step in memory.work.steps}
    if memory.method == "qlora" and "qlora.nf4_weights" in steps:
        return say("sizing_expert.plan_weights_4bit", lang, nf4=num(steps["qlora.nf4_weights"] / 1e9),
                   embeddings=num(steps.get("qlora.embeddings_16bit", 0.0) / 1e9))
    if memory.gpus == 1 and memory.method in ("full", "lora"):
        return say("sizing_expert.plan_weights_16bit", lang, fmt=memory.precision.upper(), gb=num(memory.per_gpu.weights_gib * GIB / 1e9),
                   gib=num(memory.per_gpu.weights_gib))
    return None


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


def kv_total(ctx, result) -> ParagraphBlock:
    """The KV cache for the context (and batch) asked about, in GB: per token × tokens × sequences, not only per token."""
    tokens = result.context_len * result.concurrency
    total = result.kv_bytes_per_token * tokens
    ctx.record("kv-total", {"kv_bytes_per_token": result.kv_bytes_per_token, "context_len": result.context_len, "sequences": result.concurrency},
               {"tokens": tokens, "kv_bytes": total, "kv_gb": total / 1e9, "kv_gib": total / GIB})
    key = "sizing_expert.kv_total_batch" if result.concurrency > 1 else "sizing_expert.kv_total"
    return ParagraphBlock(text=say(key, ctx.lang, per_token=f"{result.kv_bytes_per_token:,.0f}", context=f"{result.context_len:,}",
                                   batch=result.concurrency, tokens=f"{tokens:,}", gb=num(total / 1e9), gib=num(total / GIB)))
