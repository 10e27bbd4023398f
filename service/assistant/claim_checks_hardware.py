"""Claims decided by one hardware figure rather than by a training calculation.

- `decode_latency(ctx)`: "20 ms per output token per user for a 70B on A100". Decoding one sequence reads every
  weight from HBM per token, so the per-token time is bounded below by weights ÷ (GPUs × memory bandwidth); tensor
  parallelism (TP) adds the GPUs' bandwidth together. The inference tool gives the realistic figure per TP degree.
- `memory(ctx)`: "one T4 is enough to fine-tune 8B", "one A100 40GB cannot hold 70B, so TP is required": the memory tool
  for full / LoRA / QLoRA on that card, and for a negative claim what sharding on one node does.
- `feature(ctx)`: FP8 / BF16 / NVLink on a named card, from its catalog entry.
- `export_variant(ctx)`: "A800 is just as fast as A100", "H800 is a slower H100". The export cards keep the compute
  and memory of the card they derive from and cut NVLink; the catalog holds both links.

Both return a claim_checks.Finding; sentences are in the message catalog (claim_hw.*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import link_name, num, pick
from service.assistant.messages import say
from service.assistant.spec_facts import export_pair
from service.sizing.defaults import DEFAULT_GPU

PER_TOKEN_MS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:ms|毫秒)", re.I)
_RATE = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"  # "10,000" as well as "25" and "12.5"
_TO = rf"(?:\s*(?:-|–|~|～|到|至|to)\s*{_RATE})?"  # "15-25 tokens/s", "每秒15到25个token": the upper end is the claim
TOKENS_PER_S = re.compile(rf"{_RATE}{_TO}\s*(?:个)?\s*tokens?\s*(?:/\s*s(?:ec)?\b|每秒|per second)|"
                          rf"每秒\s*(?:能|可以|可|约|大约)?\s*(?:有|达|达到|跑|跑到|跑出|生成|输出)?\s*{_RATE}{_TO}\s*(?:个)?\s*token", re.I)
TP_DEGREES = (1, 2, 4, 8)


def claimed_ms_per_token(text: str) -> float | None:
    """The claimed per-token time in ms: written in ms, or a per-user decode speed in tokens/s (the fastest figure claimed)."""
    ms = PER_TOKEN_MS.search(text)
    if ms:
        return float(ms.group(1))
    rates = [float(x.replace(",", "")) for match in TOKENS_PER_S.findall(text) for x in match if x]
    return 1000 / max(rates) if rates and max(rates) > 0 else None


def _model(ctx) -> dict:
    s = ctx.slots
    return {"model": s.model, "params_b": None if s.model else s.params_b}


def _decode_runs(ctx, gpu_id: str) -> list:
    """The inference tool at one sequence for each TP degree that holds the weights (the GPUs named, else 1, 2, 4, 8);
    when 16-bit weights fit on none, INT8 then INT4 (a claim about a small card assumes quantised weights)."""
    s = ctx.slots
    named = s.weights or (s.precision if s.precision in ("fp8", "int8", "int4") else None) or _format_named(ctx.text)
    for weights in ([named] if named else [None, "int8", "int4"]):
        runs = []
        for n in ([s.gpus] if s.gpus else TP_DEGREES):
            result, _ = ctx.try_run("inference", {**_model(ctx), "gpu": gpu_id, "gpus": n, "concurrency": 1, "context_len": s.context_len,
                                                  "weights": weights})
            if result is not None and result.fit != "does_not_fit" and result.decode_tokens_per_second:
                runs.append(result)
        if runs:
            return runs
    return []


WEIGHT_FORMAT = re.compile(r"\b(fp8|int8|int4)\b|(awq|gptq|4[- ]?bit)|(8[- ]?bit)", re.I)


def _format_named(text: str) -> str | None:
    """"in FP8", "INT4 (AWQ)": the weight format the claim is about."""
    m = WEIGHT_FORMAT.search(text)
    if not m:
        return None
    return m.group(1).lower() if m.group(1) else "int4" if m.group(2) else "int8"


def decode_latency(ctx):
    from service.assistant.claim_checks import Finding  # claim_checks dispatches here

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    gpu = catalog.gpus[s.gpu or DEFAULT_GPU]
    claimed = claimed_ms_per_token(ctx.text)
    runs = _decode_runs(ctx, gpu.id)
    if claimed is not None and not runs:
        from service.assistant.claim_checks_decode import offload_finding  # fits nowhere: the weights stream over PCIe

        return offload_finding(ctx, gpu, claimed, _model(ctx))
    if claimed is None:
        return None
    rows = []
    for r in runs:
        # Bytes read per output token: the weights (only the active experts' for MoE) plus the sequence's KV cache.
        steps = {step.name: step.value for step in r.work.steps}
        weights_gb = steps.get("decode.bytes_per_step", r.weights_gib * 2**30) / 1e9
        floor_ms = weights_gb / (r.gpus * gpu.memory_bandwidth_gbps) * 1000
        band = r.decode_tokens_per_second
        rows.append((r, weights_gb, floor_ms, 1000 / band.typical, 1000 / band.high, 1000 / band.low))
        ctx.record("decode-floor", {"weights_gb": weights_gb, "gpus": r.gpus, "memory_bandwidth_gbps": gpu.memory_bandwidth_gbps},
                   {"floor_ms_per_token": floor_ms, "typical_ms_per_token": 1000 / band.typical, "best_ms_per_token": 1000 / band.high,
                    "worst_ms_per_token": 1000 / band.low})
    meets = next((row for row in rows if row[3] <= claimed), None)
    floor = min(row[2] for row in rows)
    verdict = "plausible" if meets else "optimistic" if claimed >= floor else "not_credible"  # below the floor is physically impossible
    shown = meets or rows[0]
    if not PER_TOKEN_MS.search(ctx.text):
        from service.assistant.claim_checks_decode import rate_finding  # "10,000 tokens/s at batch 1": answered in tokens/s

        # A rate claim names a card ("on an RTX 4090"): judged on the fewest GPUs that hold the model, not on TP=8.
        first = rows[0]
        verdict = "plausible" if first[3] <= claimed else "optimistic" if claimed >= first[2] else "not_credible"
        return rate_finding(ctx, gpu, first, verdict, claimed, _name(ctx, first[0].model))
    r, weights_gb, floor_ms, typical_ms, best_ms, worst_ms = shown
    ctx.record("claim-check", {"claimed_ms_per_token": claimed, "gpu": gpu.id}, {"gpus": r.gpus, "typical_ms_per_token": typical_ms,
                                                                                   "verdict": verdict})
    values = {"model": _name(ctx, r.model), "fmt": r.weights_format.upper(), "gpus": r.gpus, "gpu": gpu.name, "typical": num(typical_ms),
              "low": num(best_ms), "high": num(worst_ms), "floor": num(floor_ms), "claimed": num(claimed), "weights": num(weights_gb),
              "bw": num(gpu.memory_bandwidth_gbps)}
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say("claim_hw.decode_lead", lang, **values)
    points = [say("claim_hw.decode_bound", lang, **values)]
    points += [say("claim_hw.decode_tp", lang, gpus=row[0].gpus, gpu=gpu.name, floor=num(row[2]), typical=num(row[3]), fmt=row[0].weights_format.upper())
               for row in rows]
    points.append(say("claim_hw.decode_levers", lang))
    return Finding("decode", verdict, lead, points, results=[r], topics=["claims", "inference"])


def _name(ctx, model: str) -> str:
    return ctx.catalog.models[model].name if model in ctx.catalog.models else model.removesuffix(" (estimated shape)")


def export_variant(ctx):
    """Same compute and memory, less NVLink: true only for work that waits on NVLink."""
    from service.assistant.claim_checks import Finding, _gpus

    lang, catalog = ctx.lang, ctx.catalog
    variant, base = export_pair(_gpus(ctx.slots), catalog)
    tf_v, tf_b = variant.dense_tflops("bf16"), base.dense_tflops("bf16")
    nv_v, nv_b = variant.scale_up.bandwidth_gbps_bidir, base.scale_up.bandwidth_gbps_bidir
    ctx.record("claim-check", {"variant": variant.id, "base": base.id},
               {"variant_bf16_dense_tflops": tf_v, "base_bf16_dense_tflops": tf_b, "variant_bandwidth_gbps": variant.memory_bandwidth_gbps,
                "base_bandwidth_gbps": base.memory_bandwidth_gbps, "variant_nvlink_gbps": nv_v, "base_nvlink_gbps": nv_b,
                "nvlink_ratio": nv_b / nv_v, "verdict": "partly_true"})
    values = {"variant": variant.name, "base": base.name, "tf": num(tf_v), "bw": num(variant.memory_bandwidth_gbps), "link_v": link_name(variant.scale_up.name, lang),
              "link_b": link_name(base.scale_up.name, lang), "nv_v": num(nv_v), "nv_b": num(nv_b), "ratio": num(nv_b / nv_v)}
    lead = say("claim.lead", lang, verdict=say("claim.verdict.partly_true", lang)) + " " + say("claim_hw.export_lead", lang, **values)
    points = [say("claim_hw.export_same", lang, **values), say("claim_hw.export_slower", lang, **values)]
    results = []
    s = ctx.slots
    if s.model or s.params_b:
        # One gradient all-reduce of the user's model inside an 8-GPU node, on each card: the NVLink cut in seconds.
        slow = ctx.run("allreduce", {**_model(ctx), "gpu": variant.id, "gpus": 8, "gpus_per_node": 8})
        fast = ctx.run("allreduce", {**_model(ctx), "gpu": base.id, "gpus": 8, "gpus_per_node": 8})
        points.append(say("claim_hw.export_allreduce", lang, variant=variant.name, base=base.name, slow=num(slow.total_ms), fast=num(fast.total_ms)))
        results = [slow, fast]
    return Finding("export", "partly_true", lead, points, results=results, topics=["gpu-selection", "networking"])


def memory(ctx):
    """"One T4 is enough to fine-tune 8B", "one A100 40GB cannot hold 70B": full / LoRA / QLoRA on the card named."""
    from service.assistant.claim_checks import Finding, cue, has_inference_speed

    s, lang = ctx.slots, ctx.lang
    base = {"model": s.model, "params_b": None if s.model else s.params_b, "gpu": s.gpu}
    full, lora, qlora = (ctx.run("training-memory", {**base, "method": m}) for m in ("full", "lora", "qlora"))
    fits = [r.fit for r in (full, lora, qlora)]
    if cue("fits", ctx.text) and not cue("cannot_hold", ctx.text) and s.task in (None, "inference") and s.method is None:
        from service.assistant.claim_checks_fit import serving_fit  # "70B fits on one 80GB card": by weight format first

        found = serving_fit(ctx, [full, lora, qlora])
        if found is not None:
            return found
    verdict = "true" if full.fit != "does_not_fit" else "partly_true" if "does_not_fit" in fits and fits != ["does_not_fit"] * 3 else "false"
    if s.method in ("full", "lora", "qlora") and cue("fits", ctx.text) and not cue("cannot_hold", ctx.text):
        # "fits for full fine-tuning": the method named decides; the others are shown as the way out
        verdict = "true" if dict(zip(("full", "lora", "qlora"), fits))[s.method] != "does_not_fit" else "false"
    points = []
    if cue("cannot_hold", ctx.text):
        # "one A100 40GB cannot hold 70B, so you need TP": the first half is the tool's own result; the "so" is one way of several.
        verdict = "false" if full.fit != "does_not_fit" else "partly_true" if cue("tensor_parallel", ctx.text) else "true"
        if full.fit == "does_not_fit":
            points = _sharding_points(ctx, base)
    ctx.record("claim-check", {"gpu": s.gpu, "model": s.model}, {"full_fit": full.fit, "lora_fit": lora.fit, "qlora_fit": qlora.fit, "verdict": verdict})
    word = {k: say(f"claim.fit.{k}", lang) for k in ("fits", "tight", "does_not_fit")}
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim.memory_lead", lang, full=num(full.per_gpu.total_gib), full_fit=word[full.fit], lora=num(lora.per_gpu.total_gib),
        lora_fit=word[lora.fit], qlora=num(qlora.per_gpu.total_gib), qlora_fit=word[qlora.fit], gpu=ctx.catalog.gpus[full.gpu].name,
        memory=num(full.gpu_memory_gib))
    if has_inference_speed(ctx.text):
        decode = decode_latency(ctx)  # "... and 15-25 tokens/s inference": the per-user decode speed on the same card
        if decode is not None:
            verdict_words = say(f"claim.verdict.{decode.verdict}", lang)
            body = decode.lead.removeprefix(say("claim.lead", lang, verdict=verdict_words)).strip()
            points.append(say("claim_hw.decode_part", lang, verdict=verdict_words) + " " + body)
    results = [full, lora, qlora]
    if s.method in ("lora", "qlora"):  # "QLoRA of a 70B on one 24 GB card": the method claimed is the one shown in detail
        results.insert(0, results.pop(("full", "lora", "qlora").index(s.method)))
    return Finding("memory", verdict, lead, points, results=results, topics=["claims", "peft"])


def _sharding_points(ctx, base: dict) -> list[str]:
    """Full training of a model too big for one card, on one 8-GPU node: tensor parallelism alone, then ZeRO-3 / FSDP sharding."""
    tp, _ = ctx.try_run("training-memory", {**base, "method": "full", "gpus": 8, "tp": 8})
    zero, _ = ctx.try_run("training-memory", {**base, "method": "full", "gpus": 8, "sharding": "zero3"})
    if tp is None or zero is None:
        return []
    word = {k: say(f"claim.fit.{k}", ctx.lang) for k in ("fits", "tight", "does_not_fit")}
    return [say("claim_hw.memory_tp", ctx.lang, tp=num(tp.per_gpu.total_gib), tp_fit=word[tp.fit], zero=num(zero.per_gpu.total_gib),
                zero_fit=word[zero.fit], gpu=ctx.catalog.gpus[tp.gpu].name), say("claim_hw.memory_ways", ctx.lang)]


def feature(ctx):
    """"FP8 on an A100", "NVLink on an L40S": the catalog says whether the card has it."""
    from service.assistant.claim_checks import Finding, _gpus, _precision, _supports

    text, lang, catalog = ctx.text, ctx.lang, ctx.catalog
    gpus = _gpus(ctx.slots)
    precision = _precision(text)
    if precision in ("fp8", "bf16"):
        missing = [g for g in gpus if not _supports(catalog, g, precision)]
        if missing:
            spec = catalog.gpus[missing[0]]
            why = say(f"claim.{precision}_why", lang)
            alternatives = [g.name for g in catalog.gpus.values() if getattr(g, f"supports_{precision}") and g.training_class == "datacenter"][:3]
            ctx.record("claim-check", {"gpu": spec.id, "feature": precision},
                       {"supported": False, "architecture": spec.architecture, "verdict": "false"})
            points = [say("claim.alternative_fp8", lang, gpus="、".join(alternatives) if lang == "zh" else ", ".join(alternatives))] \
                if precision == "fp8" and alternatives else []
            lead = say("claim.lead", lang, verdict=say("claim.verdict.false", lang)) + " " + say(
                "claim.feature_missing", lang, gpu=spec.name, arch=spec.architecture, feature=precision.upper(), why=why)
            return Finding("feature", "false", lead, points, topics=["claims", "precision"])
        spec = catalog.gpus[gpus[0]]
        tflops = spec.dense_tflops(precision)
        ctx.record("claim-check", {"gpu": spec.id, "feature": precision}, {"supported": True, "dense_tflops": tflops, "verdict": "true"})
        detail = pick(lang, f"{num(tflops)} TFLOPS (dense)", f"{num(tflops)} TFLOPS（稠密）")
        lead = say("claim.lead", lang, verdict=say("claim.verdict.true", lang)) + " " + say(
            "claim.feature_present", lang, gpu=spec.name, arch=spec.architecture, feature=precision.upper(), detail=detail)
        return Finding("feature", "true", lead, topics=["claims", "precision"])
    spec = catalog.gpus[gpus[0]]
    if spec.scale_up is None:
        ctx.record("claim-check", {"gpu": spec.id, "feature": "nvlink"},
                   {"nvlink": False, "pcie_gen": spec.pcie_gen, "pcie_gbps_per_direction": spec.pcie_gbps_per_direction, "verdict": "false"})
        lead = say("claim.lead", lang, verdict=say("claim.verdict.false", lang)) + " " + say(
            "claim.nvlink_missing", lang, gpu=spec.name, form=spec.form_factor.upper(), pcie=spec.pcie_gen, pcie_bw=num(spec.pcie_gbps_per_direction))
        return Finding("feature", "false", lead, topics=["claims", "networking"])
    ctx.record("claim-check", {"gpu": spec.id, "feature": "nvlink"}, {"nvlink": True, "bandwidth_gbps_bidir": spec.scale_up.bandwidth_gbps_bidir})
    lead = say("claim.lead", lang, verdict=say("claim.verdict.true", lang)) + " " + say(
        "claim.nvlink_present", lang, gpu=spec.name, link=link_name(spec.scale_up.name, lang), bw=num(spec.scale_up.bandwidth_gbps_bidir))
    return Finding("feature", "true", lead, topics=["claims", "networking"])
