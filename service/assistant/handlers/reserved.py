"""Reserved (committed-use, 包年包月, 预留) against on-demand (按需, 按量, pay-as-you-go) at the user's utilisation.

A rent-versus-rent question: the reservation bills every hour, on-demand only the hours used, so the verdict turns on the
share of hours the GPUs are busy against reserved ÷ on-demand. Nothing is asked when prices are missing: the catalog's
on-demand price for the GPU named (or H100) is used, a stated discount is applied to it, and each assumption is stated.
"""

from __future__ import annotations

from service.assistant.commitment_readers import CUES, asks, discount, quoted_prices, term_years
from service.assistant.compose import extract
from service.assistant.compose.fmt import money, num, pct, pick
from service.assistant.compose.sizing import gpu_name, table
from service.assistant.compose.work import warnings
from service.assistant.cues import patterns
from service.assistant.handlers.base import Context, Draft
from service.sizing.defaults import DEFAULT_GPU
from service.assistant.handlers.recommendation import _currency
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock

TOOL = "reserved-vs-on-demand"
DEFAULT_UTILIZATION = 0.6
NEAR = 0.05  # within five points of the break-even the verdict is a close call: capacity, not price, decides


def question(ctx: Context) -> bool:
    """This turn asks it, or restates only the usage after a turn that asked it ("and at 80%?", context set by followup.merge)."""
    if asks(ctx.text, usage_stated=ctx.slots.yearly_utilization is not None):
        return True
    context = ctx.understanding.context or ""
    return bool(context) and asks(context, usage_stated=True) and ctx.slots.yearly_utilization is not None and not patterns(CUES)["hardware"].search(ctx.text)


def reserved_answer(ctx: Context) -> Draft:
    s = ctx.slots
    notes: list[str] = []
    texts = [ctx.text, ctx.understanding.context or ""]  # this turn's terms first, then the question it follows
    util = s.yearly_utilization
    if util is None and s.gpu_utilization:
        util = s.gpu_utilization / 100
        notes.append(say("reserved.util_from_gpu_util", ctx.lang, util=pct(util)))
    if util is None or not 0 < util <= 1:
        util = DEFAULT_UTILIZATION
        notes.append(say("reserved.assumed_utilization", ctx.lang, util=pct(util)))
    payload: dict = {"gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "utilization": util, "currency": _currency(ctx)}
    if not s.gpu:
        notes.append(say("reserved.assumed_gpu", ctx.lang))
    if not s.gpus:
        notes.append(say("reserved.assumed_gpus", ctx.lang))
    quoted = next((q for t in texts if (q := quoted_prices(t))), {})  # "and at 90%?" keeps the rates quoted before
    if not quoted and s.cloud_price_per_gpu_hour:
        quoted = {"on_demand_price_per_gpu_hour": s.cloud_price_per_gpu_hour}  # a rate carried over from the conversation
    if quoted:
        payload |= quoted | {"price_currency": s.currency or _currency(ctx)}
    off = next((d for t in texts if (d := discount(t)) is not None), None)
    if off is not None and "reserved_price_per_gpu_hour" not in payload:
        payload["discount"] = off
    term = next((y for t in texts if (y := term_years(t)) is not None), None)
    if term:
        payload["term_years"] = term
    result = ctx.run(TOOL, payload)
    blocks: list = [LeadBlock(text=_lead(ctx, result)), ParagraphBlock(text=_per_used_hour(ctx, result)),
                    ParagraphBlock(text=_advice(ctx, result)), _table(ctx, result)]
    blocks += [NoticeBlock(kind="assumption", text=n) for n in notes + _price_notes(ctx, result, payload)]
    blocks += warnings(result.work, ctx.lang)
    cited, hits = _billing_passage(ctx)
    blocks += cited
    return Draft(blocks=blocks, hits=hits, works=[(TOOL, result.work)], follow_ups=[
        say("reserved.follow_up_80", ctx.lang), say("reserved.follow_up_3y", ctx.lang), say("cloud.follow_up_spot", ctx.lang)])


def _lead(ctx: Context, r) -> str:
    values = {"gpus": r.gpus, "gpu": gpu_name(ctx.catalog, r.gpu), "util": pct(r.utilization), "term": num(r.term_years),
              "od_year": money(r.on_demand_yearly_cost, r.currency), "rs_year": money(r.reserved_yearly_cost, r.currency),
              "saving": money(r.yearly_saving, r.currency), "term_saving": money(r.term_saving, r.currency),
              "break_even": pct(r.break_even_utilization), "reserved": money(r.reserved_price_per_gpu_hour, r.currency),
              "on_demand": money(r.on_demand_price_per_gpu_hour, r.currency)}
    values["over_term"] = say("reserved.over_term", ctx.lang, **values) if r.term_years != 1 else ""
    if not r.reservation_can_pay:
        return say("reserved.lead_never", ctx.lang, **values)
    key = "reserved.lead_reserved" if r.cheaper == "reserved" else "reserved.lead_on_demand"
    return say(key, ctx.lang, **values) + say("reserved.break_even", ctx.lang, **values)


def _per_used_hour(ctx: Context, r) -> str:
    return say("reserved.per_used_hour", ctx.lang, util=pct(r.utilization), reserved=money(r.reserved_price_per_gpu_hour, r.currency),
               per_used=money(r.reserved_price_per_used_gpu_hour, r.currency), on_demand=money(r.on_demand_price_per_gpu_hour, r.currency))


def _advice(ctx: Context, r) -> str:
    values = {"break_even": pct(r.break_even_utilization), "commitment": money(r.reserved_term_commitment, r.currency), "term": num(r.term_years)}
    if not r.reservation_can_pay:
        return say("reserved.advice_never", ctx.lang, **values)
    if abs(r.utilization - r.break_even_utilization) <= NEAR:
        return say("reserved.advice_close", ctx.lang, **values)
    return say("reserved.advice_reserve" if r.cheaper == "reserved" else "reserved.advice_on_demand", ctx.lang, **values)


def _table(ctx: Context, r):
    unit = pick(ctx.lang, "/GPU-hour", "/卡时")
    rows = [
        (pick(ctx.lang, "On-demand price", "按需单价"), money(r.on_demand_price_per_gpu_hour, r.currency) + unit, r.on_demand_price_per_gpu_hour),
        (pick(ctx.lang, "Reserved price", "预留单价"), f"{money(r.reserved_price_per_gpu_hour, r.currency)}{unit} ({pick(ctx.lang, 'discount', '折扣')} "
         f"{pct(r.discount)})" if ctx.lang != "zh" else f"{money(r.reserved_price_per_gpu_hour, r.currency)}{unit}（折扣 {pct(r.discount)}）", r.reserved_price_per_gpu_hour),
        (pick(ctx.lang, "Break-even utilization (reserved ÷ on-demand)", "盈亏平衡利用率（预留 ÷ 按需）"), pct(r.break_even_utilization), r.break_even_utilization),
        (pick(ctx.lang, f"On-demand a year at {pct(r.utilization)}", f"按需每年（{pct(r.utilization)} 利用率）"), money(r.on_demand_yearly_cost, r.currency),
         r.on_demand_yearly_cost),
        (pick(ctx.lang, "Reserved a year (every hour billed)", "预留每年（每个小时都计费）"), money(r.reserved_yearly_cost, r.currency), r.reserved_yearly_cost),
        (pick(ctx.lang, f"Commitment for the {num(r.term_years)}-year term", f"{num(r.term_years)} 年期承诺总额"), money(r.reserved_term_commitment, r.currency),
         r.reserved_term_commitment),
        (pick(ctx.lang, "Reserved price per GPU-hour used", "预留折合每个实际使用卡时"), money(r.reserved_price_per_used_gpu_hour, r.currency) + unit,
         r.reserved_price_per_used_gpu_hour),
    ]
    return table(rows, ctx.lang, title=pick(ctx.lang, f"{r.gpus} GPUs, {num(r.term_years)}-year term", f"{r.gpus} 张卡，{num(r.term_years)} 年期"))


def _price_notes(ctx: Context, r, payload: dict) -> list[str]:
    """Where each price came from, said beside the answer (the work block repeats it with provenance)."""
    notes = []
    if r.price_source is not None:
        notes.append(say("reserved.catalog_price", ctx.lang, instance=r.price_source.instance, region=r.price_source.region, as_of=r.price_source.as_of,
                         price=money(r.on_demand_price_per_gpu_hour, r.currency)))
    for field, key in (("on_demand_price_per_gpu_hour", "reserved.user_on_demand"), ("reserved_price_per_gpu_hour", "reserved.user_reserved")):
        if field in payload:
            notes.append(say(key, ctx.lang, price=money(getattr(r, field), r.currency)))
    if "discount" in payload:
        notes.append(say("reserved.discount_applied", ctx.lang, discount=pct(r.discount), reserved=money(r.reserved_price_per_gpu_hour, r.currency)))
    elif "reserved_price_per_gpu_hour" not in payload and (r.price_source is None or r.price_source.reserved_basis == "default-discount"):
        notes.append(say("reserved.default_discount", ctx.lang, discount=pct(r.discount)))
    if "term_years" not in payload:
        notes.append(say("reserved.assumed_term", ctx.lang))
    return notes


def _billing_passage(ctx: Context) -> tuple[list, list]:
    """The knowledge base's billing-models sections (what each model bills, which fits which workload), cited."""
    query = say("reserved.query", ctx.lang)
    hits = ctx.retrieve(query, k=5, topics=["cost"])
    billing = [h for h in hits if h.doc_id == "gpu-cloud-providers-billing"] or hits
    billing = billing[:2]
    points = extract.select(f"{query} {ctx.text}", [h.text for h in billing], max_points=4, headings=[h.heading for h in billing])
    points = [p for p in points if not p.text.rstrip().endswith((":", "："))][:3]  # a list's lead-in says nothing alone
    return extract.cite(points, billing, title=say("reserved.sources_title", ctx.lang))
