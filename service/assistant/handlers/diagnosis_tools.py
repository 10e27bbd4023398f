"""What the tools say about the user's own workload when a diagnosis names a signature: the memory a job that ran
out of memory needs (and the cheapest change that fits the card), the KV cache a vLLM start-up error asks for, and
the write bandwidth a slow checkpoint save implies. Each returns blocks to put right after the diagnosis' lead."""

from __future__ import annotations

import re

from service.assistant.compose import fit
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, model_ref
from service.assistant.messages import say
from service.contract import Block, ParagraphBlock


def computed(ctx: Context, signature: str) -> list[Block]:
    handler = {"cuda_oom": _oom_memory, "kv_capacity": _kv_capacity, "checkpoint_stall": _checkpoint_stall}.get(signature)
    return handler(ctx) if handler else []


# "79.15 GiB total capacity" (older PyTorch) or "has a total capacity of 23.65 GiB" (newer) in a CUDA OOM message:
# the card's memory, when the question names no GPU.
CAPACITY = re.compile(r"([\d.]+)\s*GiB total capacity|total capacity of\s*([\d.]+)\s*GiB", re.I)
# "batch 4", "micro-batch=2", "bs 8": the micro-batch of the run that ran out of memory (the slots hold no training batch).
MICRO_BATCH = re.compile(r"(?<![a-z])(?:micro[\s_-]*)?(?:batch(?:[\s_-]*size)?|bs)\s*(?:=|:|of|是|为)?\s*(\d{1,4})(?![\d.kKmMbB])", re.I)
# vLLM's start-up error quotes the longest sequence it was asked to allow and the tokens its KV cache holds.
MAX_SEQ = re.compile(r"max(?:imum)?[\s_-]*(?:seq(?:uence)?|model)[\s_-]*len(?:gth)?\s*\(?\s*(\d{3,8})", re.I)
KV_TOKENS = re.compile(r"stored in KV cache\s*\(\s*(\d{2,10})\s*\)", re.I)


def _oom_memory(ctx: Context) -> list[Block]:
    """An OOM while training a named model: what the training-memory tool says it needs per GPU, and the fixes in order."""
    s = ctx.slots
    if not (s.model or s.params_b) or s.task == "inference":
        return []
    gpu = s.gpu
    capacity = CAPACITY.search(ctx.text)
    if gpu is None and capacity:
        have = float(capacity.group(1) or capacity.group(2)) * 2**30 / 1e9
        fitting = sorted((g for g in ctx.catalog.gpus.values() if abs(g.memory_gb - have) <= 0.1 * g.memory_gb), key=lambda g: abs(g.memory_gb - have))
        gpu = fitting[0].id if fitting else None
    if gpu is None:
        return []
    payload = {
        "model": s.model,
        "params_b": None if s.model else s.params_b,
        "gpu": gpu,
        "gpus": s.gpus or 1,
        "task": "fine-tune" if s.task != "pretrain" else "pretrain",
        "method": s.method or "full",
        "seq_len": s.seq_len,
    }
    batch = MICRO_BATCH.search(ctx.text)
    if batch and 1 <= int(batch.group(1)) <= 4096:
        payload["micro_batch"] = int(batch.group(1))
    result, _ = ctx.try_run("training-memory", payload)
    if result is None:
        return []
    blocks: list[Block] = [fit.breakdown(ctx, result)]
    if result.fit == "does_not_fit":
        rescue = _first_that_fits(ctx, payload, result)
        if rescue is not None:
            blocks.append(rescue)
    return [*blocks, *fit.remedies(ctx, result, "training-memory", payload)]


# The cheapest changes that free memory, tried in order on the user's own card: the first that fits is named.
OOM_LADDER = (
    ("full_recompute", {"recompute": "full"}),
    ("full_recompute_batch_1", {"recompute": "full", "micro_batch": 1}),
    ("qlora", {"method": "qlora", "recompute": "full", "micro_batch": 1}),
)


def _first_that_fits(ctx: Context, payload: dict, failed) -> ParagraphBlock | None:
    for name, change in OOM_LADDER:
        if all(payload.get(k, getattr(failed, k, None)) == v for k, v in change.items()):
            continue  # already what the run does
        if "method" in change and (payload["method"] == change["method"] or payload["task"] == "pretrain"):
            continue  # a method change only for fine-tuning that does not already use it
        result, _ = ctx.try_run("training-memory", {**payload, **change})
        if result is not None and result.fit != "does_not_fit":
            return ParagraphBlock(
                text=say(
                    "diagnose.oom_fits_with",
                    ctx.lang,
                    change=say(f"diagnose.oom_change.{name}", ctx.lang),
                    need=num(result.per_gpu.total_gib),
                    gpu=ctx.catalog.gpus[result.gpu].name,
                    have=num(result.gpu_memory_gib),
                )
            )
    return None


def _kv_capacity(ctx: Context) -> list[Block]:
    """vLLM's "max seq len is larger than the tokens the KV cache can hold": the KV cache one sequence of that length needs
    (inference tool, the model's own shape), against the tokens vLLM says fit, and the settings that close the gap."""
    s = ctx.slots
    if not (s.model or s.params_b):
        return []
    longest = MAX_SEQ.search(ctx.text)
    context = int(longest.group(1)) if longest else s.context_len
    payload = {**model_ref(ctx), "gpu": s.gpu, "gpus": s.gpus or 1, "context_len": context, "weights": s.weights}
    result, _ = ctx.try_run("inference", payload)
    if result is None:
        return []
    blocks: list[Block] = [fit.kv_formula(ctx, result) or fit.kv_total(ctx, result)]
    held = KV_TOKENS.search(ctx.text)
    if held and context:
        tokens = int(held.group(1))
        ctx.record("kv-capacity-gap", {"max_seq_len": context, "kv_cache_tokens": tokens}, {"share_pct": 100 * tokens / context})
        blocks.append(
            ParagraphBlock(text=say("diagnose.kv_capacity_gap", ctx.lang, context=f"{context:,}", tokens=f"{tokens:,}", share=num(100 * tokens / context)))
        )
    blocks.append(ParagraphBlock(text=say("diagnose.kv_capacity_fixes", ctx.lang)))
    return blocks


# "checkpoint saves take 15 min", "存一次 checkpoint 要 20 分钟": the measured save time.
SAVE_TIME = re.compile(r"(\d+(?:\.\d+)?)\s*(?:-\s*\d+\s*)?(min(?:ute)?s?|分钟|s(?:ec(?:ond)?s?)?|秒|h(?:ours?)?|小时)(?![a-z])", re.I)
SECONDS = {"min": 60, "分钟": 60, "秒": 1, "s": 1, "小时": 3600, "h": 3600}


def _checkpoint_stall(ctx: Context) -> list[Block]:
    """A save that blocks training: the checkpoint tool's size for the model, and the write bandwidth the measured save
    time implies, against what asynchronous saving would leave on the critical path."""
    s = ctx.slots
    if not (s.model or s.params_b):
        return []
    result, _ = ctx.try_run("checkpoint", {**model_ref(ctx), "gpus": s.gpus or 8})
    if result is None:
        return []
    blocks: list[Block] = [
        ParagraphBlock(text=say("diagnose.checkpoint_size", ctx.lang, size=num(result.size_gb), shard=num(result.per_gpu_shard_gb), gpus=s.gpus or 8))
    ]
    m = SAVE_TIME.search(ctx.text)
    if m:
        unit = m.group(2).lower()
        seconds = float(m.group(1)) * next(v for k, v in SECONDS.items() if unit.startswith(k))
        if seconds >= 1:
            gbps = result.size_gb / seconds
            ctx.record("checkpoint-write-rate", {"size_gb": result.size_gb, "save_seconds": seconds}, {"effective_write_gbps": gbps})
            blocks.append(ParagraphBlock(text=say("diagnose.checkpoint_rate", ctx.lang, gbps=num(gbps), seconds=num(seconds))))
    blocks.append(ParagraphBlock(text=say("diagnose.checkpoint_fixes", ctx.lang)))
    return blocks
