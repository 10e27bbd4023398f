"""How many GPUs a model needs to be served: "DeepSeek-V3 要几张 H20？", "how many H100s to serve Llama 3 405B?".

The answer is a count, never "it does not fit on one". For each weight format worth considering on the card (16-bit,
FP8 where the card computes in FP8, INT4 with AWQ/GPTQ), the inference tool is run at tensor-parallel sizes 1, 2, 4, 8
and then whole 8-GPU nodes until the model and the KV cache of the stated (or one) sequence fit: the smallest such
count is the answer for that format. The table shows every format; the lead names the smallest count that keeps
16-bit or FP8 quality, with INT4 as the cheaper option.
"""

from __future__ import annotations

import re

from service.assistant import consult
from service.assistant.compose.fmt import model_label, num
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.messages import say
from service.contract import LeadBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.defaults import DEFAULT_GPU

COUNT_WORDS = re.compile(r"how many|多少\s*(?:张|块|个|台)|几\s*(?:张|块|个|台)|要几|需要几|多少卡|number of (?:gpus|cards)", re.I)
COUNTS = (1, 2, 4, 8, 16, 24, 32, 48, 64)
NODE_GPUS = 8


def asks(ctx: Context) -> bool:
    s = ctx.slots
    serving = s.task == "inference" or (s.task is None and consult.cue("serving", ctx.text))
    # A load (users, concurrency) is the serving plan's question; "which GPUs and how many" with no card named is a choice.
    load = s.concurrency or s.users
    choice = s.gpu is None and consult.cue("which_cards", ctx.text)
    if consult.cue("concurrency_asked", ctx.text):
        return False  # "how many requests fit on the card": sequences at once, not a GPU count
    return bool((s.model or s.params_b) and serving and s.gpus is None and not load and not choice and COUNT_WORDS.search(ctx.text))


def _formats(ctx: Context, gpu_id: str) -> list[str]:
    gpu = ctx.catalog.gpus[gpu_id]
    formats = ["bf16" if gpu.dense_tflops("bf16") else "fp16"]
    if gpu.supports_fp8:
        formats.append("fp8")
    return [*formats, "int4"]


def answer(ctx: Context) -> Draft | None:
    if not asks(ctx):
        return None
    s, lang = ctx.slots, ctx.lang
    gpu_id = s.gpu or DEFAULT_GPU
    found = []
    for fmt in [s.weights] if s.weights else _formats(ctx, gpu_id):
        for count in COUNTS:
            result, _ = ctx.try_run(
                "inference", {**model_ref(ctx), "gpu": gpu_id, "gpus": count, "weights": fmt, "concurrency": s.concurrency or 1, "context_len": s.context_len}
            )
            if result is None:
                break
            if result.fit != "does_not_fit":
                found.append((fmt, count, result))
                break
    if not found:
        return None
    quality = [f for f in found if f[0] != "int4"] or found
    fmt, count, best = min(quality, key=lambda f: f[1])
    gpu = ctx.catalog.gpus[gpu_id]
    name = model_label(ctx.catalog, best.model, best.params_b)
    nodes = -(-count // NODE_GPUS)
    lead = say(
        "serving_count.lead",
        lang,
        model=name,
        n=count,
        gpu=gpu.name,
        fmt=fmt.upper(),
        nodes=nodes,
        weights=num(best.weights_gib),
        per_gpu=num(best.per_gpu_total_gib),
        memory=num(gpu.memory_gb),
    )
    columns = [
        TableColumn(key="format", label=say("serving_count.col_format", lang)),
        TableColumn(key="gpus", label=say("serving_count.col_gpus", lang), align="right"),
        TableColumn(key="weights", label=say("serving_count.col_weights", lang), align="right"),
        TableColumn(key="per_gpu", label=say("serving_count.col_per_gpu", lang), align="right"),
    ]
    rows = [
        [
            TableCell(text=f.upper()),
            TableCell(text=str(c), value=c),
            TableCell(text=f"{num(r.weights_gib)} GiB", value=r.weights_gib),
            TableCell(text=f"{num(r.per_gpu_total_gib)} GiB", value=r.per_gpu_total_gib),
        ]
        for f, c, r in found
    ]
    blocks = [
        LeadBlock(text=lead),
        TableBlock(columns=columns, rows=rows),
        ParagraphBlock(text=say("serving_count.how", lang, concurrency=best.concurrency, context=f"{best.context_len:,}")),
        ParagraphBlock(text=say("serving_count.advice", lang)),
    ]
    # The same deployment as a tiered recommendation (16-bit weights on the count they need), for channels that show tiers.
    plan, _ = ctx.try_run(
        "recommend", {**model_ref(ctx), "task": "inference", "method": "full", "gpu": gpu_id, "gpus": found[0][1], "concurrency": best.concurrency}
    )
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2, topics=["inference"]),
        works=[(best.tool, best.work)],
        recommendation=plan.model_dump(mode="json") if plan is not None else None,
        follow_ups=[say("serving_count.follow_users", lang), say("serving_count.follow_speed", lang)],
    )
