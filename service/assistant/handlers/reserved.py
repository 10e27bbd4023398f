"""Reserved (committed-use, 包年包月, 预留) against on-demand (按需, 按量, pay-as-you-go) at the user's utilisation.

A rent-versus-rent question: the reservation bills every hour, on-demand only the hours used, so the verdict turns on the
share of hours the GPUs are busy against reserved ÷ on-demand. Nothing is asked when prices are missing: the catalog's
on-demand price for the GPU named (or H100) is used, a stated discount is applied to it, and each assumption is stated.
"""

from __future__ import annotations

import re

from service.assistant.compose import extract
from service.assistant.compose.fmt import money, num, pct, pick
from service.assistant.compose.sizing import gpu_name, table
from service.assistant.compose.work import warnings
from service.assistant.cues import patterns
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.workload import DEFAULT_GPU, _currency
from service.assistant.messages import say
from service.assistant.numbers import ARABIC, parse_number
from service.assistant.slot_readers import price
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock

CUES = "reserved_cues.yaml"
TOOL = "reserved-vs-on-demand"
I = re.IGNORECASE
DEFAULT_UTILIZATION = 0.6
NEAR = 0.05  # within five points of the break-even the verdict is a close call: capacity, not price, decides
CN_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# "打6折", "六折", "七五折", "75折": the price paid in tenths (or hundredths) of on-demand.
ZHE = re.compile(r"(?:打\s*)?([1-9]\d?(?:\.\d)?|[一二两三四五六七八九]{1,2})\s*折")
TERM = re.compile(r"(?<![\d.])([1-5]|one|two|three|five|[一两二三五])\s*[- ]?\s*(?:years?|yrs?|年)(?:期|的|合约|合同|term)?", I)
WORD_YEARS = {"one": 1, "two": 2, "three": 3, "five": 5, "一": 1, "两": 2, "二": 2, "三": 3, "五": 5}


def asks(text: str, *, usage_stated: bool = False) -> bool:
    """A reserved / committed-use vs on-demand question, not one about buying hardware: a commitment word with the other side,
    a weighing word, a discount or the usage it would be judged at ("commit to a 3-year CUD? we use them half the time")."""
    cue = patterns(CUES)
    if not cue["commitment"].search(text) or cue["hardware"].search(text):
        return False
    return bool(usage_stated or cue["on_demand"].search(text) or cue["weighs"].search(text) or discount(text) is not None)


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


def discount(text: str) -> float | None:
    """The reserved discount a question states: "打6折" -> 0.4, "七五折" -> 0.25, "40% off" / "优惠40%" -> 0.4."""
    if m := ZHE.search(text):
        written = m.group(1)
        tenths = parse_number(written) if written[0].isdigit() else _cn_tenths(written)
        if tenths:
            paid = tenths / 10 if tenths < 10 else tenths / 100
            if 0 < paid <= 1:
                return round(1 - paid, 4)
    cue = patterns(CUES)
    for m in re.finditer(rf"({ARABIC})\s*%", text):
        after, before = text[m.end():m.end() + 12], text[max(0, m.start() - 14):m.start()]
        if re.match(rf"\s*(?:{cue['discount_after'].pattern})", after, I) or re.search(rf"(?:{cue['discount_before'].pattern})\s*(?:about|around|~|约|大约)?\s*$", before, I):
            share = (parse_number(m.group(1)) or 0) / 100
            if 0 <= share < 1:
                return share
    return None


def term_years(text: str) -> float | None:
    """The commitment term: "3-year", "三年期", "1年"; 包年 is one year."""
    m = TERM.search(text)
    if m:
        written = m.group(1).lower()
        return float(WORD_YEARS.get(written) or parse_number(written) or 0) or None
    return 1.0 if re.search(r"包年", text) else None


def _cn_tenths(written: str) -> float | None:
    digits = [CN_DIGIT.get(ch) for ch in written]
    if None in digits:
        return None
    return digits[0] if len(digits) == 1 else digits[0] * 10 + digits[1]


def quoted_prices(text: str) -> dict[str, float]:
    """The per-GPU-hour rates a question quotes, each labelled by the billing word nearest before it (else just after it):
    "reserved at $2.1/GPU-hr vs on-demand $3.5/GPU-hr", "按需每卡时 28 元，包年每卡时 17 元". A lone unlabelled rate is on-demand."""
    cue = patterns(CUES)
    found: dict[str, float] = {}
    masked = text
    while (m := price(masked)) is not None:
        value, _, start, end = m
        before, after = masked[max(0, start - 40):start], text[end:end + 14]  # after: only right after, "$2.6/hr reserved"
        label = _nearest_label(cue, after, last=False) or _nearest_label(cue, before, last=True) or "on_demand_price_per_gpu_hour"
        if label in found:  # two rates quoted: the second is the other side's
            label = next(f for f in ("on_demand_price_per_gpu_hour", "reserved_price_per_gpu_hour") if f != label)
        found.setdefault(label, value)
        masked = masked[:start] + " " * (end - start) + masked[end:]
    return found


def _nearest_label(cue, text: str, *, last: bool) -> str | None:
    spots = [(m.start(), "reserved_price_per_gpu_hour") for m in cue["commitment"].finditer(text)]
    spots += [(m.start(), "on_demand_price_per_gpu_hour") for m in cue["on_demand"].finditer(text)]
    if not last:
        spots = [spot for spot in spots if spot[0] <= 3 and not text[:spot[0]].strip()]  # "… reserved", not "，包年…" (the next rate's)
    if not spots:
        return None
    return (max(spots) if last else min(spots))[1]


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
