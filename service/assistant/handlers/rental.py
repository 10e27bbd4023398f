"""Renting for a period: "rent that on AutoDL for a month, 10 hours a day — how much?".

The bill is GPUs × hours a day × days × the price per GPU-hour. The platform the user named is echoed;
its catalog price is used when the catalog lists it, else the cheapest listed price for that GPU,
stated as an assumption with its instance, provider, region and date.
"""

from __future__ import annotations

import re
from pathlib import Path


from service import yaml_files
from service.assistant import cues
from service.assistant.compose.fmt import money, num, pct
from service.assistant.compose.work import warnings
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import passages
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.cost import cheapest_instance
from service import budget
from service.sizing.defaults import DEFAULT_GPU

I = re.IGNORECASE


@budget.loader
def _platforms() -> list[tuple[re.Pattern[str], str, str | None]]:
    """service/assistant/rental_platforms.yaml: pattern, name echoed, catalog provider id."""
    rows = yaml_files.safe_load((Path(__file__).parents[1] / "rental_platforms.yaml").read_text(encoding="utf-8"))
    return [(re.compile(row["pattern"], I), str(row["name"]), row["provider"]) for row in rows]


def _cue(name: str, text: str) -> bool:
    return cues.matches("market_cues.yaml", name, text)


_N = r"(\d+(?:\.\d+)?)"
HOURS_A_DAY = re.compile(rf"{_N}\s*(?:h|hours?|hrs?)\s*(?:a|per|/)\s*day|每天\s*(?:跑|用|开|训练)?\s*{_N}\s*(?:个)?\s*(?:小时|h)|{_N}\s*(?:个)?小时\s*/\s*天", I)
PERIODS = [  # (pattern, days per unit, unit count group or None for one)
    (re.compile(rf"{_N}\s*(?:days?|天)", I), 1.0), (re.compile(rf"{_N}\s*(?:weeks?|周|个星期|星期)", I), 7.0),
    (re.compile(rf"{_N}\s*(?:months?|个月)", I), 30.0), (re.compile(rf"{_N}\s*(?:years?|年)", I), 365.0),
    (re.compile(r"\ba day\b|一天", I), 1.0), (re.compile(r"\ba week\b|一周|一个星期", I), 7.0),
    (re.compile(r"\ba month\b|一个月|一月|每月|per month|monthly", I), 30.0), (re.compile(r"\ba year\b|一年|per year|yearly|annual", I), 365.0),
]


def platform_in(text: str) -> tuple[str, str | None] | None:
    for pattern, name, provider in _platforms():
        if pattern.search(text):
            return name, provider
    return None


# Counts written as words ("two weeks", "两周", "三个月"), turned into digits before the periods are read.
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
                "twelve": 12, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "半": 0.5}
WORD_COUNT = re.compile(r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?=days?|weeks?|months?|years?)|"
                        r"(一|两|二|三|四|五|六|七|八|九|十|半)\s*(?=天|周|个?星期|个月|年)", I)


def period_days(text: str) -> float | None:
    text = HOURS_A_DAY.sub(" ", text)  # "10 hours a day" is a duty cycle, not the period
    text = WORD_COUNT.sub(lambda m: f"{NUMBER_WORDS[(m.group(1) or m.group(2)).lower()]:g} ", text)
    for pattern, per_unit in PERIODS:
        m = pattern.search(text)
        if m:
            count = float(m.group(1)) if m.groups() else 1.0
            return count * per_unit
    return None


def hours_a_day(text: str) -> float | None:
    m = HOURS_A_DAY.search(text)
    if not m:
        return None
    value = float(next(g for g in m.groups() if g))
    return value if 0 < value <= 24 else None


BUDGET_GPUS = ("h100-sxm", "a100-80gb-sxm", "l40s", "l4")  # one card per class, largest first: what a budget rents
NODE_GPUS = 8


def budget_hours_answer(ctx: Context) -> Draft | None:
    """"What if we go cloud with the same budget?": the budget as GPU-hours at the catalog's cheapest on-demand prices."""
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    if not s.budget or not (_cue("rent", text) and _cue("same_budget", text)) or period_days(text) is not None:
        return None
    currency = s.currency or ("CNY" if lang == "zh" else "USD")
    rows, first = [], None
    for gpu_id in ((s.gpu,) if s.gpu else ()) + tuple(g for g in BUDGET_GPUS if g != s.gpu):
        result, _ = ctx.try_run("cost", {"gpu_hours": 1.0, "gpu": gpu_id, "gpus": 1, "currency": currency})
        if result is None or result.cheapest is None:
            continue
        per_hour = result.cheapest.price.price_per_gpu_hour
        hours = s.budget / per_hour
        days = hours / NODE_GPUS / 24
        ctx.record("gpu-hours-in-budget", {"budget": s.budget, "currency": currency, "price_per_gpu_hour": per_hour, "gpus_per_node": NODE_GPUS},
                   {"gpu_hours": hours, "node_days": days})
        rows.append((ctx.catalog.gpus[gpu_id].name, per_hour, hours, days, result))
        first = first or rows[-1]
    if first is None:
        return None
    name, per_hour, hours, days, result = first
    spent, _ = ctx.try_run("cost", {"gpu_hours": hours, "gpu": result.cheapest.price.gpu, "gpus": 1, "currency": currency})
    result = spent if spent is not None and spent.cheapest is not None else result  # the work shown: the budget's hours priced back
    c = result.cheapest.price
    columns = [TableColumn(key="gpu", label=say("rental.col_gpu", lang)),
               TableColumn(key="price", label=say("rental.col_price", lang), align="right"),
               TableColumn(key="hours", label=say("rental.col_hours", lang), align="right"),
               TableColumn(key="days", label=say("rental.col_node_days", lang, n=NODE_GPUS), align="right")]
    table = [[TableCell(text=g), TableCell(text=money(p, result.currency), value=p), TableCell(text=f"{h:,.0f}", value=h),
              TableCell(text=num(d), value=d)] for g, p, h, d, _ in rows]
    blocks = [LeadBlock(text=say("rental.budget_lead", lang, budget=money(s.budget, currency), hours=f"{hours:,.0f}", gpu=name,
                                 price=money(per_hour, result.currency), days=num(days), n=NODE_GPUS)),
              TableBlock(columns=columns, rows=table),
              NoticeBlock(kind="info", text=say("rental.listed", lang, instance=c.name, provider=c.provider, region=c.region, as_of=c.as_of)),
              ParagraphBlock(text=say("rental.budget_advice", lang))]
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["cost", "spot"]), works=[(result.tool, result.work)],
                 follow_ups=[say("cloud.follow_up_spot", lang), say("workload.follow_utilization_90", lang)])


def rental_answer(ctx: Context) -> Draft | None:
    """A rental bill for a period, when the question names one (a month, a year, N days) and asks about renting or cost."""
    budgeted = budget_hours_answer(ctx)
    if budgeted is not None:
        return budgeted
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    days = period_days(text)
    platform = platform_in(text)
    per_day = hours_a_day(text)
    # A period alone is often a deadline ("train it in 3 months"); it is a rental period when a platform or a duty cycle is
    # named, or when no model is (what is rented is then the GPUs themselves: "64 H100 for 3 months at $2.2/hr", "租H100一年多少钱").
    priced_gpus = (s.cloud_price_per_gpu_hour or s.gpu) and not (s.model or s.params_b)
    if days is None or not _cue("rent", text) or not (platform or per_day or priced_gpus or (s.gpus and SPOT.search(text))):
        return None
    if sum(1 for pattern, _, _ in _platforms() if pattern.search(text)) >= 2:
        return None  # "AWS p5 vs Lambda vs CoreWeave for a burst": choosing a provider, not one bill
    if _cue("weighs_owning", text) or _cue("bill", text):
        return None  # "we pay $60k a month, is reserved or owning better?": a bill to weigh, which is the break-even's
    gpu_id = s.gpu or DEFAULT_GPU
    gpus = s.gpus or 1
    hours = per_day or 24.0
    gpu_hours = gpus * hours * days
    ctx.record("rental-hours", {"gpus": gpus, "hours_per_day": hours, "days": days}, {"gpu_hours": gpu_hours})
    currency = s.currency or ("CNY" if lang == "zh" else "USD")
    name, provider = platform or (None, None)
    quoted = quoted_price(ctx, currency)  # "a month on AutoDL at ¥12 an hour": the user's rate prices the period
    result, _ = ctx.try_run("cost", {"gpu_hours": gpu_hours, "gpu": gpu_id, "gpus": gpus, "currency": currency, "provider": provider, **quoted}) \
        if provider else (None, None)
    listed = result is not None and result.cheapest is not None
    if not listed:
        result, _ = ctx.try_run("cost", {"gpu_hours": gpu_hours, "gpu": gpu_id, "gpus": gpus, "currency": currency, **quoted})
    if result is None or result.cheapest is None:
        return None
    c = result.cheapest
    gpu = ctx.catalog.gpus[gpu_id].name
    where = name or c.price.provider
    values = {"gpus": gpus, "gpu": gpu, "platform": where, "hours": num(hours), "days": num(days), "gpu_hours": f"{gpu_hours:,.0f}",
              "price": money(c.price.price_per_gpu_hour, result.currency), "total": money(c.total_cost, result.currency)}
    blocks = [LeadBlock(text=say("rental.lead" if name else "rental.lead_rate", lang, **values)), ParagraphBlock(text=say("rental.arithmetic", lang, **values))]
    notes = []
    if quoted:
        notes.append(NoticeBlock(kind="info", text=say("workload.user_price", lang, price=values["price"])))
    elif name and not listed:
        notes.append(NoticeBlock(kind="assumption", text=say("rental.not_listed", lang, platform=name, instance=c.price.name,
                                                             provider=c.price.provider, region=c.price.region, as_of=c.price.as_of, gpu=gpu)))
    else:
        notes.append(NoticeBlock(kind="info", text=say("rental.listed", lang, instance=c.price.name, provider=c.price.provider,
                                                       region=c.price.region, as_of=c.price.as_of)))
    if not s.gpu:
        notes.append(NoticeBlock(kind="assumption", text=say("workload.assumed_gpu", lang)))
    if per_day is None:
        notes.append(NoticeBlock(kind="assumption", text=say("rental.round_the_clock", lang)))
    spot_blocks, hits = _spot(ctx, result, gpu_id, gpus, gpu_hours, currency) if SPOT.search(text) and not quoted else ([], [])
    blocks += [*notes, *spot_blocks, ParagraphBlock(text=say("rental.advice", lang)), *warnings(result.work, lang)]
    return Draft(blocks=blocks, hits=hits or ctx.retrieve(k=2, topics=["cost", "spot"]), works=[(result.tool, result.work)],
                 follow_ups=[say("workload.follow_utilization_90", lang), say("cloud.follow_up_spot", lang)])


SPOT = re.compile(r"\bspot\b|preempt|竞价|抢占式|可抢占", I)


def _spot(ctx: Context, on_demand, gpu_id: str, gpus: int, gpu_hours: float, currency: str) -> tuple[list, list]:
    """"Spot or on-demand for this run?": the same hours at the spot price, then what the knowledge says about preemption."""
    spot, _ = ctx.try_run("cost", {"gpu_hours": gpu_hours, "gpu": gpu_id, "gpus": gpus, "currency": currency, "pricing": "spot"})
    blocks: list = []
    if spot is not None and spot.cheapest is not None and on_demand.cheapest.total_cost:
        saving = 1 - spot.cheapest.total_cost / on_demand.cheapest.total_cost
        ctx.record("spot-saving", {"on_demand_total": on_demand.cheapest.total_cost, "spot_total": spot.cheapest.total_cost}, {"saving": saving})
        blocks.append(ParagraphBlock(text=say("rental.spot", ctx.lang, total=money(spot.cheapest.total_cost, spot.currency), saving=pct(saving))))
    hits = ctx.retrieve(say("rental.spot_query", ctx.lang), k=3, topics=["spot"])
    found, cited = passages(ctx, f"{ctx.text} {say('rental.spot_query', ctx.lang)}", hits, limit=4) if hits else ([], [])
    return blocks + found, cited or hits


def quoted_price(ctx: Context, currency: str) -> dict:
    """"按每卡每小时 12 块算", "at $2.5/GPU-hr": the cost tool's inputs for the user's rate, in the currency they quoted it in."""
    s = ctx.slots
    return {"cloud_price_per_gpu_hour": s.cloud_price_per_gpu_hour, "cloud_price_currency": s.currency or currency} \
        if s.cloud_price_per_gpu_hour else {}


def listed_price_note(ctx: Context, result) -> list[NoticeBlock]:
    """Beside a bill at the user's rate (it leads, compose/sizing.py): what the cheapest listed instance charges."""
    s = ctx.slots
    if not (s.cloud_price_per_gpu_hour and result.cheapest and s.gpu):
        return []
    listed = cheapest_instance(ctx.catalog, s.gpu, currency=result.currency)
    if listed is None:
        return []
    ctx.record("listed-price", {"gpu": s.gpu, "currency": result.currency}, {"instance": listed.instance, "price_per_gpu_hour": listed.price_per_gpu_hour})
    return [NoticeBlock(kind="info", text=say("workload.listed_price", ctx.lang, instance=listed.name, provider=listed.provider,
                                              price=money(listed.price_per_gpu_hour, result.currency)))]
