"""Bursty demand: a small steady load with large peaks ("平时十几张卡，季度末要上百张"). The expert answer is hybrid:
own (or reserve) the baseline that stays busy, rent the peak's extra GPUs only while it lasts. Both halves are
priced with the break-even tool, each at its own utilisation, so the verdict for each is a computed one."""

from __future__ import annotations

import re

from service.assistant.compose import extract
from service.assistant.compose.fmt import money, num, pct
from service.assistant.compose.work import assumptions
from service.assistant.handlers.base import Context, Draft
from service.sizing.defaults import DEFAULT_GPU
from service.assistant.handlers.recommendation import _currency
from service.assistant.messages import say
from service.contract import LeadBlock, ParagraphBlock

COUNT = re.compile(r"(\d{1,6})\s*(?:张|块|台|个节点|cards?\b|gpus?\b|nodes?\b|x?\s*(?:h100|a100|h800|h200|l40s|4090)s?\b)", re.I)
# How many GPUs a vague Chinese count means, stated back to the user as an assumption.
VAGUE_ZH = {"十几": 15, "十来": 12, "二十几": 25, "几十": 30, "上百": 100, "一百多": 120, "几百": 300, "上千": 1000}
VAGUE = re.compile(r"(十几|十来|二十几|几十|上百|一百多|几百|上千)\s*(?:张|块|台)")
# How much of the year the peak lasts, by the words that name it: (share of the year, message key of the reading).
PEAK_SHARES = (
    (re.compile(r"月底|月末|end of (?:the |each |every )?month|month-end|每个月", re.I), 0.25, "burst.peak_month"),
    (re.compile(r"季度末|end of (?:the |each |every )?quarter|quarter-end|每季度", re.I), 0.15, "burst.peak_quarter"),
    (re.compile(r"年底|旺季|seasonal|peak season|year-end|end of (?:the )?year", re.I), 0.15, "burst.peak_season"),
)
DEFAULT_PEAK_SHARE = 0.2
BASELINE_UTILIZATION = 0.8  # the baseline is what stays busy most of the year


# "16 H100s normally but 128 at month-end": the second count often goes without its unit.
BARE = re.compile(
    r"(?<![\w.])(\d{1,5})(?![\d.]|\s*(?:%|gb|tb|[kmbt]\b|小时|hours?|h\b|days?|天|年|years?|months?|个月|weeks?|周|tokens?|w\b|kw|元|块钱|美元|usd))", re.I
)


def counts(text: str) -> list[int]:
    found = [int(m.group(1)) for m in COUNT.finditer(text)]
    found += [VAGUE_ZH[m.group(1)] for m in VAGUE.finditer(text)]
    if len(set(found)) == 1:
        found += [int(m.group(1)) for m in BARE.finditer(text) if int(m.group(1)) >= 2]
    return sorted({n for n in found if n > 0})


def burst_answer(ctx: Context) -> Draft | None:
    """The hybrid plan when the question names a baseline and a peak; None when it does not (two counts needed)."""
    if "bursty_demand" not in ctx.understanding.evidence:
        return None
    found = counts(ctx.text)
    if len(found) < 2:
        return None
    base, peak = found[0], found[-1]
    share, reading = next(((s, key) for pattern, s, key in PEAK_SHARES if pattern.search(ctx.text)), (DEFAULT_PEAK_SHARE, "burst.peak_default"))
    gpu = ctx.slots.gpu or DEFAULT_GPU
    currency = _currency(ctx)
    owned = ctx.run("break-even", {"gpu": gpu, "gpus": base, "utilization": BASELINE_UTILIZATION, "currency": currency})
    extra = ctx.run("break-even", {"gpu": gpu, "gpus": peak - base, "utilization": share, "currency": currency})
    hybrid = owned.onprem_yearly_cost + extra.cloud_yearly_cost
    everything_owned = owned.onprem_yearly_cost + extra.onprem_yearly_cost
    ctx.record(
        "hybrid-yearly-cost",
        {
            "baseline_gpus": base,
            "peak_gpus": peak,
            "baseline_onprem": owned.onprem_yearly_cost,
            "peak_extra_cloud": extra.cloud_yearly_cost,
            "peak_extra_onprem": extra.onprem_yearly_cost,
        },
        {"hybrid": hybrid, "all_owned": everything_owned},
    )
    gpu_name = ctx.catalog.gpus[gpu].name if gpu in ctx.catalog.gpus else gpu
    lead = say("burst.lead", ctx.lang, base=base, peak=peak, extra=peak - base, gpu=gpu_name)
    body = say(
        "burst.halves",
        ctx.lang,
        base=base,
        base_util=pct(BASELINE_UTILIZATION),
        break_even=pct(owned.break_even_utilization) if owned.break_even_utilization is not None else "—",
        base_onprem=money(owned.onprem_yearly_cost, currency),
        base_cloud=money(owned.cloud_yearly_cost, currency),
        extra=peak - base,
        share=pct(share),
        extra_cloud=money(extra.cloud_yearly_cost, currency),
        extra_onprem=money(extra.onprem_yearly_cost, currency),
        hybrid=money(hybrid, currency),
        owned_all=money(everything_owned, currency),
    )
    notes = [say(reading, ctx.lang, share=pct(share)), say("burst.assumed_baseline", ctx.lang, util=pct(BASELINE_UTILIZATION))]
    if not ctx.slots.gpu:
        notes.append(say("workload.assumed_gpu", ctx.lang))
    hits = ctx.retrieve(k=3, topics=["cloud-vs-onprem", "cost"])
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=3, headings=[h.heading for h in hits])
    quoted, hits = extract.cite(passages, hits, title=say("workload.what_else_decides", ctx.lang))
    blocks = [
        LeadBlock(text=lead),
        ParagraphBlock(text=body),
        ParagraphBlock(text=say("burst.how", ctx.lang, peak=num(peak - base))),
        *assumptions(notes),
        *quoted,
    ]
    return Draft(
        blocks=blocks,
        hits=hits,
        works=[("break-even", owned.work), ("break-even", extra.work)],
        follow_ups=[say("workload.follow_utilization_90", ctx.lang), say("cloud.follow_up_spot", ctx.lang)],
    )
