"""The model a compute budget trains best: "512 H100s for 30 days — what size model, Chinchilla-optimal?".

The compute-optimal tool turns GPUs × time (or GPU-hours) into a FLOPs budget with the training-time
tool's MFU band, then into parameters and tokens at ~20 tokens per parameter. The answer leads with the
typical size and shows the band across MFU; the training-time tool then checks the round trip (that
model on those tokens on those GPUs takes about the time given).
"""

from __future__ import annotations

from service.assistant import consult
from service.assistant.compose.fmt import big, duration, model_label, money, num, pct
from service.assistant.handlers.base import Context, Draft, model_params, model_ref
from service.assistant.handlers.rental import period_days
from service.assistant.handlers.workload import sizing_answer
from service.sizing.cost import cheapest_instance
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.compute_optimal import CHINCHILLA
from service.sizing.work import Ledger, sig
from service.sizing.defaults import DEFAULT_GPU

SPANS_DAYS = (7, 30, 90)
GPU_HOURS_SPAN = 90 * 24  # no time given: the compute-optimal model for a week, a month and a quarter
DATA_ASKS = ("model_size", "budget_tokens")  # "how many tokens should an 8B see", "13B 按 chinchilla 要多少 token"
REFERENCE_GPUS = 8  # GPU-hours of the compute-optimal run, on one 8-GPU node of the default card (they barely change with the count)
# A published run counts as over-trained, and is worth naming next to the compute-optimal figure, at 5x the Chinchilla ratio or more.
OVERTRAINED_RATIO = 5 * consult.TOKENS_PER_PARAM


def _budget(ctx: Context) -> tuple[int, float, str | None] | None:
    """(GPUs, hours, how a money budget became GPU-hours) from "512 H100 for 30 days", "500k H100 GPU-hours" or
    "$100k at $2.5 per GPU-hour"."""
    s = ctx.slots
    days = period_days(ctx.text)
    if s.gpus and days:
        return s.gpus, days * 24, None
    if s.gpus and s.deadline_hours:
        return s.gpus, s.deadline_hours, None
    bought = None if s.gpu_hours else _bought_gpu_hours(ctx)
    gpu_hours, note = (s.gpu_hours, None) if s.gpu_hours else (bought or (None, None))
    if gpu_hours:
        gpus = s.gpus or 1
        while not s.gpus and gpu_hours / gpus > GPU_HOURS_SPAN:
            gpus = 8 if gpus == 1 else gpus * 2  # GPU-hours alone: the same FLOPs, shown on a cluster that spends them within a quarter
        return gpus, gpu_hours / gpus, note
    return None


def _bought_gpu_hours(ctx: Context) -> tuple[float, str] | None:
    """"$100k at $2.5 per H100-hour": the GPU-hours a money budget buys, at the user's rate or the cheapest listed one."""
    s = ctx.slots
    if not s.budget:
        return None
    currency = s.currency or ("CNY" if ctx.lang == "zh" else "USD")
    price, source = s.cloud_price_per_gpu_hour, "you"
    if not price:
        listed = cheapest_instance(ctx.catalog, s.gpu or DEFAULT_GPU, currency=currency)
        if listed is None:
            return None
        price, source = listed.price_per_gpu_hour, f"{listed.provider} {listed.name}"
    gpu_hours = s.budget / price
    ctx.record("budget-gpu-hours", {"budget": s.budget, "currency": currency, "price_per_gpu_hour": price, "price_from": source},
               {"gpu_hours": gpu_hours})
    key = "compute_optimal_budget.bought_hours" if source == "you" else "compute_optimal_budget.bought_hours_listed"
    return gpu_hours, say(key, ctx.lang, budget=money(s.budget, currency), price=money(price, currency), hours=f"{gpu_hours:,.0f}",
                          gpu=ctx.catalog.gpus[s.gpu or DEFAULT_GPU].name, source=source)


def compute_optimal_answer(ctx: Context) -> Draft | None:
    if ctx.understanding.ask != "model_size" or "compute_optimal_size" not in ctx.understanding.evidence or ctx.slots.model or ctx.slots.params_b:
        return None
    budget = _budget(ctx)
    if budget is None:
        return _by_duration(ctx) if ctx.slots.gpus else None
    gpus, hours, bought_note = budget
    lang, s = ctx.lang, ctx.slots
    gpu_id = s.gpu or DEFAULT_GPU
    result, error = ctx.try_run("compute-optimal", {"gpu": gpu_id, "gpus": gpus, "hours": hours, "precision": s.precision})
    if result is None:
        return None
    gpu = ctx.catalog.gpus[result.gpu].name
    p, t, f, m = result.params_b, result.tokens, result.flops, result.mfu
    blocks = [
        LeadBlock(
            text=say(
                "compute_optimal.lead",
                lang,
                gpus=result.gpus,
                gpu=gpu,
                time=duration(result.hours, lang),
                params=num(p.typical),
                tokens=big(t.typical, lang),
                flops=f"{f.typical:.3g}",
                mfu=pct(m.typical),
                low=num(p.low),
                high=num(p.high),
            )
        )
    ]
    if bought_note:
        blocks.append(NoticeBlock(kind="assumption", text=bought_note))
    if not s.gpu:
        blocks.append(NoticeBlock(kind="info", text=say("compute_optimal.default_gpu", lang, gpu=gpu)))
    columns = [
        TableColumn(key="mfu", label=say("compute_optimal.col_mfu", lang), align="right"),
        TableColumn(key="flops", label=say("compute_optimal.col_flops", lang), align="right"),
        TableColumn(key="params", label=say("compute_optimal.col_params", lang), align="right"),
        TableColumn(key="tokens", label=say("compute_optimal.col_tokens", lang), align="right"),
    ]
    rows = [
        [
            TableCell(text=pct(getattr(m, k)), value=getattr(m, k)),
            TableCell(text=f"{getattr(f, k):.3g}", value=getattr(f, k)),
            TableCell(text=f"{num(getattr(p, k))}B", value=getattr(p, k)),
            TableCell(text=big(getattr(t, k), lang), value=getattr(t, k)),
        ]
        for k in ("low", "typical", "high")
    ]
    blocks.append(TableBlock(columns=columns, rows=rows))
    works = [(result.tool, result.work)]
    check, _ = ctx.try_run(
        "training-time", {"params_b": p.typical, "tokens": t.typical, "gpu": result.gpu, "gpus": result.gpus, "precision": result.precision, "seq_len": 4096}
    )
    if check is not None:
        blocks.append(
            ParagraphBlock(
                text=say("compute_optimal.round_trip", lang, params=num(p.typical), tokens=big(t.typical, lang), time=duration(check.hours.typical, lang))
            )
        )
        works.append((check.tool, check.work))
    blocks.append(ParagraphBlock(text=say("compute_optimal.advice", lang)))
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2, topics=["compute"]),
        works=works,
        follow_ups=[say("compute_optimal.follow_time", lang), say("compute_optimal.follow_cost", lang)],
    )


def _by_duration(ctx: Context) -> Draft | None:
    """GPUs but no time ("how big a model should we pretrain on 64 H100s?"): the answer for a week, a month, a quarter."""
    lang, s = ctx.lang, ctx.slots
    gpu_id = s.gpu or DEFAULT_GPU
    results = []
    for days in SPANS_DAYS:
        result, _ = ctx.try_run("compute-optimal", {"gpu": gpu_id, "gpus": s.gpus, "hours": days * 24, "precision": s.precision})
        if result is None:
            return None
        results.append(result)
    gpu = ctx.catalog.gpus[results[0].gpu].name
    month = results[1]
    blocks = [
        LeadBlock(
            text=say(
                "compute_optimal.by_duration_lead",
                lang,
                gpus=month.gpus,
                gpu=gpu,
                time=duration(month.hours, lang),
                params=num(month.params_b.typical),
                tokens=big(month.tokens.typical, lang),
            )
        )
    ]
    if not s.gpu:
        blocks.append(NoticeBlock(kind="info", text=say("compute_optimal.default_gpu", lang, gpu=gpu)))
    columns = [
        TableColumn(key="time", label=say("compute_optimal.col_time", lang)),
        TableColumn(key="flops", label=say("compute_optimal.col_flops", lang), align="right"),
        TableColumn(key="params", label=say("compute_optimal.col_params", lang), align="right"),
        TableColumn(key="tokens", label=say("compute_optimal.col_tokens", lang), align="right"),
    ]
    rows = [
        [
            TableCell(text=duration(r.hours, lang), value=r.hours),
            TableCell(text=f"{r.flops.typical:.3g}", value=r.flops.typical),
            TableCell(text=f"{num(r.params_b.typical)}B", value=r.params_b.typical),
            TableCell(text=big(r.tokens.typical, lang), value=r.tokens.typical),
        ]
        for r in results
    ]
    blocks += [
        TableBlock(columns=columns, rows=rows),
        NoticeBlock(kind="info", text=say("compute_optimal.mfu_note", lang, mfu=pct(month.mfu.typical))),
        ParagraphBlock(text=say("compute_optimal.advice", lang)),
    ]
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(k=2),
        works=[(month.tool, month.work)],
        follow_ups=[say("compute_optimal.follow_time", lang), say("compute_optimal.follow_cost", lang)],
    )


def compute_optimal_run(ctx: Context) -> Draft | None:
    """"13B by Chinchilla, how long on 256 A100s?": the model is given, so the compute-optimal quantity is its data
    (~20 tokens per parameter), and the question is that run's time on the cluster named: the training-time answer
    with the tokens stated as the assumption."""
    s = ctx.slots
    if ctx.understanding.ask != "model_size" or not (s.model or s.params_b) or s.tokens or s.samples or not (s.gpus or s.nodes):
        return None
    params = model_params(ctx)
    if params is None:
        return None
    tokens = consult.compute_optimal_tokens(params)
    ctx.record("compute-optimal-data", {"params": params, "tokens_per_param": consult.TOKENS_PER_PARAM}, {"tokens": tokens})
    slots = s.model_copy(update={"tokens": tokens, "task": "pretrain", "method": "full"})
    ctx.understanding = ctx.understanding.model_copy(update={"slots": slots, "ask": "time"})
    draft = sizing_answer(ctx)
    if draft.clarification is None:
        name = model_label(ctx.catalog, s.model, params / 1e9)
        at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
        draft.blocks.insert(at, NoticeBlock(kind="assumption", text=say("consult.chinchilla", ctx.lang, tokens=big(tokens, ctx.lang), model=name)))
    return draft


def compute_optimal_data(ctx: Context) -> Draft | None:
    """"How many tokens should I pre-train an 8B on?", "70B 按 Chinchilla 该喂多少数据": a model, no cluster, no data size.

    The compute-optimal quantity of a given model is its data: ~20 tokens per parameter (Hoffmann et al. 2022). The
    answer leads with that number, shows it and the run's compute (training-compute) and GPU-hours on the default card
    (training-time), then says what practitioners do instead: small models are trained far past it to serve cheaper,
    with a published run from the catalog, and its source, as the example."""
    s = ctx.slots
    if ctx.understanding.ask not in DATA_ASKS or not (s.model or s.params_b):
        return None
    if s.tokens or s.samples or s.gpus or s.nodes or s.gpu_hours or s.budget or s.deadline_hours:
        return None  # a cluster, a budget or a deadline: the compute-optimal run on it, or the budget's model (above)
    if s.task in ("fine-tune", "inference") or s.method in ("lora", "qlora"):
        return None  # fine-tuning data is not a Chinchilla question
    params = model_params(ctx)
    if params is None:
        return None
    lang = ctx.lang
    tokens = consult.compute_optimal_tokens(params)
    ledger = Ledger()
    ledger.given("params", params)
    ratio = ledger.default("tokens_per_param", consult.TOKENS_PER_PARAM, "tokens", "Chinchilla: ~20 tokens per parameter")
    ledger.step("tokens", "tokens_per_param · params", tokens, "tokens")
    ledger.cite(CHINCHILLA.title, CHINCHILLA.url)
    ctx.record("compute-optimal-data", {"params": params, "tokens_per_param": ratio}, {"tokens": tokens})
    compute, _ = ctx.try_run("training-compute", {**model_ref(ctx), "tokens": tokens})
    if compute is None:
        return None
    name = ctx.catalog.models[s.model].name if s.model in ctx.catalog.models else say("compute_optimal_data.unnamed", lang, size=big(params, lang))
    gpu_id = s.gpu or DEFAULT_GPU
    blocks: list = [
        LeadBlock(text=say("compute_optimal_data.lead", lang, tokens=big(tokens, lang), model=name, ratio=num(ratio), params=big(params, lang))),
        ParagraphBlock(text=say("compute_optimal_data.why", lang, ratio=num(ratio), tokens=big(tokens, lang), params=big(params, lang),
                                flops=f"{compute.flops_6nd:.3g}")),
    ]
    works = [("compute-optimal-data", ledger.work()), (compute.tool, compute.work)]
    timing, _ = ctx.try_run("training-time", {**model_ref(ctx), "tokens": tokens, "gpu": gpu_id, "gpus": REFERENCE_GPUS, "precision": s.precision})
    if timing is not None:
        blocks.append(ParagraphBlock(text=say("compute_optimal_data.gpu_hours", lang, gpu=ctx.catalog.gpus[timing.gpu].name,
                                              gpu_hours=big(timing.gpu_hours.typical, lang), mfu=pct(timing.mfu.typical))))
        works.append((timing.tool, timing.work))
    blocks.append(ParagraphBlock(text=_overtrained_note(ctx, params)))
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(say("compute_optimal_data.query", lang), k=2),
        works=works,
        follow_ups=[say("compute_optimal_data.follow_time", lang), say("compute_optimal_data.follow_budget", lang)],
    )


def _overtrained_note(ctx: Context, params: float) -> str:
    """Current small models are trained far past 20 tokens per parameter: a published run from the catalog, with its
    source, when one of about this size was (the model asked about first); otherwise the same point without a figure."""
    lang, catalog = ctx.lang, ctx.catalog
    runs = {k: m for k, m in catalog.models.items() if m.pretraining_tokens and m.pretraining_tokens / (m.params_b * 1e9) >= OVERTRAINED_RATIO}
    pick = ctx.slots.model if ctx.slots.model in runs else None
    if pick is None:
        near = [k for k, m in runs.items() if 0.5 <= m.params_b * 1e9 / params <= 2]
        pick = min(near, key=lambda k: abs(runs[k].params_b * 1e9 - params), default=None)
    if pick is None:
        return say("compute_optimal_data.overtrained", lang)
    model = runs[pick]
    per_param = sig(model.pretraining_tokens / (model.params_b * 1e9), 3)
    source = next((src for src in model.sources if "config" not in src.title.lower()), model.sources[0])
    ctx.record("published-pretraining-tokens", {"model": pick}, {"tokens": model.pretraining_tokens, "params_b": model.params_b,
                                                                  "tokens_per_param": per_param, "source": source.title, "url": source.url})
    return say("compute_optimal_data.overtrained_example", lang, model=model.name, tokens=big(model.pretraining_tokens, lang),
               per_param=num(per_param), url=source.url)
