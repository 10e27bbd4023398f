"""Rent or buy: a break-even for the GPUs in question, or for the card the user's workload needs; which cloud and
billing model when that is the question; a period's bill when a rental period is named."""

from __future__ import annotations

import re

from service.assistant.compose import extract, sizing
from service.assistant.compose.fmt import money, num, pct
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.burst import burst_answer
from service.assistant.handlers.knowledge import faq, passages
from service.assistant.handlers.rental import rental_answer
from service.assistant.handlers.reserved import question as reserved_question
from service.assistant.handlers.reserved import reserved_answer
from service.sizing.defaults import DEFAULT_GPU
from service.assistant.handlers.recommendation import _currency, recommend
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock
from service.errors import InputError
from service.sizing.cost import DEFAULT_FX_CNY_PER_USD

RENT_NOT_BUY = re.compile(r"不想买|不买|不购置|不自建|without buying|(?:don'?t|do not) (?:want to )?buy|rather rent|which gpus? (?:should|to|do) (?:we|i) rent|"
                          r"租(?:什么|哪|用什么)", re.I)


# The question weighs buying against renting ("buy a DGX or rent", "自己买还是租"), not only which cloud to rent from.
BUYING = re.compile(r"\bbuy(?:ing)?\b|\bpurchas\w*|\bown (?:our|the|a)\b|\bdgx\b|\bon-?prem|买|购置|采购|自建", re.I)


# "What do we need to consider / plan for": the question asks what an undertaking takes, not for one number.
CONSIDERATIONS = re.compile(
    r"考虑(?:哪些|什么|啥)|注意(?:哪些|什么|啥)|准备(?:哪些|什么|啥)|哪些方面|哪些坑|要点|"
    r"what (?:should|do|would) (?:we|i) (?:need to )?(?:consider|plan for|think about|watch out for|prepare)|what to (?:consider|plan for|think about)|"
    r"things to (?:consider|plan|think about)|considerations|what does it take|what (?:is|'s) involved",
    re.I,
)


# Spot / preemptible capacity is the subject ("spot GPUs for a 2-day run?", "抢占式实例靠谱吗").
SPOT = re.compile(r"\bspot\b|pre-?emptible|抢占式|竞价", re.I)


# A money figure ("$80k a month", "每月 30 万"): a bill the break-even can be weighed against.
MONEY_FIGURE = re.compile(r"[$¥￥]\s*\d|\d[\d,.]*\s*(?:k\b|万|千|元|块|美元|美金|dollars?|usd|rmb|cny)", re.I)


def cloud_vs_onprem(ctx: Context) -> Draft:
    if reserved_question(ctx):
        return reserved_answer(ctx)  # "1-year reserved or on-demand at 45%?": rent against rent, not the capex break-even
    rent = rental_answer(ctx)
    if rent is not None:
        return rent  # "a year on AutoDL, how much?": the bill for that period, not a break-even
    s = ctx.slots
    if (s.model or s.params_b) and s.yearly_utilization is None and RENT_NOT_BUY.search(ctx.text):
        # "a POC, we don't want to buy machines: which GPU?": the choice is made; the question is which card to rent.
        from service.assistant.handlers.consulting import consulted  # consulting imports this module

        return consulted(recommend)(ctx)
    if SPOT.search(ctx.text) and not BUYING.search(ctx.text):
        # "spot GPUs for a two-day fine-tune?": the risk and how to live with it (checkpoints), not an ownership break-even.
        draft = faq(ctx)
        draft.follow_ups = [say("cloud.follow_up_spot", ctx.lang), say("cloud.follow_up_break_even", ctx.lang)]
        return draft
    burst = burst_answer(ctx)
    if burst is not None:
        return burst  # "十几张卡平时够，季度末要上百张": own the baseline, rent the peak
    if BUYING.search(ctx.text) and CONSIDERATIONS.search(ctx.text) and s.yearly_utilization is None and not MONEY_FIGURE.search(ctx.text):
        building = _building_on_prem(ctx)
        if building is not None:
            return building  # "自建集群要考虑哪些": power, cooling, space, network, staff; not a cloud instance
    if {"cloud_provider_choice", "self_host_vs_api"} & set(ctx.understanding.evidence):
        return _providers_first(ctx)  # which cloud, which billing, or an API per token: the knowledge leads
    if (s.model or s.params_b) and not s.gpu:
        return _workload_first(ctx)
    return _break_even(ctx)


def _building_on_prem(ctx: Context) -> Draft | None:
    """What building one's own cluster takes, from the knowledge, read together with the subject words (the question's
    own words, "data must stay on-prem, 70B", would find the break-even and the model's documents instead)."""
    question = f"{say('queries.onprem_build', ctx.lang)} {ctx.text}"
    blocks, cited = passages(ctx, question, ctx.retrieve(question, k=5))
    if not blocks:
        return None
    blocks[0] = LeadBlock(text=blocks[0].text)
    follow = [say("cloud.follow_up_break_even", ctx.lang)]
    if ctx.slots.model or ctx.slots.params_b:
        follow.insert(0, say("consulting.follow_recommend", ctx.lang))
    return Draft(blocks=blocks, hits=cited, follow_ups=follow)


def _workload_first(ctx: Context) -> Draft:
    """"LoRA on 7B all year: rent or buy, which card?": the workload picks the card, then the break-even is for that
    card and count, not for a default 8 x H100 node the workload never needed."""
    from service.assistant.handlers.consulting import consulted  # consulting imports this module

    assumed = ctx.slots.yearly_utilization is None
    ctx.understanding = ctx.understanding.model_copy(
        update={"slots": ctx.slots.model_copy(update={"yearly_utilization": ctx.slots.yearly_utilization or 0.6})})
    draft = consulted(recommend)(ctx)
    if assumed and draft.recommendation:
        draft.blocks.append(NoticeBlock(kind="assumption", text=say("workload.assumed_utilization", ctx.lang)))
    return draft


def _providers_first(ctx: Context) -> Draft:
    """Which provider, which billing model: the knowledge leads; the break-even follows only when a utilisation or a bill is given."""
    s = ctx.slots
    draft = faq(ctx)
    draft.follow_ups = [say("cloud.follow_up_break_even", ctx.lang), say("cloud.follow_up_spot", ctx.lang)]
    if BUYING.search(ctx.text):
        # "buy a DGX or use a GPU cloud?": the provider knowledge alone misses what decides buying at all.
        draft.blocks.insert(min(1, len(draft.blocks)), ParagraphBlock(text=say("rent_or_buy.what_decides", ctx.lang)))
    if s.yearly_utilization is None and not s.budget and not MONEY_FIGURE.search(ctx.text):
        return draft
    result, blocks = _break_even_blocks(ctx)
    draft.blocks += [ParagraphBlock(text=say("cloud.break_even_after", ctx.lang)), *blocks]
    draft.works.append(("break-even", result.work))
    return draft


def _break_even_blocks(ctx: Context) -> tuple:
    s = ctx.slots
    notes = []
    if not s.gpu:
        notes.append(say("workload.assumed_gpu", ctx.lang))
    if s.yearly_utilization is None:
        notes.append(say("workload.assumed_utilization", ctx.lang))
    payload = {"gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "utilization": s.yearly_utilization or 0.6, "currency": _currency(ctx)}
    if s.cloud_price_per_gpu_hour:
        # "we rent at $2.5/GPU-hr": the user's rate, in the currency they quoted it in, replaces the catalog's cheapest instance.
        payload |= {"cloud_price_per_gpu_hour": s.cloud_price_per_gpu_hour, "cloud_price_currency": s.currency or _currency(ctx)}
    # The user's own quote, depreciation period and running costs replace the tool's defaults.
    quoted_in = s.currency or _currency(ctx)
    per_gpu = s.capex_per_gpu or (s.capex if s.capex and not s.gpus and _one_card_price(s.capex, quoted_in) else None)
    if per_gpu:
        payload |= {"capex_per_gpu": per_gpu, "capex_currency": quoted_in}
        if not s.capex_per_gpu:
            # "$25k" with no GPU count: the price of one card, not of eight (a node costs many times that).
            notes.append(say("rent_or_buy.price_read_per_gpu", ctx.lang, price=money(per_gpu, quoted_in)))
    elif s.capex:
        payload |= {"capex_total": s.capex, "capex_currency": quoted_in}
    if s.opex_per_month is not None:
        payload |= {"opex_per_month": s.opex_per_month, "opex_currency": quoted_in}
    if s.depreciation_years:
        payload["years"] = s.depreciation_years
    result = ctx.run("break-even", payload)
    quoted = [NoticeBlock(kind="info", text=say("workload.user_price", ctx.lang, price=money(result.cloud_price_per_gpu_hour, result.currency)))] \
        if s.cloud_price_per_gpu_hour else []
    return result, [*sizing.blocks(result, ctx.lang, ctx.catalog), _cost_terms(ctx, result), *quoted, *assumptions(notes), *warnings(result.work, ctx.lang)]


ONE_CARD_BELOW_USD = 100_000  # a quoted price below this, with no GPU count, is one card's: an 8-GPU server costs more


def _one_card_price(value: float, currency: str) -> bool:
    return value / (DEFAULT_FX_CNY_PER_USD if currency == "CNY" else 1) < ONE_CARD_BELOW_USD


def _cost_terms(ctx: Context, result) -> ParagraphBlock:
    """The terms behind the two yearly figures, named as an expert names them (depreciation, power and cooling, operations,
    upfront capex against flexibility and utilisation), with the values the break-even tool used, so the verdict can be checked."""
    used = {i.name: i.value for i in result.work.inputs}
    if "opex_per_month" in used:
        terms = say("rent_or_buy.cost_terms_own_running", ctx.lang, capex=money(result.capex, result.currency), years=num(used["years"]),
                    running=money(used["opex_per_month"], _quoted_currency(result)))
        return ParagraphBlock(text=("" if ctx.lang == "zh" else " ").join((terms, _flexibility(ctx, result))))
    terms = say(
        "rent_or_buy.cost_terms",
        ctx.lang,
        capex=money(result.capex, result.currency),
        years=num(used["years"]),
        kwh=money(used["power_price_kwh"], "USD"),
        pue=num(used["pue"]),
        ops=pct(used["ops_fraction"]),
    )
    return ParagraphBlock(text=("" if ctx.lang == "zh" else " ").join((terms, _flexibility(ctx, result))))


def _flexibility(ctx: Context, result) -> str:
    if result.break_even_utilization is None:
        return say("rent_or_buy.flexibility_never", ctx.lang)
    return say("rent_or_buy.flexibility", ctx.lang, break_even=pct(result.break_even_utilization))


def _quoted_currency(result) -> str:
    """The currency the user quoted their running costs in (the input's unit)."""
    unit = next(i.unit for i in result.work.inputs if i.name == "opex_per_month")
    return "CNY" if unit == "CNY" else "USD"


def _break_even(ctx: Context) -> Draft:
    s = ctx.slots
    try:
        result, blocks = _break_even_blocks(ctx)
    except InputError as exc:
        if not any(p.field == "cloud_price_per_gpu_hour" for p in exc.problems):
            raise
        return _without_a_rental_price(ctx)
    hits = ctx.retrieve(k=3, topics=["cloud-vs-onprem", "cost"])
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=3, headings=[h.heading for h in hits])
    quoted, hits = extract.cite(passages, hits, title=say("workload.what_else_decides", ctx.lang))
    blocks += quoted
    if s.data_sensitivity == "restricted":
        blocks.append(NoticeBlock(kind="info", text=say("workload.data_restricted", ctx.lang)))
    return Draft(blocks=blocks, hits=hits, works=[("break-even", result.work)], follow_ups=[
        say("workload.follow_utilization_90", ctx.lang), say("workload.follow_hybrid", ctx.lang)])


def _without_a_rental_price(ctx: Context) -> Draft:
    """A card no listed cloud rents (H800, say): what decides rent or buy and the rate to give, not a bare refusal."""
    gpu = ctx.catalog.gpus[ctx.slots.gpu].name if ctx.slots.gpu in ctx.catalog.gpus else ctx.slots.gpu or DEFAULT_GPU
    blocks: list = [LeadBlock(text=say("rent_or_buy.need_rate", ctx.lang, gpu=gpu)), ParagraphBlock(text=say("rent_or_buy.what_decides", ctx.lang))]
    hits = ctx.retrieve(k=3, topics=["cloud-vs-onprem", "cost"])
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=3, headings=[h.heading for h in hits])
    quoted, hits = extract.cite(passages, hits, title=say("workload.what_else_decides", ctx.lang))
    return Draft(blocks=[*blocks, *quoted], hits=hits, follow_ups=[say("cloud.follow_up_break_even", ctx.lang), say("workload.follow_hybrid", ctx.lang)])
