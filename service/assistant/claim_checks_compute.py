"""A claim about a run's total training compute: "GPT-3 took about 3.14e23 FLOPs".

The training-compute tool gives 6·N·D for the model's parameters N and the training tokens D. D is the user's figure
when stated, else the catalog's published pre-training tokens (cited); with neither the answer asks for D rather than
guess. Within CONSISTENT of 6·N·D the claim is consistent; otherwise the answer says by how many times it is off.
Sentences are in the message catalog (s2.compute_*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import big, num
from service.assistant.messages import say

_MANTISSA = r"(\d+(?:\.\d+)?)"
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
FLOPS = re.compile(
    rf"{_MANTISSA}\s*(?:e\s*\+?(\d{{2}})|[x×*]\s*10\s*(?:\^|\*\*)?\s*\+?(\d{{2}}|[⁰¹²³⁴⁵⁶⁷⁸⁹]{{2}}))\s*(?:次)?\s*(?:flops?|floating|次?浮点|算力|计算量)?",
    re.I,
)
FLOP_WORD = re.compile(r"flop|浮点|算力|计算量|compute", re.I)
CONSISTENT = (0.8, 1.25)  # within ±25% of 6·N·D: the usual spread of the approximation (attention, embeddings)


def claimed_flops(text: str) -> float | None:
    """The total FLOPs a text claims (1e20 or more), written as 3.14e23 or 3.14 × 10^23, next to a FLOP word."""
    if not FLOP_WORD.search(text):
        return None
    for m in FLOPS.finditer(text):
        exponent = (m.group(2) or m.group(3) or "").translate(_SUPER)
        value = float(m.group(1)) * 10 ** int(exponent)
        if value >= 1e20:
            return value
    return None


def _sci(x: float) -> str:
    return f"{x:.3g}"


def compute_claim(ctx):
    from service.assistant.claim_checks import Finding

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    claimed = claimed_flops(ctx.text)
    spec = catalog.models.get(s.model) if s.model else None
    tokens, source = s.tokens, None
    if tokens is None and spec is not None and spec.pretraining_tokens:
        tokens, source = spec.pretraining_tokens, spec.sources[0]
    if claimed is None or not (s.model or s.params_b):
        return None
    name = spec.name if spec else f"{num(s.params_b)}B"
    if tokens is None:
        ctx.record(
            "claim-check",
            {"claimed_flops": claimed, "model": s.model, "params_b": s.params_b},
            {"needs": "tokens", "flops_per_param_token": 6, "forward": 2, "backward": 4, "verdict": "unchecked"},
        )
        lead = say("s2.compute_need_tokens", lang, model=name, claimed=_sci(claimed))
        return Finding("compute", "unchecked", lead, [say("s2.compute_formula", lang)], topics=["claims", "utilization"])
    result = ctx.run("training-compute", {"model": s.model, "params_b": None if s.model else s.params_b, "tokens": tokens})
    ratio = claimed / result.flops_6nd
    verdict = "true" if CONSISTENT[0] <= ratio <= CONSISTENT[1] else "false"
    off = ratio if ratio >= 1 else 1 / ratio
    ctx.record(
        "claim-check",
        {"claimed_flops": claimed, "model": result.model, "tokens": tokens},
        {"flops_6nd": result.flops_6nd, "model_flops": result.model_flops, "ratio": ratio, "off_by": round(off, 2), "verdict": verdict},
    )
    values = {
        "model": name,
        "params": num(result.active_params_b),
        "tokens": big(tokens, lang),
        "flops": _sci(result.flops_6nd),
        "claimed": _sci(claimed),
        "ratio": num(ratio),
        "off": num(off),
        "with_attention": _sci(result.model_flops),
    }
    key = "s2.compute_consistent" if verdict == "true" else "s2.compute_high" if ratio > 1 else "s2.compute_low"
    lead = say("claim.lead", lang, verdict=say(f"s2.compute_verdict.{verdict}", lang)) + " " + say(key, lang, **values)
    points = []
    if source is not None:
        points.append(say("s2.compute_tokens_source", lang, tokens=big(tokens, lang), title=source.title.split(" (")[0], url=source.url))
    points.append(say("s2.compute_attention", lang, **values))
    return Finding("compute", verdict, lead, points, results=[result], topics=["claims", "utilization"])
