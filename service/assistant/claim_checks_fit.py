"""Positive memory-fit claims with no training named: "70B fits on one 80GB card".

Whether it fits depends on the weight format: serving memory (weights plus the KV cache of one sequence) per format
from the inference tool, then training memory (full / LoRA / QLoRA) from claim_checks_hardware.memory's figures, so
the answer says for which use the claim holds.
"""

from __future__ import annotations

from service.assistant.compose.fmt import num
from service.assistant.messages import say

FORMATS = (None, "fp8", "int4")  # 16-bit (the default), 8-bit, 4-bit weights


def serving_fit(ctx, training: list):
    """`training`: the full / LoRA / QLoRA training-memory results already run for the same card."""
    from service.assistant.claim_checks import Finding

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    gpus = s.gpus or 1
    runs = []
    for weights in FORMATS:
        payload = {
            "model": s.model,
            "params_b": None if s.model else s.params_b,
            "gpu": s.gpu,
            "gpus": gpus,
            "concurrency": 1,
            "context_len": s.context_len,
            "weights": weights,
        }
        if weights == "fp8" and not catalog.gpus[s.gpu].supports_fp8:
            payload["weights"] = "int8"
        result, _ = ctx.try_run("inference", payload)
        if result is not None:
            runs.append(result)
    if not runs:
        return None
    word = {k: say(f"claim.fit.{k}", lang) for k in ("fits", "tight", "does_not_fit")}
    first = runs[0]
    verdict = "true" if first.fit != "does_not_fit" else "partly_true" if any(r.fit != "does_not_fit" for r in runs) else "false"
    ctx.record("claim-check", {"gpu": s.gpu, "gpus": gpus, "model": first.model}, {r.weights_format: r.fit for r in runs} | {"verdict": verdict})
    rows = ("；" if lang == "zh" else "; ").join(
        say("claim.fit_row", lang, fmt=r.weights_format.upper(), weights=num(r.weights_gib), total=num(r.per_gpu_total_gib), fit=word[r.fit]) for r in runs
    )
    gpu = catalog.gpus[s.gpu]
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang))
        + " "
        + say("claim.fit_serving", lang, gpus=gpus, gpu=gpu.name, memory=num(first.gpu_memory_gib), rows=rows, context=f"{first.context_len:,}")
    )
    full, lora, qlora = training
    points = [
        say(
            "claim.fit_training",
            lang,
            full=num(full.per_gpu.total_gib),
            full_fit=word[full.fit],
            lora=num(lora.per_gpu.total_gib),
            lora_fit=word[lora.fit],
            qlora=num(qlora.per_gpu.total_gib),
            qlora_fit=word[qlora.fit],
        ),
        say("claim.fit_kv", lang),
    ]
    return Finding("memory", verdict, lead, points, results=[first], topics=["inference", "memory"])
