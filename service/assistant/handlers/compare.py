"""GPU comparisons that end in a verdict.

A data-sheet ratio is not an answer to "which should we get?". The verdict runs the same job on
every card with the sizing tools, so the speed-up already carries the MFU each class of GPU
reaches in published runs (small models keep Hopper less busy, PCIe-only cards lose to
communication), then prices that job at each card's cheapest listed rate (service/sizing/job_cost.py): the price
of the whole job (time × GPUs × the dated price per GPU-hour, with the time's band), not of a rented
hour, and the cards are listed cheapest job first, with the spot (and reserved) price beside the
on-demand one where the catalog lists it. Memory fit for the user's workload decides first.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.assistant.compose import extract, sizing
from service.assistant.compose.fmt import big, duration, link_name, memory_bandwidth, model_label, money, num
from service.assistant.handlers import card_capacity
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.messages import say
from service.contract import BulletsBlock, LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.cost import DEFAULT_FX_CNY_PER_USD, cheapest_instance
from service.sizing.compute import Band
from service.sizing.job_cost import JobCost, price_job
from service.sizing.defaults import DEFAULT_GPU
from service.sizing.work import Ledger, sig

MAX_GPUS = 4
# The job a verdict prices when the user named none: a 7B model on a billion tokens, on one 8-GPU node.
REFERENCE_JOB = {"params_b": 7.0, "tokens": 1e9}
REFERENCE_GPUS = 8
SERVING_REFERENCE_MODEL = "llama-3.1-8b"
SAME_SPEED = 1.05  # closer than this, the tools' MFU bands cannot tell the cards apart


@dataclass
class Contender:
    gpu: str
    name: str
    hours: float  # the job's wall-clock hours at typical MFU (training), or hours per million decoded tokens (serving)
    gpus: int
    price: float | None  # cheapest listed on-demand USD per GPU-hour
    fits: bool = True
    job: JobCost | None = None  # the job's cost band at that price, and at the spot / reserved prices the catalog lists

    @property
    def job_cost(self) -> float | None:
        if self.job is not None:
            return self.job.cost.typical
        return None if self.price is None else self.price * self.gpus * self.hours


def _priced(ctx: Context, gpu_id: str, name: str, gpus: int, hours: Band, draft: Draft) -> Contender:
    """A card's job priced per GPU-hour at its cheapest listed on-demand rate, the other listed pricings beside it;
    each price's instance, region, date and source go into the answer's work."""
    ledger = Ledger()
    job = price_job(ctx.catalog, gpu_id, gpus, hours, "mfu-band", "on-demand", "USD", DEFAULT_FX_CNY_PER_USD, ledger, per_gpu=True)
    if job is not None:
        draft.works.append((f"job cost ({gpu_id})", ledger.work()))
    price = job.prices[0].price.price_per_gpu_hour if job else None
    return Contender(gpu_id, name, hours.typical, gpus, price, job=job)


def _by_job_cost(contenders: list[Contender]) -> list[Contender]:
    """Cheapest job first (not cheapest hour); cards with no listed price last, fastest first."""
    return sorted(contenders, key=lambda c: (c.job_cost is None, c.job_cost or 0.0, c.hours))


def _cost_text(c: Contender, lang: str) -> str:
    """"H100 SXM $3.99/GPU-h → $1,234 ($1,000–$1,600; spot $2.41/GPU-h → $745)": the job's band at the on-demand price,
    and the job at each other pricing the catalog lists."""
    rows = c.job.prices if c.job else []
    if not rows:
        return f"{c.name} {money(c.price, 'USD')}/GPU-h → {money(c.job_cost, 'USD')}"
    zh = lang == "zh"
    band = rows[0].cost
    inner = [f"{money(band.low, 'USD')}{'～' if zh else '–'}{money(band.high, 'USD')}"]
    words = {"spot": ("spot", "竞价"), "reserved": ("1-year reserved", "1 年预留"), "on-demand": ("on-demand", "按需")}
    inner += [f"{words[r.price.pricing][1 if zh else 0]} {money(r.price.price_per_gpu_hour, 'USD')}/GPU-h → {money(r.cost.typical, 'USD')}" for r in rows[1:]]
    open_, close, sep = ("（", "）", "；") if zh else (" (", ")", "; ")
    return f"{c.name} {money(c.price, 'USD')}/GPU-h → {money(band.typical, 'USD')}{open_}{sep.join(inner)}{close}"


def compare(ctx: Context) -> Draft:
    ids = list(dict.fromkeys(ctx.slots.compare_gpus or [ctx.slots.gpu or DEFAULT_GPU]))[:MAX_GPUS]
    specs = [_spec(ctx, gpu_id) for gpu_id in ids]
    base = specs[-1]
    ratios = {s["gpu"]: {"compute": round(s["bf16_dense_tflops"] / base["bf16_dense_tflops"], 3),
                         "bandwidth": round(s["memory_bandwidth_gbps"] / base["memory_bandwidth_gbps"], 3),
                         "memory": round(s["memory_gb"] / base["memory_gb"], 3)} for s in specs}
    ctx.record("gpu-compare", {"gpus": ids}, {"specs": specs, "ratios_vs": base["gpu"], "ratios": ratios})
    first, r = specs[0], ratios[specs[0]["gpu"]]
    lang = ctx.lang
    ratio_text = say("compare.lead", lang, first=first["name"], base=base["name"], compute=num(r["compute"]),
                     bandwidth=num(r["bandwidth"]), memory=num(r["memory"]))
    topics = ["inference", "hardware"] if _serving(ctx) else ["precision", "hardware", "claims", "evaluation-dimensions"]
    stack_hits, stack_passages = _software_stack(ctx, ids)
    stacked = {(h.doc_id, h.heading) for h in stack_hits}  # a long section is several chunks: quote it once
    hits = [h for h in ctx.retrieve(k=3, topics=topics) if (h.doc_id, h.heading) not in stacked][: 3 - len(stack_hits)]
    draft = Draft(blocks=[], hits=hits, follow_ups=[say("compare.follow_time", lang), say("compare.follow_cost", lang)])
    fit_blocks, fits = _workload_fit(ctx, ids, draft)
    verdict = _verdict(ctx, ids, fits, draft) if len(ids) > 1 else []
    if verdict:  # the verdict leads; the data-sheet ratios become its evidence
        draft.blocks = [verdict[0], ParagraphBlock(text=ratio_text), _spec_table(ctx, specs), *fit_blocks, *verdict[1:]]
    else:
        draft.blocks = [LeadBlock(text=ratio_text), _spec_table(ctx, specs), *fit_blocks]
    capacity_lead, capacity = _capacities(ctx, ids, draft)
    if capacity_lead is not None:  # no model named, memories differ: what each card can take on leads, the verdict follows
        draft.blocks = [capacity_lead, ParagraphBlock(text=draft.blocks[0].text), capacity, *draft.blocks[1:]]
    elif capacity is not None:  # the same sizes fit both: the speed and price verdict leads, the sizes follow the table
        draft.blocks.insert(2, capacity)
    if not _serving(ctx):  # RTX 4090 against A100 for training: what fits on one card, and how several cards scale
        from service.assistant.claim_checks_consumer import compare_points

        draft.blocks += [ParagraphBlock(text=p) for p in compare_points(ctx, ids, memory=capacity is None and not fit_blocks)]
    passages = extract.select(ctx.text, [h.text for h in draft.hits], max_points=2, headings=[h.heading for h in draft.hits])
    for passage in passages:  # the stack passages come first and cite the stack sections, 1..len(stack_hits)
        passage.citation += len(stack_hits)
    quoted, draft.hits = extract.cite([*stack_passages, *passages], [*stack_hits, *draft.hits], title=say("compare.practice_title", lang))
    draft.blocks += quoted
    return draft


def _software_stack(ctx: Context, ids: list[str]) -> tuple[list, list[extract.Passage]]:
    """AMD or Ascend against NVIDIA: the software stack (ROCm, CANN) decides as much as the data sheet does.

    Each non-NVIDIA vendor's stack is searched by its own words (queries.accelerator_stack.<vendor>), and its sentences
    are picked by those words, not by the question's: "MI300X or H100 for serving?" shares no word with "ROCm", so
    choosing by the question quoted the section's generic lines (or another vendor's section) and never named the stack.
    """
    vendors = sorted({ctx.catalog.gpus[g].vendor for g in ids if g in ctx.catalog.gpus} - {"nvidia"})
    hits: list = []
    passages: list[extract.Passage] = []
    for vendor in vendors:
        query = say(f"queries.accelerator_stack.{vendor}", ctx.lang)
        found = [h for h in ctx.retrieve(query, k=3, topics=["hardware", "environment"]) if h not in hits]
        if not found:
            continue
        hits.append(found[0])
        chosen = extract.select(query, [found[0].text], max_points=3, want_code=False, headings=[found[0].heading])
        # "The software stack has several layers:" announces a list and says nothing on its own.
        for passage in [p for p in chosen if not p.text.rstrip().endswith((":", "："))][:2]:
            passage.citation = len(hits)
            passages.append(passage)
    return hits, passages


def _spec(ctx: Context, gpu_id: str) -> dict:
    g = ctx.catalog.gpus[gpu_id]
    price = cheapest_instance(ctx.catalog, gpu_id)
    return {"gpu": g.id, "name": g.name, "memory_gb": g.memory_gb, "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
            "bf16_dense_tflops": g.bf16_dense_tflops or g.fp16_dense_tflops, "fp8_dense_tflops": g.fp8_dense_tflops,
            "scale_up": g.scale_up.name if g.scale_up else "PCIe",
            "scale_up_gbps": g.scale_up.bandwidth_gbps_bidir if g.scale_up else g.pcie_gbps_per_direction * 2,
            "tdp_w": g.tdp_w, "usd_per_gpu_hour": price.price_per_gpu_hour if price else None}



def _serving(ctx: Context) -> bool:
    return ctx.slots.task == "inference"


def _workload_fit(ctx: Context, ids: list[str], draft: Draft) -> tuple[list, dict[str, bool]]:
    """Per GPU: does the user's workload fit one GPU (or their GPU count)? (bullets, fits); nothing without a model."""
    s = ctx.slots
    if not (s.model or s.params_b) or s.tokens or s.samples:
        return [], {}
    lines, fits = [], {}
    for gpu_id in ids:
        name = ctx.catalog.gpus[gpu_id].name
        if _serving(ctx):
            r, _ = ctx.try_run("inference", {**model_ref(ctx), "gpu": gpu_id, "gpus": s.gpus or 1, "concurrency": s.concurrency or 1,
                                             "context_len": s.context_len, "weights": s.weights})
            if r is None:
                continue
            speed = f", {num(r.decode_tokens_per_second.typical)} tokens/s" if r.decode_tokens_per_second else ""
            lines.append(f"{name}: {num(r.per_gpu_total_gib)} GiB / {num(r.gpu_memory_gib)} GiB{speed}")
            draft.works.append((f"inference ({gpu_id})", r.work))
            fits[gpu_id] = r.fit != "does_not_fit"
        else:
            task = s.task if s.task in ("pretrain", "fine-tune") else "fine-tune"
            r, _ = ctx.try_run("training-memory", {**model_ref(ctx), "task": task, "method": s.method or "full", "gpu": gpu_id,
                                                   "gpus": s.gpus or 1, "sharding": "zero3" if (s.gpus or 1) > 1 else "none"})
            if r is None:
                continue
            lines.append(f"{name}: {num(r.per_gpu.total_gib)} GiB / {num(r.gpu_memory_gib)} GiB ({sizing.FIT[ctx.lang][r.fit]})")
            draft.works.append((f"training-memory ({gpu_id})", r.work))
            fits[gpu_id] = r.fit != "does_not_fit"
    return ([BulletsBlock(title=say("compare.fit_title", ctx.lang), items=lines)] if lines else []), fits


def _capacities(ctx: Context, ids: list[str], draft: Draft) -> tuple[LeadBlock | None, BulletsBlock | None]:
    """Cards compared with no model ("4090 和 A6000 做微调怎么选"): the largest models each fits, for the purpose asked
    (card_capacity.py runs the sizing tools over a ladder of sizes), and which card's memory takes on more."""
    s = ctx.slots
    if len(ids) < 2 or s.model or s.params_b or s.task == "pretrain" or (s.gpus or 1) > card_capacity.MAX_GPUS:
        return None, None
    serve, tune = card_capacity.purpose(ctx)
    if not (serve or tune) or not card_capacity.llm_work(ctx.text):
        return None, None  # no purpose named ("for a small lab"), or not LLM work: the speed and price verdict answers it
    kind = "tuning" if tune and not serve else "inference"
    measured = [card_capacity.measure(ctx, g, s.gpus or 1, inference=serve or not tune, tuning=tune or not serve) for g in ids]
    for c in measured:
        best = c.best(c.tuning if kind == "tuning" else c.inference)
        if best is not None:
            draft.works.append((f"{best.fits.tool} ({c.gpu}, {best.model}, {best.option})", best.fits.work))
    lang = ctx.lang
    lines = [card_capacity.per_card_line(ctx, c) for c in measured]
    biggest, smallest = max(measured, key=lambda c: c.memory_gb), min(measured, key=lambda c: c.memory_gb)
    big_rows, small_rows = (c.tuning if kind == "tuning" else c.inference for c in (biggest, smallest))
    # The way of running (method or weight format) where the two cards' largest models differ most says it in one line.
    pairs = [(b, s) for b, s in zip(big_rows, small_rows) if b.fits is not None]
    big, small = max(pairs, key=lambda p: p[0].rung - p[1].rung, default=(None, None))
    bullets = BulletsBlock(title=say("card_capacity.compare_title", lang), items=lines)
    if big is None or biggest.memory_gb == smallest.memory_gb or big.rung == small.rung:
        return None, bullets
    lead = say("card_capacity.compare_lead", lang, big=card_capacity.card_name(ctx, biggest), small=card_capacity.card_name(ctx, smallest),
               option=card_capacity.label(big.option, lang), big_model=big.model,
               small_model=small.model or say("card_capacity.none_fits", lang))
    return LeadBlock(text=lead), bullets


def _verdict(ctx: Context, ids: list[str], fits: dict[str, bool], draft: Draft) -> list:
    """Time and price of one job on each card, and which card to pick."""
    lang, s = ctx.lang, ctx.slots
    serving = _serving(ctx)
    contenders = _serving_contenders(ctx, ids, draft) if serving else _training_contenders(ctx, ids, draft)
    if len(contenders) < 2:
        return []
    for c in contenders:
        c.fits = fits.get(c.gpu, True)
    contenders = _by_job_cost(contenders)
    blocks: list = []
    if serving and not (s.model or s.params_b):
        blocks.append(NoticeBlock(kind="assumption", text=say("compare.reference_serving", lang)))
    elif not serving and not (s.tokens or s.samples):
        # The reference job's own inputs (the training-time calls'), so the note's numbers are the tools'.
        model = model_label(ctx.catalog, s.model, s.params_b or REFERENCE_JOB['params_b'])
        key = "compare.reference_tokens" if (s.model or s.params_b) else "compare.reference_training"
        blocks.append(NoticeBlock(kind="assumption", text=say(key, lang, model=model, tokens=big(REFERENCE_JOB["tokens"], lang),
                                                              gpus=s.gpus or REFERENCE_GPUS)))
    fastest = min(contenders, key=lambda c: c.hours)
    slowest = max(contenders, key=lambda c: c.hours)
    speedup = slowest.hours / fastest.hours
    fitting = [c for c in contenders if c.fits]
    priced = [c for c in fitting if c.job_cost is not None]
    ctx.record("compare-verdict", {"gpus": [c.gpu for c in contenders], "basis": "serving" if serving else "training", "order": "job cost"},
               {"speedup": speedup, "job_hours": {c.gpu: c.hours for c in contenders},
                "job_cost_usd": {c.gpu: c.job_cost for c in contenders if c.job_cost is not None},
                "job_cost_rows": {c.gpu: [r.model_dump(mode="json") for r in c.job.prices] for c in contenders if c.job is not None},
                "ranked_by_job_cost": [c.gpu for c in contenders]})
    same_speed = speedup < SAME_SPEED
    key = "compare.speed_same" if same_speed else "compare.speed_serving" if serving else "compare.speed_training"
    text = say(key, lang, fast=fastest.name, slow=slowest.name, speedup=num(speedup))
    if not serving:
        text += " " + say("compare.job_times", lang, times="; ".join(f"{c.name} {duration(c.hours, lang)}" for c in contenders))
    blocks.append(ParagraphBlock(text=text))
    if len(priced) >= 2:
        costs = ("；" if lang == "zh" else "; ").join(_cost_text(c, lang) for c in priced)
        blocks.append(ParagraphBlock(text=say("compare.job_costs_serving" if serving else "compare.job_costs", lang, costs=costs)))
    if same_speed and len(fitting) == len(contenders):
        verdict = say("compare.verdict_same_speed", lang)
    elif not fitting:
        verdict = say("compare.verdict_none_fit", lang, fix=say("compare.fix_serving" if serving else "compare.fix_training", lang))
    elif len(fitting) == 1:
        verdict = say("compare.verdict_only_fit", lang, gpu=fitting[0].name)
    elif len(priced) >= 2:
        fastest_fit = min(fitting, key=lambda c: c.hours)
        cheapest = min(priced, key=lambda c: c.job_cost)
        dearest = max(priced, key=lambda c: c.job_cost)
        if cheapest is fastest_fit:
            ratio = dearest.job_cost / cheapest.job_cost
            ctx.record("compare-verdict", {"pick": cheapest.gpu, "against": dearest.gpu}, {"job_cost_ratio": ratio})
            verdict = say("compare.verdict_dominant", lang, gpu=cheapest.name, ratio=num(ratio))
        elif fastest_fit.job_cost is None:
            verdict = say("compare.verdict_unpriced", lang, gpu=fastest_fit.name)
        else:
            faster, dearer = cheapest.hours / fastest_fit.hours, fastest_fit.job_cost / cheapest.job_cost
            ctx.record("compare-verdict", {"fast": fastest_fit.gpu, "cheap": cheapest.gpu}, {"speedup": faster, "job_cost_ratio": dearer})
            verdict = say("compare.verdict_tradeoff", lang, fast=fastest_fit.name, cheap=cheapest.name, speedup=num(faster), ratio=num(dearer))
    else:
        verdict = say("compare.verdict_unpriced", lang, gpu=min(fitting, key=lambda c: c.hours).name)
    blocks.insert(0, LeadBlock(text=verdict))
    return blocks


def _training_contenders(ctx: Context, ids: list[str], draft: Draft) -> list[Contender]:
    s = ctx.slots
    job = ({**model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len}
           if (s.model or s.params_b) and (s.tokens or s.samples) else
           {**({"model": s.model} if s.model else {"params_b": s.params_b or REFERENCE_JOB["params_b"]}), "tokens": REFERENCE_JOB["tokens"]})
    contenders = []
    for gpu_id in ids:
        r, _ = ctx.try_run("training-time", {**job, "gpu": gpu_id, "gpus": s.gpus or REFERENCE_GPUS})
        if r is None:
            continue
        draft.works.append((f"training-time ({gpu_id})", r.work))
        contenders.append(_priced(ctx, gpu_id, ctx.catalog.gpus[gpu_id].name, r.gpus, r.hours, draft))
    return contenders


def _serving_contenders(ctx: Context, ids: list[str], draft: Draft) -> list[Contender]:
    """Decode speed per sequence; 'hours' becomes hours per million tokens of one sequence, priced per GPU set."""
    s = ctx.slots
    model = model_ref(ctx) if (s.model or s.params_b) else {"model": SERVING_REFERENCE_MODEL}
    contenders = []
    for gpu_id in ids:
        r, _ = ctx.try_run("inference", {**model, "gpu": gpu_id, "gpus": s.gpus or 1, "weights": s.weights, "concurrency": s.concurrency or 1,
                                         "context_len": s.context_len})
        if r is None or not r.decode_tokens_per_second:
            continue
        draft.works.append((f"inference ({gpu_id})", r.work))
        speed = r.decode_tokens_per_second
        per_million = [sig(1e6 / (tps * (s.concurrency or 1)) / 3600) for tps in (speed.high, speed.typical, speed.low)]
        contenders.append(_priced(ctx, gpu_id, ctx.catalog.gpus[gpu_id].name, r.gpus, Band(low=per_million[0], typical=per_million[1], high=per_million[2]), draft))
    return contenders


COMPARE_COLUMNS = ("gpu", "memory_gb", "memory_bandwidth_gbps", "bf16_dense_tflops", "fp8_dense_tflops", "scale_up_gbps", "tdp_w", "usd_per_gpu_hour")
COLUMN_UNITS = {"memory_gb": "GB", "memory_bandwidth_gbps": "GB/s", "bf16_dense_tflops": "TFLOPS", "fp8_dense_tflops": "TFLOPS",
                "scale_up_gbps": "GB/s", "tdp_w": "W", "usd_per_gpu_hour": "USD"}


def _spec_table(ctx: Context, specs: list[dict]) -> TableBlock:
    columns = [TableColumn(key=key, label=say(f"compare.column.{key}", ctx.lang), unit=COLUMN_UNITS.get(key),
                           align="left" if key == "gpu" else "right") for key in COMPARE_COLUMNS]
    rows = []
    for s in specs:
        fp8 = f"{num(s['fp8_dense_tflops'])} TFLOPS" if s["fp8_dense_tflops"] else "—"
        price = money(s["usd_per_gpu_hour"], "USD") if s["usd_per_gpu_hour"] else "—"
        rows.append([TableCell(text=s["name"]), TableCell(text=f"{num(s['memory_gb'])} GB", value=s["memory_gb"]),
                     TableCell(text=memory_bandwidth(s["memory_bandwidth_gbps"]), value=s["memory_bandwidth_gbps"]),
                     TableCell(text=f"{num(s['bf16_dense_tflops'])} TFLOPS", value=s["bf16_dense_tflops"]), TableCell(text=fp8, value=s["fp8_dense_tflops"]),
                     TableCell(text=f"{link_name(s['scale_up'], ctx.lang)} {num(s['scale_up_gbps'])} GB/s", value=s["scale_up_gbps"]),
                     TableCell(text=f"{num(s['tdp_w'])} W", value=s["tdp_w"]), TableCell(text=price, value=s["usd_per_gpu_hour"])])
    return TableBlock(columns=columns, rows=rows)
