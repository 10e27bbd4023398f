"""The three tiers side by side, when the question asks for them ("entry / mid / production setup for
fine-tuning X", "入门、进阶、生产三档配置分别怎么配").

Each row is the recommend tool run with that tier's constraint, so every figure is a tool output:
- entry: one card with PEFT (LoRA, or QLoRA when 16-bit LoRA does not fit one card), the cheapest card that holds it;
- mid: the user's method (full fine-tuning by default) on the smallest deployment that holds it, within one node
  (LoRA on one node when full fine-tuning needs more);
- production: full fine-tuning on a whole node of the production tier's first GPU (H100 SXM), or more when the
  memory or a deadline needs it: throughput and headroom for repeated runs rather than the lowest bill.
With no model named, the ladder is built for the asker's typical workload (archetypes.ladder_model: the usual 8B
model, fine-tuned), and the first sentence says so.
Pre-training has no single-card tier (its ladder is cluster size against time: consulting.pretrain_cluster_table),
and serving tiers are sized by the serving plans, so both fall through to the other handlers.
"""

from __future__ import annotations

from typing import Any

from service.assistant import consult
from service.assistant.compose.fmt import big, duration, gib, money, pick
from service.assistant.compose.sizing import model_name
from service.assistant.handlers import archetypes
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.recommendation import recommend_payload, task_of
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn

PRODUCTION_NODE = 8  # one HGX node: the production tier rents or buys whole 8-GPU servers
ENTRY_CARD_GIB = 48  # the largest card an entry tier rents: an L40S / A6000-class 48 GB card


def asks_for_tiers(text: str) -> bool:
    return consult.cue("tier_ladder", text)


def answer(ctx: Context) -> Draft | None:
    s = ctx.slots
    # A follow-up to a ladder ("and with 1B tokens?") keeps the ladder: its context is the question that asked for it.
    asked = asks_for_tiers(ctx.text) or asks_for_tiers(ctx.understanding.context or "")
    if not asked or s.gpu or s.gpus or s.weights:
        return None  # a card or a count named is a question about that deployment, not the ladder
    assumed = None
    if not (s.model or s.params_b):
        # "入门/进阶/生产三档", no model: not "which model?" but the asker's typical workload, said in the first sentence
        assumed = archetypes.ladder_model(ctx)
        if assumed is None:
            return None
        ctx.understanding = ctx.understanding.model_copy(update={"slots": s.model_copy(update={"model": assumed, "task": s.task or "fine-tune"})})
        s = ctx.slots
    task, note = task_of(ctx)
    if task != "fine-tune":
        return None
    base = recommend_payload(ctx, task)
    rows = [row for row in (_entry(ctx, base), _mid(ctx, base, s.method), _production(ctx, base, s.method)) if row is not None]
    if len(rows) < 2:
        return None
    lang, currency = ctx.lang, base["currency"]
    timed = any(r.recommended.hours is not None for _, r in rows)
    columns = [
        TableColumn(key="tier", label=say("ladder.col_tier", lang)),
        TableColumn(key="config", label=say("ladder.col_config", lang)),
        TableColumn(key="method", label=say("ladder.col_method", lang)),
        TableColumn(key="memory", label=say("ladder.col_memory", lang), align="right"),
        TableColumn(key="price", label=say("ladder.col_price", lang), align="right"),
    ]
    if timed:
        columns += [TableColumn(key="time", label=say("ladder.col_time", lang), unit="hours", align="right"),
                    TableColumn(key="cost", label=say("ladder.col_cost", lang), align="right")]
    table_rows = [_cells(tier, result, lang, currency, timed) for tier, result in rows]
    summary = pick(lang, "; ", "；").join(say("ladder.lead_part", lang, tier=say(f"ladder.tier.{tier}", lang), config=_config(r, lang),
                                                method=_method(r.method, lang)) for tier, r in rows)
    name = model_name(ctx.catalog, rows[0][1].model)
    if assumed:
        params = big(ctx.catalog.models[assumed].params_b * 1e9, lang)
        blocks: list = [LeadBlock(text=say("ladder_default.lead", lang, model=name, params=params, summary=summary))]
    else:
        blocks = [LeadBlock(text=say("ladder.lead", lang, model=name, summary=summary))]
    if note:
        blocks.append(NoticeBlock(kind="assumption", text=note))
    blocks += [TableBlock(columns=columns, rows=table_rows), NoticeBlock(kind="assumption", text=say("ladder.how_built", lang, method=_method(s.method or "full", lang),
                                                        fallback=say("ladder.mid_fallback", lang) if s.method in (None, "full") else ""))]
    if not timed:
        blocks.append(NoticeBlock(kind="info", text=say("ladder.no_tokens", lang)))
    blocks.append(ParagraphBlock(text=say("ladder.choose", lang)))
    if assumed:
        blocks.append(ParagraphBlock(text=say("ladder_default.redo", lang, model=name)))
    works = [("recommend", r.work) for _, r in rows]
    chosen = next((r for tier, r in rows if tier == "mid"), rows[0][1])
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["tiers", "peft"]), works=works,
                 recommendation=chosen.model_dump(mode="json"),
                 follow_ups=[*([say("ladder_default.follow_model", lang)] if assumed else []), say("ladder.follow_tokens", lang),
                             say("workload.follow_half_budget", lang)])


def _entry(ctx: Context, base: dict[str, Any]) -> tuple[str, Any] | None:
    lora, _ = ctx.try_run("recommend", {**base, "method": "lora", "gpus": 1, "deadline_hours": None, "budget": None})
    if lora is not None and lora.recommended.configuration.gpu_memory_gib <= ENTRY_CARD_GIB:
        return "entry", lora
    # 16-bit LoRA needs a data-centre card of 80 GB: the entry tier is 4-bit QLoRA on a 24-48 GB card instead.
    qlora, _ = ctx.try_run("recommend", {**base, "method": "qlora", "gpus": 1, "deadline_hours": None, "budget": None})
    best = qlora or lora
    return None if best is None else ("entry", best)


def _mid(ctx: Context, base: dict[str, Any], method: str | None) -> tuple[str, Any] | None:
    for candidate in dict.fromkeys((method or "full", "lora")):
        result, _ = ctx.try_run("recommend", {**base, "method": candidate})
        if result is not None and result.recommended.configuration.gpus <= PRODUCTION_NODE:
            return "mid", result
    return None


def _production(ctx: Context, base: dict[str, Any], method: str | None) -> tuple[str, Any] | None:
    gpu, method = ctx.catalog.tiers["production"].gpu_options[0], method or "full"  # a method the user named holds at every tier
    result, _ = ctx.try_run("recommend", {**base, "method": method, "gpu": gpu})
    if result is not None and result.recommended.configuration.gpus < PRODUCTION_NODE:
        result, _ = ctx.try_run("recommend", {**base, "method": method, "gpu": gpu, "gpus": PRODUCTION_NODE})
    return None if result is None else ("production", result)


def _cells(tier: str, result: Any, lang: str, currency: str, timed: bool) -> list[TableCell]:
    option = result.recommended
    conf = option.configuration
    price = option.cost_per_hour
    cells = [
        TableCell(text=say(f"ladder.tier.{tier}", lang)),
        TableCell(text=_config(result, lang)),
        TableCell(text=_method(result.method, lang)),
        TableCell(text=f"{gib(conf.per_gpu_memory_gib)} / {gib(conf.gpu_memory_gib)}", value=conf.per_gpu_memory_gib),
        TableCell(text=say("ladder.per_hour", lang, price=money(price, currency)) if price is not None else "—", value=price),
    ]
    if timed:
        hours, cost = option.hours, option.cost
        cells += [TableCell(text=duration(hours.typical, lang) if hours else "—", value=hours.typical if hours else None),
                  TableCell(text=money(cost.typical, currency) if cost else "—", value=cost.typical if cost else None)]
    return cells


def _config(result: Any, lang: str) -> str:
    conf = result.recommended.configuration
    return say("ladder.config", lang, gpus=conf.gpus, gpu=conf.gpu_name, nodes=conf.nodes)


def _method(method: str, lang: str) -> str:
    return say(f"consult.method.{method}", lang)
