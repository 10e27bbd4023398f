"""Time claims: "Llama 3 70B pre-trained in 10 days on 512 H100", "7B fully fine-tuned on 1M samples of 512 tokens in
10 minutes on one A100", "200k GPU-hours for 70B". The training-time tool gives the estimate; the claim's own
duration, GPU count and data size are quoted with the gap (×).

Data size: tokens when the claim gives them; else samples × tokens per sample (× epochs) - the tool multiplies them -
and a "512 tokens" written next to a sample count is the sample length, not the data size; else the model's published
pre-training tokens, else compute-optimal (20 tokens per parameter).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import big, duration, duration_band, num
from service.assistant.messages import say
from service.sizing.defaults import DEFAULT_GPU

MINUTES = re.compile(r"(\d+(?:\.\d+)?)\s*(?:minutes?|mins?\b|分钟)", re.I)
PER_SAMPLE_MAX = 131_072  # a "tokens" figure no longer than one long-context sample, written next to a sample count


def claimed_hours(text: str, slots) -> float | None:
    """The claimed wall-clock: the deadline slot, or minutes ("10 minutes", "10分钟"), which the slots do not read."""
    if slots.deadline_hours:
        return slots.deadline_hours
    minutes = MINUTES.search(text)
    return float(minutes.group(1)) / 60 if minutes and float(minutes.group(1)) > 0 else None


def data_size(s) -> dict:
    """The tool's data fields: samples × sequence length (× epochs) when a sample count is given, else tokens."""
    if s.samples and (s.seq_len or s.tokens and s.tokens <= PER_SAMPLE_MAX):
        return {"samples": s.samples, "seq_len": s.seq_len or int(s.tokens), "epochs": s.epochs}
    return {"tokens": s.tokens} if s.tokens and not s.samples else {}


def time_claim(ctx):
    from service.assistant.claim_checks import CHECKS, Finding, _gpus, _precision, _secondary_speed_kind

    s, lang = ctx.slots, ctx.lang
    model = ctx.catalog.models.get(s.model or "")
    data = data_size(s)
    notes = []
    if not data:
        tokens = model.pretraining_tokens if model and s.task in (None, "pretrain") else None
        if tokens is None:
            tokens = 20 * (model.params if model else (s.params_b or 0) * 1e9)  # compute-optimal (Chinchilla)
        elif s.tokens is None:
            notes.append(say("claim.time_tokens_note", lang, model=model.name, tokens=big(tokens, lang)))
        data = {"tokens": tokens}
    gpu = s.gpu or DEFAULT_GPU
    gpus = s.gpus or (s.nodes * 8 if s.nodes else 1 if s.gpu and not s.gpu_hours else 8)
    base = {"model": s.model, "params_b": None if s.model else s.params_b, "gpu": gpu, "method": s.method, **data}
    timing = ctx.run("training-time", {**base, "gpus": gpus, "precision": s.precision})
    hours = claimed_hours(ctx.text, s)
    if s.gpu_hours and not s.deadline_hours:
        return _gpu_hours(ctx, timing, s.gpu_hours, notes)
    need = ctx.run("gpus-for-deadline", {**base, "deadline_hours": hours})
    budget = {k: v for k, v in base.items() if k not in ("tokens", "samples", "seq_len", "epochs")}
    fit = ctx.run("tokens-in-budget", budget | {"gpus": gpus, "hours": hours, "seq_len": data.get("seq_len")})
    ratio = timing.hours.typical / hours
    verdict = "not_credible" if ratio >= 3 else "optimistic" if ratio >= 1.5 else "plausible" if ratio >= 0.67 else "conservative"
    ctx.record(
        "claim-check",
        {"claimed_hours": hours, "gpus": gpus, "gpu": gpu, "tokens": timing.tokens},
        {"estimated_hours": timing.hours.typical, "ratio": ratio, "claimed_over_estimate": 1 / ratio, "verdict": verdict},
    )
    name = ctx.catalog.gpus[gpu].name
    claimed = duration(hours, lang)
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang))
        + " "
        # Well inside the claim: say how many times less time the run needs, not a fraction "× longer"
        + say("claim.time_lead" if ratio >= 0.67 else "claim.time_lead_faster", lang, gpus=gpus, gpu=name,
              estimate=duration_band(timing.hours, lang), claimed=claimed, ratio=num(ratio), inverse=num(1 / ratio))
    )
    points = []
    if "samples" in data:
        # "1M samples of ~512 tokens": the data size is their product, the number every other figure follows from
        points.append(
            say(
                "claim.time_samples",
                lang,
                samples=big(data["samples"], lang),
                seq_len=f"{data['seq_len']:,}",
                tokens=big(timing.tokens, lang),
                rate=num(timing.tokens_per_second),
                hours=num(timing.hours.typical),
            )
        )
    points.append(_available(ctx, gpus, hours, timing))
    points += [
        say("claim.time_need", lang, claimed=claimed, need=num(need.gpus.typical), gpu=name, need_rounded=f"{need.gpus_rounded:,}"),
        say("claim.time_can", lang, gpus=gpus, gpu=name, claimed=claimed, tokens=big(fit.tokens.typical, lang)),
    ]
    second = _secondary_speed_kind(ctx.text, _gpus(s), _precision(ctx.text))
    if second:
        # "... and 3× faster than A100": that part of the claim, checked on the data sheets, with its own verdict
        part = CHECKS[second](ctx)
        prefix = say("claim.lead", lang, verdict=say(f"claim.verdict.{part.verdict}", lang))
        points.append(
            " ".join(
                [say("claim_hw.speed_part", lang, verdict=say(f"claim.verdict.{part.verdict}", lang)), part.lead.removeprefix(prefix).strip(), *part.points[:1]]
            )
        )
    return Finding("time", verdict, lead, points, notes, [timing, need, fit])


def _gpu_hours(ctx, timing, claimed: float, notes: list[str]):
    from service.assistant.claim_checks import Finding

    lang = ctx.lang
    estimate = timing.gpu_hours.typical
    ratio = estimate / claimed
    verdict = "not_credible" if ratio >= 3 else "optimistic" if ratio >= 1.5 else "plausible" if ratio >= 0.5 else "conservative"
    ctx.record(
        "claim-check",
        {"claimed_gpu_hours": claimed, "gpu": timing.gpu, "tokens": timing.tokens},
        {"estimated_gpu_hours": estimate, "ratio": ratio, "verdict": verdict},
    )
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang))
        + " "
        + say(
            "claim.gpu_hours_lead",
            lang,
            estimate=big(estimate, lang),
            low=big(timing.gpu_hours.low, lang),
            high=big(timing.gpu_hours.high, lang),
            claimed=big(claimed, lang),
            ratio=num(ratio),
            gpu=ctx.catalog.gpus[timing.gpu].name,
            flops=f"{timing.flops:.3g}",
        )
    )
    return Finding("time", verdict, lead, [], notes, [timing])


def _available(ctx, gpus: int, hours: float, timing) -> str:
    """The GPU-hours the claim has (GPUs × 24 h × days) next to the GPU-hours the run needs."""
    available = gpus * hours
    needed = timing.gpu_hours
    days = hours / 24
    ctx.record("claim-check", {"gpus": gpus, "claimed_hours": hours, "claimed_days": round(days, 3)},
               {"available_gpu_hours": available, "needed_gpu_hours": needed.typical, "needed_low": needed.low, "needed_high": needed.high,
                "needed_over_available": needed.typical / available})
    values = {"gpus": f"{gpus:,}", "available": f"{available:,.0f}", "needed": big(needed.typical, ctx.lang), "low": big(needed.low, ctx.lang),
              "high": big(needed.high, ctx.lang), "ratio": num(needed.typical / available)}
    if hours >= 24 and abs(days - round(days)) < 1e-6:
        return say("claims_extra.time_gpu_hours_days", ctx.lang, days=num(days), **values)
    return say("claims_extra.time_gpu_hours_hours", ctx.lang, hours=num(hours), **values)
