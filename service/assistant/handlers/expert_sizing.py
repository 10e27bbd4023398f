"""What an expert adds around three single sizing questions.

- Checkpoint size: the storage to provision for the checkpoints kept (K × size), not only one checkpoint.
- Pre-training a small model from scratch on the GPUs named, no token count: compute-optimal data (20 tokens per
  parameter, Chinchilla), the training time on those GPUs, and whether the training state fits.
- Single-user decode speed on given GPUs: decode is memory-bandwidth bound, so the ceiling is the tensor-parallel
  aggregate bandwidth ÷ bytes read per token, from the inference tool's work and the catalog's bandwidth.

Every number is a tool output or recorded here as a derived value, so grounding can find it.
"""

from __future__ import annotations

import re

from service.assistant import consult
from service.assistant.compose import fit, sizing
from service.assistant.compose.fmt import big, duration_band, gib, num
from service.assistant.compose.work import warnings
from service.assistant.handlers.base import Context, Draft, model_params, model_ref
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.defaults import DEFAULT_GPU

KEEP_DEFAULT = 3  # a rolling window of the last few checkpoints (stated to the user as an assumption)
KEEP = re.compile(
    r"(?:keep(?:ing)?|retain(?:ing)?|保留|留)\s*(?:the\s+)?(?:last\s+|latest\s+|最近\s*)?(\d{1,3})\s*"
    r"(?:个|份|checkpoints?|ckpts?|copies|versions|of them)?(?!\d|\.\d)",
    re.I,
)
DECODE = re.compile(
    r"tokens?\s*/\s*s|tok/s|tokens? per second|每秒.{0,6}token|一秒.{0,8}token|秒.{0,4}出.{0,6}token|解码速度|生成速度|出字速度|decode speed|decoding speed|"
    r"generation speed|ms per (?:output )?token|(?:single|one) user|单(?:个)?用户|一个用户|batch(?: size)?\s*(?:=\s*)?1\b",
    re.I,
)
TP_SIZES = (1, 2, 4, 8)



# -- checkpoint storage ------------------------------------------------------------
def checkpoint_storage(ctx: Context, result) -> list:
    """The storage to provision: K checkpoints kept × the checkpoint size (K from the question, else an assumption)."""
    found = KEEP.search(ctx.text)
    keep = int(found.group(1)) if found and 0 < int(found.group(1)) <= 100 else KEEP_DEFAULT
    total = keep * result.size_gb
    gpus = ctx.slots.gpus or 8
    ctx.record(
        "checkpoint-storage",
        {"checkpoint_gb": result.size_gb, "checkpoints_kept": keep, "gpus": gpus},
        {"storage_gb": total, "storage_tb": total / 1000, "per_gpu_shard_gb": result.per_gpu_shard_gb},
    )
    blocks: list = [
        ParagraphBlock(
            text=say(
                "expert_s.checkpoint_storage",
                ctx.lang,
                keep=keep,
                total=num(total),
                tb=num(total / 1000),
                size=num(result.size_gb),
                shard=num(result.per_gpu_shard_gb),
                gpus=gpus,
            )
        )
    ]
    if found is None:
        blocks.append(NoticeBlock(kind="assumption", text=say("expert_s.checkpoint_keep_assumed", ctx.lang, keep=keep)))
    return blocks


# -- pre-training a small model on the GPUs named ------------------------------------

# Quantities a sizing question can ask about a pre-training run other than its time or its GPUs.
OTHER_QUANTITIES = ("checkpoint", "allreduce", "data_loader", "nccl", "cost")


def pretrain_on_gpus(ctx: Context) -> Draft | None:
    """ "Train a 1B from scratch on one 4090, how long?": compute-optimal tokens, the time on those GPUs, the fit."""
    s, lang = ctx.slots, ctx.lang
    pretraining = s.task == "pretrain" or (s.task is None and consult.cue("from_scratch", ctx.text))
    params = model_params(ctx)
    if not pretraining or params is None or not (s.gpu or s.gpus) or s.tokens or s.samples or s.deadline_hours or s.budget or s.nodes:
        return None
    if ctx.understanding.ask in OTHER_QUANTITIES:
        return None  # "how big is each checkpoint?" about that pre-training run: the quantity asked, not the run's time
    if consult.cue("fine_tune", ctx.text):
        return None
    gpu, gpus = s.gpu or DEFAULT_GPU, s.gpus or 1
    tokens = consult.compute_optimal_tokens(params)
    ctx.record("compute-optimal-data", {"params": params, "tokens_per_param": consult.TOKENS_PER_PARAM}, {"tokens": tokens})
    timing, _ = ctx.try_run("training-time", {**model_ref(ctx), "tokens": tokens, "gpu": gpu, "gpus": gpus})
    if timing is None:
        return None
    memory, _ = ctx.try_run(
        "training-memory", {**model_ref(ctx), "task": "pretrain", "method": "full", "gpu": gpu, "gpus": gpus, **({"sharding": "zero3"} if gpus > 1 else {})}
    )
    model, name = sizing.model_name(ctx.catalog, timing.model), sizing.gpu_name(ctx.catalog, gpu)
    lead = say(
        "expert_s.pretrain_lead",
        lang,
        model=model,
        gpus=gpus,
        gpu=name,
        tokens=big(tokens, lang),
        time=duration_band(timing.hours, lang),
        gpu_hours=big(timing.gpu_hours.typical, lang),
        mfu=f"{timing.mfu.typical:.0%}",
    )
    blocks: list = [LeadBlock(text=lead), NoticeBlock(kind="assumption", text=say("consult.chinchilla", lang, tokens=big(tokens, lang), model=model))]
    works = [(timing.tool, timing.work)]
    if memory is not None and memory.fit:
        blocks.append(
            ParagraphBlock(
                text=f"{fit.verdict(memory.fit, lang)} "
                + say(
                    "expert_s.pretrain_fit",
                    lang,
                    need=gib(memory.per_gpu.total_gib),
                    have=gib(memory.gpu_memory_gib),
                    gpu=name,
                    fit=sizing.FIT[lang if lang == "zh" else "en"][memory.fit],
                )
            )
        )
        blocks.append(fit.breakdown(ctx, memory))
        works.append((memory.tool, memory.work))
    blocks += [*sizing.blocks(timing, lang, ctx.catalog, lead=False)[1:], ParagraphBlock(text=say("expert_s.pretrain_advice", lang))]
    blocks += warnings(timing.work, lang)
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2, topics=["utilization", "parallelism"]),
        works=works,
        follow_ups=[say("expert_s.follow_more_gpus", lang), say("workload.follow_cost", lang)],
    )


# -- single-user decode speed ---------------------------------------------------------
def asks_decode_speed(ctx: Context) -> bool:
    s = ctx.slots
    # "QLoRA on 70B, seq 2048, batch 1": a training batch, not one user decoding
    training = s.task in ("fine-tune", "pretrain") or s.method is not None
    return bool((s.model or s.params_b) and (s.concurrency or 1) == 1 and DECODE.search(ctx.text) and not training) \
        and ctx.understanding.intent != "claim_check"


def decode_speed(ctx: Context) -> Draft | None:
    """Tokens/s for one sequence: the inference tool's estimate, with the bandwidth ceiling it comes from."""
    if not asks_decode_speed(ctx):
        return None
    s, lang = ctx.slots, ctx.lang
    gpu_id = s.gpu or DEFAULT_GPU
    gpu = ctx.catalog.gpus.get(gpu_id)
    if gpu is None:
        return None
    weights = s.weights or (s.precision if s.precision in ("fp16", "bf16", "fp8") else None)
    result = None
    for gpus in [s.gpus] if s.gpus else TP_SIZES:
        result, _ = ctx.try_run(
            "inference", {**model_ref(ctx), "gpu": gpu_id, "gpus": gpus, "concurrency": 1, "weights": weights, "context_len": s.context_len}
        )
        if result is not None and result.fit != "does_not_fit":
            break
    if result is None or not result.decode_tokens_per_second:
        return None
    steps = {step.name: step.value for step in result.work.steps}
    read_gb = steps.get("decode.bytes_per_step", result.weights_gib * 2**30) / 1e9
    bandwidth = gpu.memory_bandwidth_gbps * result.gpus
    ceiling = bandwidth / read_gb
    d = result.decode_tokens_per_second
    ctx.record(
        "decode-ceiling",
        {"gpu": gpu.id, "gpus": result.gpus, "memory_bandwidth_gbps": gpu.memory_bandwidth_gbps, "bytes_per_token_gb": read_gb},
        {"aggregate_bandwidth_gbps": bandwidth, "ceiling_tokens_per_s": ceiling, "typical_ms_per_token": 1000 / d.typical},
    )
    model = sizing.model_name(ctx.catalog, result.model)
    values = {
        "model": model,
        "gpus": result.gpus,
        "gpu": gpu.name,
        "fmt": result.weights_format.upper(),
        "typical": num(d.typical),
        "low": num(d.low),
        "high": num(d.high),
        "ms": num(1000 / d.typical),
        "read": num(read_gb),
        "bw": num(gpu.memory_bandwidth_gbps),
        "agg": num(bandwidth),
        "ceiling": num(ceiling),
        "weights": num(result.weights_gib * 2**30 / 1e9),
    }
    blocks: list = [LeadBlock(text=say("expert_s.decode_lead", lang, **values)), ParagraphBlock(text=say("expert_s.decode_why", lang, **values))]
    if result.gpus > 1:
        blocks.append(
            ParagraphBlock(text=say("claim.decode_tp_pcie" if gpu.scale_up is None else "claim.decode_tp_nvlink", lang, gpus=result.gpus, gpu=gpu.name))
        )
    if result.fit == "does_not_fit":
        blocks.append(NoticeBlock(kind="error", text=say("expert_s.decode_no_fit", lang, **values)))
    blocks.append(ParagraphBlock(text=say("expert_s.decode_batching", lang)))
    blocks += sizing.blocks(result, lang, ctx.catalog, lead=False)[1:]
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2, topics=["inference"]),
        works=[(result.tool, result.work)],
        follow_ups=[say("expert_s.follow_int4", lang), say("consulting.follow_users", lang)],
    )


# -- serving in China: the cards sold there ---------------------------------------------
CHINA = re.compile(r"国内|中国大陆|大陆|境内|in china|mainland china|china region|chinese market|china-based|within china", re.I)
CHINA_CARDS = ("h20", "l20", "a800", "h800", "rtx-4090")


def china_serving(ctx: Context) -> Draft | None:
    """ "Serve a 70B in China": size it on the cards sold there (H20, L20, A800/H800, 4090), Ascend 910B as the domestic option."""
    s, lang = ctx.slots, ctx.lang
    serving = s.task == "inference" or (s.task is None and consult.cue("serving", ctx.text))
    if not (serving and (s.model or s.params_b) and CHINA.search(ctx.text)) or s.gpu:
        return None
    rows = []
    for gpu_id in CHINA_CARDS:
        gpu = ctx.catalog.gpus.get(gpu_id)
        if gpu is None:
            continue
        for gpus in TP_SIZES:
            result, _ = ctx.try_run(
                "inference",
                {**model_ref(ctx), "gpu": gpu_id, "gpus": gpus, "concurrency": s.concurrency or 1, "weights": s.weights, "context_len": s.context_len},
            )
            if result is not None and result.fit != "does_not_fit":
                rows.append((gpu, result))
                break
    if not rows:
        return None
    rows.sort(key=lambda r: (r[1].gpus, -(r[1].decode_tokens_per_second.typical if r[1].decode_tokens_per_second else 0)))
    gpu, best = rows[0]
    model = sizing.model_name(ctx.catalog, best.model)
    columns = [
        TableColumn(key="gpu", label="GPU"),
        TableColumn(key="gpus", label=say("expert_s.china_col_gpus", lang), align="right"),
        TableColumn(key="per_gpu", label=say("expert_s.china_col_memory", lang), align="right"),
        TableColumn(key="decode", label=say("expert_s.china_col_decode", lang), align="right"),
        TableColumn(key="users", label=say("expert_s.china_col_users", lang), align="right"),
    ]
    table = TableBlock(
        columns=columns,
        rows=[
            [
                TableCell(text=g.name),
                TableCell(text=str(r.gpus), value=r.gpus),
                TableCell(text=f"{num(r.per_gpu_total_gib)} / {num(r.gpu_memory_gib)} GiB", value=r.per_gpu_total_gib),
                TableCell(
                    text=num(r.decode_tokens_per_second.typical) if r.decode_tokens_per_second else "—",
                    value=r.decode_tokens_per_second.typical if r.decode_tokens_per_second else None,
                ),
                TableCell(text=str(r.max_concurrency or "—"), value=r.max_concurrency),
            ]
            for g, r in rows
        ],
    )
    blocks = [
        LeadBlock(
            text=say(
                "expert_s.china_lead",
                lang,
                model=model,
                gpus=best.gpus,
                gpu=gpu.name,
                fmt=best.weights_format.upper(),
                memory=num(gpu.memory_gb),
                bw=num(gpu.memory_bandwidth_gbps),
            )
        ),
        ParagraphBlock(text=say("expert_s.china_why", lang)),
        table,
        ParagraphBlock(text=say("expert_s.china_ascend", lang)),
    ]
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2, topics=["inference", "gpu-selection"]),
        works=[(best.tool, best.work)],
        follow_ups=[say("expert_s.follow_int4", lang), say("consulting.follow_users", lang)],
    )


def states_on_their_gpus(ctx: Context, *, plan_follows: bool = True) -> list | None:
    """"Can 4x A100 40GB fully fine-tune a 13B?": the plan on their GPUs, and where the memory goes on them: the
    whole model's states in GB, then each GPU's share once sharded (ZeRO-3/FSDP)."""
    s = ctx.slots
    if not (s.gpu and (s.gpus or 1) > 1 and (s.model or s.params_b)) or s.task == "inference":
        return None
    payload = {**model_ref(ctx), "task": s.task or "fine-tune", "method": s.method or "full", "gpu": s.gpu, "gpus": s.gpus,
               "sharding": "zero3", "seq_len": s.seq_len, "precision": s.precision}
    result, _ = ctx.try_run("training-memory", {k: v for k, v in payload.items() if v is not None})
    if result is None or result.per_gpu is None or result.fit is None:
        return None
    method = say("workload.method_full", ctx.lang).lower() if result.method == "full" else {"lora": "LoRA", "qlora": "QLoRA"}.get(
        result.method, result.method.upper())
    gpu = ctx.catalog.gpus[s.gpu].name if s.gpu in ctx.catalog.gpus else s.gpu
    key = "fit_on_gpus.does_not_fit" if result.fit == "does_not_fit" else "fit_on_gpus.fits"
    if not plan_follows:  # no plan for another method follows: the verdict does not promise one
        key = key.replace("fit_on_gpus.", "s2.states_")
    p = result.per_gpu
    states = (p.weights_gib + p.gradients_gib + p.optimizer_gib) * result.gpus  # sharded: each GPU holds 1/N of them
    ctx.record("model-states-total", {"weights_gib": p.weights_gib, "gradients_gib": p.gradients_gib, "optimizer_gib": p.optimizer_gib,
                                      "gpus": result.gpus}, {"states_gib": states, "states_gb": states * 2**30 / 1e9})
    verdict = say(key, ctx.lang, method=method, gpus=result.gpus, gpu=gpu, total=num(p.total_gib), states=num(states),
                  states_gb=num(states * 2**30 / 1e9))
    return [LeadBlock(text=verdict), fit.breakdown(ctx, result)]
