"""Blanket memory claims about running a model, with no card named: "you need 80 GB to run any 7B" (a requirement),
"an 8B runs in 4 GB" (a sufficiency claim).

The inference tool gives, for one sequence, the weights at 16-bit, INT8 and 4-bit, the KV cache and the total with
runtime overhead; the verdict says at which precision the claim holds. Shown as a small table.
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import model_label, num
from service.assistant.messages import say
from service.contract import TableBlock, TableCell, TableColumn

GB_FIGURE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:GB|GiB|G)(?![a-z/])(?!\s*/\s*s)", re.I)
FORMATS = (None, "int8", "int4")
GIB = 2**30 / 1e9


def claimed_gb(text: str) -> float | None:
    match = GB_FIGURE.search(text)
    return float(match.group(1)) if match and float(match.group(1)) > 0 else None


def is_vram_claim(text: str, slots) -> bool:
    """A model, a GB figure, no card named (a card named by its memory alone counts as none), and no training."""
    from service.assistant.claim_checks import cue

    named_card = slots.gpu and not slots.card_memory_gb
    if not (slots.model or slots.params_b) or named_card or claimed_gb(text) is None:
        return False
    if slots.task in ("pretrain", "fine-tune") or slots.method:
        return False
    return cue("vram_need", text) or cue("vram_enough", text)


def vram_claim(ctx):
    from service.assistant.claim_checks import Finding, cue

    s, lang = ctx.slots, ctx.lang
    claimed = claimed_gb(ctx.text)
    model = {"model": s.model, "params_b": None if s.model else s.params_b}
    runs = [ctx.run("inference", {**model, "weights": w, "concurrency": 1, "context_len": s.context_len}) for w in FORMATS]
    totals = [r.per_gpu_total_gib * GIB for r in runs]
    fits = [t <= claimed for t in totals]
    requirement = cue("vram_need", ctx.text) and not cue("vram_only", ctx.text)
    smallest = next((i for i, ok in enumerate(fits) if ok), None)
    if requirement:
        verdict = "false" if smallest is not None and totals[smallest] < claimed * 0.9 else "true"
    else:
        verdict = "true" if fits[0] else "partly_true" if smallest is not None else "false"
    first = runs[0]
    name = model_label(ctx.catalog, s.model, first.params_b)
    kv = first.kv_per_sequence_gib * GIB
    ctx.record(
        "claim-check",
        {"claimed_gb": claimed, "claim": "requirement" if requirement else "enough", **{k: v for k, v in model.items() if v}},
        {
            **{f"{r.weights_format}_total_gb": round(t, 2) for r, t in zip(runs, totals)},
            **{f"{r.weights_format}_weights_gb": round(r.weights_gib * GIB, 2) for r in runs},
            "kv_cache_gb": round(kv, 2),
            "verdict": verdict,
        },
    )
    w = [num(r.weights_gib * GIB) for r in runs]
    t = [num(x) for x in totals]
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang))
        + " "
        + say("claims_extra.vram_lead", lang, model=name, context=f"{first.context_len:,}", w16=w[0], w8=w[1], w4=w[2], kv=num(kv), t16=t[0], t8=t[1], t4=t[2])
    )
    label = _label(runs)
    if requirement:
        point = (
            say("claims_extra.vram_need_true", lang, t4=t[2], claimed=num(claimed))
            if verdict == "true"
            else say("claims_extra.vram_need_false", lang, claimed=num(claimed), fmt=label[smallest], total=t[smallest])
        )
    elif verdict == "true":
        point = say("claims_extra.vram_enough_true", lang, claimed=num(claimed), t16=t[0])
    elif verdict == "partly_true":
        point = say("claims_extra.vram_enough_partly", lang, claimed=num(claimed), fmt=label[smallest], total=t[smallest], t16=t[0])
    else:
        point = say("claims_extra.vram_enough_false", lang, claimed=num(claimed), w4=w[2], t4=t[2])
    table = TableBlock(
        columns=[
            TableColumn(key="format", label=say("claims_extra.vram_col_format", lang)),
            TableColumn(key="weights", label=say("claims_extra.vram_col_weights", lang), unit="GB", align="right"),
            TableColumn(key="kv", label=say("claims_extra.vram_col_kv", lang), unit="GB", align="right"),
            TableColumn(key="total", label=say("claims_extra.vram_col_total", lang), unit="GB", align="right"),
            TableColumn(key="fits", label=say("claims_extra.vram_col_fits", lang, claimed=num(claimed))),
        ],
        rows=[
            [
                TableCell(text=label[i]),
                TableCell(text=w[i], value=r.weights_gib * GIB),
                TableCell(text=num(kv), value=kv),
                TableCell(text=t[i], value=totals[i]),
                TableCell(text=say("claims_extra.vram_yes" if fits[i] else "claims_extra.vram_no", lang)),
            ]
            for i, r in enumerate(runs)
        ],
    )
    points = [point, say("claims_extra.vram_kv", lang, context=f"{first.context_len:,}", kv=num(kv))]
    return Finding("vram", verdict, lead, points, topics=["claims", "inference", "memory"], table=table)


def _label(runs) -> list[str]:
    return [{"bf16": "BF16/FP16", "fp16": "BF16/FP16", "int4": "4-bit (INT4)"}.get(r.weights_format, r.weights_format.upper()) for r in runs]
