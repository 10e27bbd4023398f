"""Size the user's own training job: the per-GPU memory it needs as launched, against the card it runs on, and the
cheapest change that fits (each change run through the memory tool, never guessed).

The lead answers the act: "will it fit?" with yes / tight / no; "would ZeRO-3 fix it?" with yes or no for that change;
a bare OOM report with the job's figure against the card's. The pieces are the tool's (weights, gradients, optimizer
states, activations); the OOM line's own figures (reserved against allocated) say whether it is fragmentation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.assistant.capabilities.base import Finding, capability
from service.assistant.capabilities.job import TRAINING_FACTS, card, case_of, record_facts, training_payload
from service.assistant.handlers.base import Context
from service.assistant.messages import say
from service.assistant.compose.fmt import model_label
from service.render.fmt import gib, num

TIGHT = 0.92  # of the capacity: above it the job is tight (allocator fragmentation and peaks take the rest)
FRAGMENTED = 0.08  # reserved minus allocated, of the capacity: more than this is memory held but unused


@dataclass(frozen=True)
class Variant:
    option: str  # the mentions.yaml option it answers
    changes: dict[str, Any]
    steps: tuple[str, ...]  # every change it makes, in order (message keys case.short.<step>): what the answer names


def _ladder(payload: dict[str, Any]) -> list[Variant]:
    """Changes from the job as launched, cheapest first; each keeps the ones before it that cost nothing but speed."""
    out: list[Variant] = []
    ckpt = {"recompute": "full"} if payload.get("recompute") != "full" else {}
    base_steps: tuple[str, ...] = ("gradient_checkpointing",) if ckpt else ()
    if ckpt:
        out.append(Variant("gradient_checkpointing", ckpt, base_steps))
    small = {**ckpt, "micro_batch": 1} if payload.get("micro_batch", 1) > 1 else {}
    if small:
        base_steps = (*base_steps, "smaller_batch")
        out.append(Variant("smaller_batch", small, base_steps))
    base = small or ckpt
    multi = payload.get("gpus", 1) > 1
    sharded: dict[str, Any] = {}
    shard_steps = base_steps
    if multi and payload.get("sharding") not in ("zero3", "fsdp"):
        sharded = {"sharding": "zero3"}
        shard_steps = (*base_steps, "zero3")
        out.append(Variant("zero3", {**base, **sharded}, shard_steps))
    if payload.get("method", "full") == "full" and payload.get("optimizer", "adamw") == "adamw":
        # 8-bit Adam (bitsandbytes, paged_adamw_8bit) keeps the method: 6 bytes a parameter fewer.
        out.append(Variant("optimizer_8bit", {**base, **sharded, "optimizer": "adamw-8bit"}, (*shard_steps, "optimizer_8bit")))
    if payload.get("offload") in (None, "none") and payload.get("method", "full") == "full":
        out.append(Variant("offload", {**base, **sharded, "offload": "optimizer"}, (*shard_steps, "offload")))
        if multi:
            out.append(Variant("offload_params", {**base, **sharded, "offload": "optimizer+params"}, (*shard_steps, "offload_params")))
    if payload.get("method", "full") == "full":
        out.append(Variant("lora", {**base, "method": "lora", "sharding": None, "offload": None}, (*base_steps, "lora")))
    if payload.get("method", "full") != "qlora":
        steps = tuple(s for s in base_steps if s != "gradient_checkpointing")
        out.append(Variant("qlora", {**base, "method": "qlora", "sharding": None, "offload": None, "recompute": "full"}, ("gradient_checkpointing", *steps, "qlora")))
    return out


def describe(steps: tuple[str, ...], lang: str, gpus: int) -> str:
    """"gradient checkpointing + micro-batch 1 + ZeRO-3 + optimizer offload": every change a variant makes."""
    joiner = " + " if lang == "en" else " + "
    return joiner.join(say(f"case.short.{step}", lang, gpus=gpus) for step in steps)


def _run(ctx: Context, payload: dict[str, Any], changes: dict[str, Any]):
    merged = {k: v for k, v in {**payload, **changes}.items() if v is not None}
    if merged.get("gpus", 1) == 1:
        merged.pop("sharding", None)
    result, _ = ctx.try_run("training-memory", merged)
    return result


def _more_gpus(ctx: Context, payload: dict[str, Any], capacity: float):
    """The fewest GPUs (doubling, whole nodes past 8) on which the job fits with ZeRO-3 and checkpointing, if any up to 512."""
    gpus = max(2, payload.get("gpus", 1) * 2) if payload.get("gpus", 1) > 1 else 2
    while gpus <= 512:
        result = _run(ctx, payload, {"gpus": gpus, "sharding": "zero3", "recompute": "full", "tp": 1, "pp": 1})
        if result is not None and result.per_gpu.total_gib <= capacity * TIGHT:
            return gpus, result
        gpus *= 2
    return None, None


ASKABLE = {"zero3", "zero2", "offload", "lora", "qlora", "gradient_checkpointing", "smaller_batch", "more_gpus", "shorter_sequence"}
KEEPS_METHOD = ("gradient_checkpointing", "smaller_batch", "zero3", "optimizer_8bit")  # changes that keep the training method and its speed (mostly)
OFFLOADS = ("offload", "offload_params")
METHODS = ("lora", "qlora")


@capability("size_training_memory")
def size_training_memory(ctx: Context) -> Finding | None:
    lang = ctx.lang
    case = case_of(ctx)
    facts = record_facts(ctx, TRAINING_FACTS)
    payload = training_payload(ctx, facts)
    if payload is None:
        return None
    gpu, capacity = card(ctx, facts)
    count_asked = "count" in case.mentions("topic") and not facts.get("gpus_total") and not ctx.slots.gpus
    job = _run(ctx, payload, {})
    if job is None:
        return None
    capacity = capacity or job.gpu_memory_gib
    need = job.per_gpu.total_gib
    parts = job.per_gpu
    points = [say("case.memory.parts", lang, w=gib(parts.weights_gib), g=gib(parts.gradients_gib), o=gib(parts.optimizer_gib),
                  a=gib(parts.activations_gib), layout=_layout(job, lang))]
    works = [("training-memory", job.work)]
    if capacity is None:
        lead = say("case.memory.need_only", lang, need=gib(need), layout=_layout(job, lang))
        return Finding("size_training_memory", lead=lead, points=points, works=works, verdict=None, basis={"need": need})
    verdict = "no" if need > capacity else "tight" if need > capacity * TIGHT else "yes"
    if job.gpus > 1 and job.sharding == "none":
        points.append(say("case.memory.ddp_copies", lang, gpus=job.gpus))
    asked = [o for o in case.mentions("option") if o in ASKABLE and not _already(o, job)]
    tried: dict[str, tuple[Variant, Any]] = {}
    for variant in _ladder(payload):
        result = _run(ctx, payload, variant.changes)
        if result is not None:
            tried[variant.option] = (variant, result)

    def first_fitting(options: tuple[str, ...]):
        return next(((tried[o][0], tried[o][1]) for o in options if o in tried and tried[o][1].per_gpu.total_gib <= capacity * TIGHT), None)

    keep = first_fitting(KEEPS_METHOD)
    more, more_result = (None, None)
    if verdict != "yes" and (count_asked or "more_gpus" in asked or keep is None):
        more, more_result = _more_gpus(ctx, payload, capacity)
    oom = case.get("oom_total_gib") is not None or "cuda_oom" in case.signatures or case.subject == "training_oom"
    shown_keep = False  # the cheapest change already leads
    if count_asked and more and more_result is not None:
        lead = say("case.memory.count", lang, gpus=more, card=_card_name(ctx, gpu), after=gib(more_result.per_gpu.total_gib), capacity=gib(capacity))
        works.append((say("case.short.more_gpus", lang), more_result.work))
    elif count_asked and verdict != "no":
        lead = say("case.memory.count_one", lang, card=_card_name(ctx, gpu), need=gib(need), capacity=gib(capacity))
    else:
        what = None if _launched(case) else _what(ctx, job, lang)
        lead = _lead(lang, verdict, need, capacity, job, asked, tried, more, more_result, oom, what=what, card_name=_card_name(ctx, gpu))
        if what is not None and not asked and not oom and verdict != "yes" and keep is not None:
            # Described, not launched: the usual recipe's cheap changes are part of the answer ("yes, with gradient checkpointing").
            lead = say("case.memory.fits_with", lang, what=what, option=describe(keep[0].steps, lang, job.gpus), after=gib(keep[1].per_gpu.total_gib),
                       card=_card_name(ctx, gpu), capacity=gib(capacity), need=gib(need))
            works.append((describe(keep[0].steps, lang, job.gpus), keep[1].work))
            keep = None
            verdict = "yes"
        elif case.act == "procedure" and not asked and verdict != "yes" and keep is not None:
            # "Is there a way to fix it?" / "有办法解决吗": the fix leads, with the job as launched beside it.
            label = describe(keep[0].steps, lang, job.gpus)
            lead = say("case.memory.fix_first", lang, option=label, after=gib(keep[1].per_gpu.total_gib), capacity=gib(capacity), need=gib(need))
            works.append((label, keep[1].work))
            shown_keep = True
    if verdict != "yes" or oom:
        shown = set(asked[:2]) | ({keep[0].option} if shown_keep and keep is not None else set())
        if keep is not None and keep[0].option not in shown:
            label = describe(keep[0].steps, lang, job.gpus)
            points.append(say("case.memory.cheapest", lang, option=label, need=gib(keep[1].per_gpu.total_gib)))
            works.append((label, keep[1].work))
        if keep is None:
            method = first_fitting(METHODS)
            if method is not None and method[0].option not in shown:
                points.append(say("case.memory.method_fits", lang, option=describe(method[0].steps, lang, job.gpus), need=gib(method[1].per_gpu.total_gib)))
                works.append((describe(method[0].steps, lang, job.gpus), method[1].work))
            offload = first_fitting(OFFLOADS)
            if offload is not None and offload[0].option not in shown and job.method == "full":
                points.append(say("case.memory.offload_fits", lang, option=describe(offload[0].steps, lang, job.gpus), need=gib(offload[1].per_gpu.total_gib),
                                  host=gib(offload[1].host_offload_gib)))
            if method is None and offload is None and more is None:
                points.append(say("case.memory.none_fit", lang))
        if more and more_result is not None and "more_gpus" not in shown and not count_asked:
            points.append(say("case.memory.more_gpus", lang, gpus=more, need=gib(more_result.per_gpu.total_gib)))
    if oom and "midrun" in case.mentions("topic"):
        points.append(say("case.memory.midrun", lang))
    if oom and case.get("oom_total_gib") is None:
        points.append(say("case.memory.measure", lang))  # no error line pasted: how to see what holds the memory
    points += _oom_reading(ctx, case, lang, capacity)
    if job.host_offload_gib:
        points.append(say("case.memory.offload_cost", lang, host=gib(job.host_offload_gib)))
    return Finding("size_training_memory", lead=lead, points=points[:5], works=works, verdict=verdict,
                   basis={"need": need, "capacity": capacity}, follow_ups=[say("case.follow.other_card", lang), say("case.follow.time", lang)])


LAUNCH_EVIDENCE = ("launcher", "script", "deepspeed_config", "zero_stage", "job_micro_batch", "grad_accum")


def _launched(case) -> bool:
    """The job as it ran (a pasted command, config or log), rather than one described in words."""
    return any(f.name in LAUNCH_EVIDENCE and f.parser not in ("prose", "derived") for f in case.facts)


def _what(ctx: Context, job, lang: str) -> str:
    """"full fine-tuning of Qwen 7B", "Qwen 7B 全参数微调": the job a question describes in words."""
    model = model_label(ctx.catalog, job.model if job.model in ctx.catalog.models else None, job.params_b)
    method = {"full": ("full fine-tuning", "全参数微调"), "lora": ("LoRA fine-tuning", "LoRA 微调"), "qlora": ("QLoRA fine-tuning", "QLoRA 微调")}[job.method]
    if job.task == "pretrain":
        method = ("pre-training", "预训练")
    return f"{method[0]} of {model}" if lang == "en" else f"{model} {method[1]}"


def _already(option: str, job) -> bool:
    """An option the job already uses is its setting, not a change asked about ("my LoRA of 13B on a 3090")."""
    return {"lora": job.method == "lora", "qlora": job.method == "qlora", "zero3": job.sharding in ("zero3", "fsdp"),
            "zero2": job.sharding == "zero2", "offload": job.offload != "none", "gradient_checkpointing": job.recompute == "full"}.get(option, False)


def _card_name(ctx: Context, gpu: str | None) -> str:
    return ctx.catalog.gpus[gpu].name if gpu in ctx.catalog.gpus else "GPU"


def _layout(job, lang: str) -> str:
    sharding = {"none": "", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3", "fsdp": "FSDP"}[job.sharding]
    bits = [f"{job.gpus} GPU" if lang == "en" else f"{job.gpus} 卡", sharding, job.method.upper() if job.method != "full" else "",
            f"micro-batch {job.micro_batch}", f"seq {job.seq_len}", job.precision]
    if job.offload != "none":
        bits.append("offload " + job.offload)
    return ", ".join(b for b in bits if b)


def _lead(lang, verdict, need, capacity, job, asked, tried, more, more_result, oom, *, what: str | None = None, card_name: str = "") -> str:
    """The verdict on what was asked: each change the user named (at most two), else the job as launched (or as described)."""
    values = {"need": gib(need), "capacity": gib(capacity), "layout": _layout(job, lang), "what": what or "", "card": card_name}
    answers: list[str] = []
    for option in asked[:2]:
        if option == "more_gpus":
            if more and more_result is not None:
                key = "case.memory.asked_more_yes" if not answers else "case.memory.then_more_yes"
                answers.append(say(key, lang, gpus=more, after=gib(more_result.per_gpu.total_gib), **values))
        elif option in tried:
            variant, result = tried[option]
            fits = result.per_gpu.total_gib <= capacity * TIGHT
            key = ("case.memory.asked_yes" if fits else "case.memory.asked_no") if not answers else ("case.memory.then_yes" if fits else "case.memory.then_no")
            answers.append(say(key, lang, option=describe(variant.steps, lang, job.gpus), after=gib(result.per_gpu.total_gib), **values))
    if answers:
        return " ".join(answers)
    described = "" if what is None else "_described"
    if verdict == "no":
        return say(f"case.memory.does_not_fit{described}", lang, **values)
    if verdict == "tight":
        return say(f"case.memory.tight{described}", lang, **values)
    return say("case.memory.fits_but_oom" if oom else f"case.memory.fits{described}", lang, **values)  # an OOM that should fit says so


def _oom_reading(ctx: Context, case, lang: str, capacity: float) -> list[str]:
    """What the OOM line's own figures say: memory held but unused (fragmentation), or a card really full."""
    reserved, allocated = case.get("oom_reserved_gib"), case.get("oom_allocated_gib")
    unallocated = case.get("oom_unallocated_gib")
    if unallocated is not None and float(unallocated) > FRAGMENTED * capacity:
        return [say("case.memory.fragmented_new", lang, gap=gib(float(unallocated)))]
    if reserved is None or allocated is None:
        return []
    gap = round(float(reserved) - float(allocated), 2)
    ctx.record("oom-reading", {"reserved_gib": reserved, "allocated_gib": allocated, "capacity_gib": capacity}, {"reserved_minus_allocated_gib": gap})
    if gap > FRAGMENTED * capacity:
        return [say("case.memory.fragmented", lang, reserved=gib(float(reserved)), allocated=gib(float(allocated)), gap=gib(gap))]
    return [say("case.memory.full_card", lang, allocated=gib(float(allocated)), reserved=gib(float(reserved)), total=num(capacity) + " GiB")]
