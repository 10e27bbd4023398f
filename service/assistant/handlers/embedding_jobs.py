"""Offline embedding (or reranking) jobs over a corpus: "30M documents through bge-large, which GPU?".

An encoder is small (a few hundred million parameters), so memory never decides the card: compute does. A forward
pass costs about 2 FLOPs per parameter per token (Kaplan et al., 2020), so the job is

    FLOPs = 2 x encoder parameters x documents x tokens per document

and each card delivers its dense FP16 tensor throughput (catalog) times an assumed utilisation. The table prices the
whole job on each card at its cheapest listed on-demand rate: the cheapest per job leads. Every figure is recorded
as a tool call with its sources; the assumptions (tokens per document, utilisation, the default encoder) are stated.
"""

from __future__ import annotations

import math
import re

from service.assistant import cues
from service.assistant.compose.fmt import money, num, pct
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.assistant.numbers import quantities
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn

CARDS = ("l4", "a10", "rtx-4090", "l40s", "a100-80gb-sxm", "h100-sxm")
UTILISATION = 0.3  # share of dense FP16 peak a batched encoder reaches (padding, tokenisation, short sequences)
TOKENS_PER_DOC = 256  # a typical retrieval chunk when the question gives no length
FINISH_HOURS = 24.0  # cards needed to finish within a day, beside the one-card time
KAPLAN = "https://arxiv.org/abs/2001.08361"
# Encoders people name, with the parameter count on their model cards. Checked in order: the first match wins.
ENCODERS = (
    ("bge-m3", r"bge[- ]?m3", 568e6, "https://huggingface.co/BAAI/bge-m3"),
    ("bge-large", r"bge[- ]?large", 335e6, "https://huggingface.co/BAAI/bge-large-en-v1.5"),
    ("bge-base", r"bge[- ]?base", 109e6, "https://huggingface.co/BAAI/bge-base-en-v1.5"),
    ("e5-large", r"e5[- ]?large", 335e6, "https://huggingface.co/intfloat/e5-large-v2"),
    ("all-MiniLM-L6-v2", r"minilm", 22.7e6, "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"),
)
ENCODER_NAMES = tuple(re.compile(spelling, re.I) for _, spelling, _, _ in ENCODERS)
DEFAULT_ENCODER = 1  # bge-large: the usual open-weights choice
# What follows a count of documents: an optional spelled-out scale, then the unit.
DOCS = re.compile(r"\s*(thousand|million|billion)?\s*(?:条|篇|份|个|docs?\b|documents?|passages?|chunks?|texts?|records?|rows?|pages?|sentences?|items?)", re.I)
TOKENS = re.compile(r"(\d[\d,]*)\s*(?:tokens?|token)\s*(?:each|per|/|一条|每条|平均)|(?:每条|平均|avg|average|~)\s*(\d[\d,]*)\s*tokens?", re.I)
SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def asks(text: str) -> bool:
    return cues.matches("workload_archetypes.yaml", "embedding", text)


def _documents(text: str) -> float | None:
    """The largest count followed by a document unit ("30M documents", "两千万条", "50 million docs")."""
    values = []
    for value, _, end in quantities(text):
        unit = DOCS.match(text, end)
        if unit:
            values.append(value * SCALE.get((unit.group(1) or "").lower(), 1))
    return max(values) if values and max(values) > 1 else None


def answer(ctx: Context) -> Draft | None:
    if not asks(ctx.text) or ctx.slots.model or ctx.slots.task in ("fine-tune", "pretrain"):
        return None
    lang, text = ctx.lang, ctx.text
    notes: list[str] = []
    named = next((e for e, pattern in zip(ENCODERS, ENCODER_NAMES, strict=True) if pattern.search(text)), None)
    name, _, params, source = named or ENCODERS[DEFAULT_ENCODER]
    if named is None:
        notes.append(say("embedding.assumed_encoder", lang, model=name, params=num(params / 1e6)))
    docs = _documents(text)
    if docs is None:
        docs = 10e6
        notes.append(say("embedding.assumed_docs", lang, n=f"{docs:,.0f}"))
    m = TOKENS.search(text)
    tokens = int((m.group(1) or m.group(2)).replace(",", "")) if m else TOKENS_PER_DOC
    if m is None:
        notes.append(say("embedding.assumed_tokens", lang, n=TOKENS_PER_DOC))
    flops = 2 * params * docs * tokens
    currency = ctx.slots.currency or ("CNY" if lang == "zh" else "USD")
    rows = []
    for gpu_id in CARDS:
        gpu = ctx.catalog.gpus.get(gpu_id)
        if gpu is None or not gpu.dense_tflops("fp16"):
            continue
        hours = flops / (gpu.dense_tflops("fp16") * 1e12 * UTILISATION) / 3600
        price, _ = ctx.try_run("cost", {"gpu_hours": max(hours, 0.01), "gpu": gpu_id, "gpus": 1, "currency": currency})
        hourly = price.cheapest.price.price_per_gpu_hour if price is not None and price.cheapest else None
        rows.append((gpu, hours, math.ceil(hours / FINISH_HOURS), hourly, hourly * hours if hourly else None))
    ctx.record(
        "embedding-job",
        {
            "encoder": name,
            "params": params,
            "documents": docs,
            "tokens_per_document": tokens,
            "flops_per_token_per_param": 2,
            "utilisation": UTILISATION,
            "sources": [source, KAPLAN],
        },
        {
            "flops": flops,
            "weights_gb_fp16": params * 2 / 1e9,
            **{g.id: {"hours_on_one_card": h, "cards_for_a_day": c, "price_per_gpu_hour": p, "job_cost": j} for g, h, c, p, j in rows},
        },
    )
    rows.sort(key=lambda r: (r[4] is None, r[4] or 0))
    best = rows[0]
    values = {
        "docs": f"{docs:,.0f}",
        "model": name,
        "gpu": best[0].name,
        "hours": num(best[1]),
        "cards": best[2],
        "cost": money(best[4], currency) if best[4] else "—",
        "weights": num(params * 2 / 1e9),
        "tokens": tokens,
        "util": pct(UTILISATION),
        "flops": f"{flops:.2e}",
        "params": num(params / 1e6),
        "source": f"[{name}]({source})",
        "kaplan": f"[Kaplan et al., 2020]({KAPLAN})",
    }
    blocks = [
        LeadBlock(text=say("embedding.lead", lang, **values)),
        *[NoticeBlock(kind="assumption", text=n) for n in notes],
        ParagraphBlock(text=say("embedding.work", lang, **values)),
        _table(lang, rows, currency),
        ParagraphBlock(text=say("embedding.advice", lang, **values)),
    ]
    return Draft(
        blocks=blocks, hits=ctx.retrieve(say("embedding.query", lang), k=2), follow_ups=[say("media.follow_cloud", lang), say("media.follow_buy", lang)]
    )


def _table(lang: str, rows: list, currency: str) -> TableBlock:
    columns = [
        TableColumn(key="gpu", label="GPU"),
        TableColumn(key="hours", label=say("embedding.col_hours", lang), align="right"),
        TableColumn(key="cards", label=say("embedding.col_cards", lang), align="right"),
        TableColumn(key="price", label=say("media.col_price", lang), align="right"),
        TableColumn(key="cost", label=say("embedding.col_cost", lang), align="right"),
    ]
    return TableBlock(
        columns=columns,
        rows=[
            [
                TableCell(text=g.name),
                TableCell(text=num(h), value=h),
                TableCell(text=str(c), value=c),
                TableCell(text=money(p, currency) if p else "—", value=p),
                TableCell(text=money(j, currency) if j else "—", value=j),
            ]
            for g, h, c, p, j in rows
        ],
    )
