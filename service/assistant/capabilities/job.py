"""The job a case describes, as the sizing tools take it: every stated fact passed on, nothing re-read from the text.

Prose slots (what the user wrote in words) and artefact facts (what the pasted command, config or log says) are
merged here once; an artefact's value wins over a prose default because it is what actually ran. The facts used are
recorded as one tool call ("read-case"), so each figure they put in an answer is traceable to the message line.
"""

from __future__ import annotations

from typing import Any

from service.assistant.handlers.base import Context
from service.understanding.case import Case, nominal_memory_gib

TRAINING_FACTS = ("model_id", "params_b", "gpus_total", "nodes_total", "sharding", "offload", "method", "precision", "train_seq_len",
                  "job_micro_batch", "grad_accum", "tp", "pp", "gradient_checkpointing", "lora_rank", "optimizer", "card_memory_gib", "load_in_8bit",
                  "gpu_variant")
SERVING_FACTS = ("model_id", "params_b", "engine", "tp", "pp", "max_model_len", "gpu_memory_utilization", "max_num_seqs", "kv_cache_dtype",
                 "quantization", "precision", "card_memory_gib", "enforce_eager", "max_num_batched_tokens")
OPTIMIZERS = {"adamw_8bit": "adamw-8bit", "paged_adamw_8bit": "adamw-8bit", "adamw_bnb_8bit": "adamw-8bit", "adam8bit": "adamw-8bit",
              "adafactor": "adafactor", "sgd": "sgd-momentum"}


def engine_of(ctx: Context) -> str | None:
    """The serving engine the case runs: the pasted command's, else the one the prose names."""
    case = case_of(ctx)
    engine = case.get("engine")
    if engine:
        return str(engine)
    named = case.mentions("engine")
    return named[0] if named else None


def case_of(ctx: Context) -> Case:
    return getattr(ctx.understanding, "case", None) or Case(prose=ctx.text)


def record_facts(ctx: Context, names: tuple[str, ...]) -> dict[str, Any]:
    """The case's facts among `names`, recorded once as a tool call so the figures they give are grounded and shown."""
    case = case_of(ctx)
    used = {name: case.fact(name) for name in names if case.fact(name) is not None}
    if used and not any(call.tool == "read-case" for call in ctx.tool_calls):
        ctx.record("read-case", {name: fact.quote for name, fact in used.items()},
                   {name: fact.value for name, fact in used.items()} | {f"{name}.line": fact.line for name, fact in used.items()})
    return {name: fact.value for name, fact in used.items()}


def model_payload(ctx: Context, facts: dict[str, Any]) -> dict[str, Any] | None:
    """The model as the tools take it: the catalog id, else a parameter count (artefact first, then the prose)."""
    if facts.get("model_id"):
        return {"model": facts["model_id"]}
    if facts.get("params_b"):
        return {"params_b": facts["params_b"]}
    slots = ctx.slots
    if slots.model:
        return {"model": slots.model}
    if slots.params_b:
        return {"params_b": slots.params_b}
    return None


def card(ctx: Context, facts: dict[str, Any]) -> tuple[str | None, float | None]:
    """(catalog GPU id, the memory to judge the fit against in GiB). The capacity the error reported beats the catalog's size:
    it is what this card really offers (a 40 GB A100 reports 39.4 GiB)."""
    case = case_of(ctx)
    gpu = ctx.slots.gpu or case.get("gpu_id")
    variant = case.get("gpu_variant")
    if variant and (gpu is None or _same_family(ctx, gpu, str(variant))):
        gpu = str(variant)  # "A100 GPUs (40GB)": the memory the user wrote picks the variant the name alone defaults away from
    reported = case.get("oom_total_gib") or case.get("gpu_memory_total_gib")
    capacity = float(reported) if reported else None
    if gpu is None and capacity:
        size = nominal_memory_gib(capacity)
        matches = [g for g in ctx.catalog.gpus.values() if size and abs(g.memory_gb - size) < 0.5]
        # Several cards have that memory: the data-centre SXM part (or the first) stands in; only its memory is used.
        preferred = sorted(matches, key=lambda g: ("sxm" not in g.id, "pcie" in g.id))
        gpu = preferred[0].id if preferred else None
    if capacity is None and gpu is not None:
        capacity = float(ctx.catalog.gpus[gpu].memory_gb) if gpu in ctx.catalog.gpus else None
    return gpu, capacity


def _same_family(ctx: Context, one: str, other: str) -> bool:
    a, b = ctx.catalog.gpus.get(one), ctx.catalog.gpus.get(other)
    return a is not None and b is not None and a.name.split()[1][:4] == b.name.split()[1][:4]


def _launched_sharding(ctx: Context) -> bool:
    """Whether what was pasted says how the job shards (a config or launch flag), so plain DDP is what really ran."""
    case = case_of(ctx)
    return any(f.name in ("zero_stage", "zero_stage_hint", "fsdp_sharding_strategy", "distributed_type", "launcher") and f.parser != "prose" for f in case.facts)


def training_payload(ctx: Context, facts: dict[str, Any]) -> dict[str, Any] | None:
    model = model_payload(ctx, facts)
    if model is None:
        return None
    slots = ctx.slots
    gpus = facts.get("gpus_total") or slots.gpus or 1
    tp, pp = int(facts.get("tp") or 1), int(facts.get("pp") or 1)
    if gpus % (tp * pp):
        tp = pp = 1
    method = facts.get("method") or ("full" if "full" in case_of(ctx).mentions("option") else None) or slots.method or "full"
    int8_base = method == "lora" and ("int8" in case_of(ctx).mentions("option") or facts.get("load_in_8bit") is True)
    payload: dict[str, Any] = {
        **model, "task": "pretrain" if slots.task == "pretrain" else "fine-tune", "method": method if method in ("full", "lora", "qlora") else "full",
        "gpus": int(gpus), "tp": tp, "pp": pp, "sharding": facts.get("sharding") if int(gpus) > 1 else None,
        "offload": facts.get("offload"), "precision": facts.get("precision") or slots.precision,
        "seq_len": facts.get("train_seq_len") or slots.seq_len, "micro_batch": facts.get("job_micro_batch"),
    }
    if payload["sharding"] is None and payload["gpus"] > 1 and payload["method"] == "full" and not _launched_sharding(ctx):
        payload["sharding"] = "zero3"  # a full fine-tune described on several cards is sharded (ZeRO-3/FSDP); the work says it is assumed
    if facts.get("gradient_checkpointing") is True:
        payload["recompute"] = "full"
    elif facts.get("gradient_checkpointing") is False:
        payload["recompute"] = "none"
    if facts.get("lora_rank"):
        payload["lora_rank"] = int(facts["lora_rank"])
    if int8_base:
        payload["lora_base_bits"] = 8
    optimizer = OPTIMIZERS.get(str(facts.get("optimizer", "")).lower())
    if optimizer or slots.optimizer:
        payload["optimizer"] = optimizer or slots.optimizer
    gpu, _ = card(ctx, facts)
    if gpu:
        payload["gpu"] = gpu
    if payload["precision"] == "bf16" and gpu and not ctx.catalog.gpus[gpu].supports_bf16:
        payload["precision"] = "fp16"  # the card refuses bf16; the diagnosis says so, the memory is the same
    return {k: v for k, v in payload.items() if v is not None}
