"""Claim checks for any claim: find what a claim asserts, check it with the matching tool or
catalog fact, and quote the claim's own numbers and the gap.

    classify(text, slots, catalog) -> a kind (KINDS, plus ordering and fabric) or None
    check(kind, ctx)               -> a Finding: verdict, lead, points, tool results

A claim that fits no kind is never answered with another claim's verdict: the handler asks
which kind the user means. Cue words live in claim_cues.yaml (per language), sentences in
the message catalog. Checks of some kinds live beside this file: claim_checks_time (time, GPU-hours),
claim_checks_hardware / claim_checks_decode (decode, memory, feature, export), claim_checks_headline
(a headline TFLOPS figure, a per-node network rate).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


from service.assistant import cues
from service.assistant.claim_checks_compute import claimed_flops
from service.assistant.claim_checks_extra import EXTRA_CHECKS, extra_kind
from service.assistant.claim_checks_hardware import claimed_ms_per_token
from service.assistant.claim_checks_headline import claimed_tflops, node_gbit
from service.assistant.claim_checks_link import claimed_busbw, claimed_mfu
from service.assistant.claim_checks_time import claimed_hours
from service.assistant.compose.fmt import big, num, pct
from service.assistant.messages import say
from service.assistant.numbers import parse_number
from service.assistant.slots import NUM, Slots
from service.assistant.claim_checks_parity import training_points
from service.assistant.spec_facts import export_pair
from service.catalog import Catalog

KINDS = ("time", "throughput", "speedup", "peak", "feature", "network", "node_network", "latency", "memory", "decode", "export")
EXPERT_KINDS = ("efficiency", "offload", "weights")  # listed from claims_expert.kinds when a claim fits no kind
TOKENS_PER_STEP = 4 * 1024 * 1024  # a 4M-token global batch, as in Llama 2/3 pre-training
SAMPLES_PER_S = re.compile(
    rf"{NUM}\s*(?:\+|多|以上)?\s*(?:个|条)?\s*(?:训练)?\s*(?:样本|samples?)\s*(?:/\s*s|每秒|per second|/sec)|"
    rf"每秒(?:处理|能处理|可处理)?(?:超过|超|约|大约)?\s*{NUM}\s*(?:多)?\s*(?:个|条)?\s*(?:训练)?\s*(?:样本|samples?)", re.I)
TOKENS_PER_S = re.compile(rf"{NUM}\s*([kKmM万])?\s*(?:tokens?|token)\s*(?:/\s*s|每秒|per second|/sec)", re.I)
LATENCY_US = re.compile(r"(\d+(?:\.\d+)?)\s*(?:µs|μs|us|微秒)", re.I)
FACTOR = re.compile(r"(?<![A-Za-z\d.])(\d+(?:\.\d+)?|[两二三四五六七八九十])\s*(?:x|×|倍)(?![a-z])", re.I)  # not "MI300X"
DURATION = re.compile(r"(?:\d|[一二两三四五六七八九十百半]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|a few|a|an)\b)\s*"
                      r"(?:个)?\s*(?:天|days?|小时|hours?|h\b|周|星期|weeks?|个?月|months?|年|years?|gpu[- ]?hours?|卡时|分钟|minutes?|mins?\b)", re.I)
CN_FACTOR = {"两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
LINK_GBIT = re.compile(r"(\d{2,3})\s*(?:g|gb|gbe|gbps|gbit|gb/s|g网|g以太网)?(?![0-9])", re.I)


def cue(name: str, text: str) -> bool:
    return cues.matches("claim_cues.yaml", name, text)


@dataclass
class Finding:
    kind: str
    verdict: str
    lead: str
    points: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    results: list = field(default_factory=list)  # sizing results, first one shown as a table
    topics: list[str] = field(default_factory=lambda: ["claims"])
    query: str | None = None  # what to retrieve from the knowledge base, when not the claim's own words
    table: object = None  # a TableBlock shown after the points


def classify(text: str, slots: Slots, catalog: Catalog) -> str | None:
    """The kind of claim the text makes, or None when it is none the tools can check."""
    has_model = bool(slots.model or slots.params_b)
    gpus = _gpus(slots)
    precision = _precision(text)
    if gpus and precision in ("fp8", "bf16") and any(not _supports(catalog, g, precision) for g in gpus):
        return "feature"
    if has_model and claimed_flops(text):
        return "compute"  # "GPT-3 took 3.14e23 FLOPs": 6·N·D from the training-compute tool
    timed = has_model and (claimed_hours(text, slots) or slots.gpu_hours) and (slots.gpus or slots.nodes or slots.gpu)
    if timed and DURATION.search(text) and not (cue("network", text) and cue("enough", text)):
        return "time"  # "512 H100 in 10 days, and 3× faster than A100": the time decides; the speed-up is checked beside it
    extra = extra_kind(text, slots, _gpus(slots))  # linear scaling, "better on every workload", a blanket memory figure
    if extra:
        return extra
    if claimed_mfu(text) is not None:
        return "mfu"  # "80% MFU on our cluster": the best published at scale, and what to ask
    if claimed_busbw(text) is not None and not has_model:
        return "busbw"  # "900 GB/s all-reduce on 8 × H100": NVLink's per-direction figure bounds busbw
    if gpus and claimed_tflops(text):
        return "peak"  # "the 4090 has 660 TFLOPS": which data-sheet figure that is, and what decides training
    if node_gbit(text) and cue("per_node", text) and not has_model:
        return "node_network"  # "3.2 Tbps per node": the node's NICs added up; per GPU is what a job sees
    pair = export_pair(gpus, catalog)
    if pair and (pair[1].id in gpus or len(gpus) == 1 and cue("export", text)):
        return "export"  # A800/H800 against A100/H100: the same compute, less NVLink
    if gpus and cue("nvlink", text) and not FACTOR.search(text):
        return "feature"
    if _secondary_speed_kind(text, gpus, precision):
        return _secondary_speed_kind(text, gpus, precision)
    if cue("roce", text) and cue("infiniband", text) and cue("same_speed", text):
        return "fabric"
    if has_model and slots.gpu and (cue("cannot_hold", text) or cue("enough", text) and slots.task != "inference" and not _per_token(text)):
        return "memory"  # "one T4 is enough to fine-tune 8B", "one A100 40GB cannot hold 70B": memory first
    if has_model and slots.gpu and cue("fits", text) and not cue("cannot_hold", text):
        return "memory"  # "70B fits on one 80GB card": serving and training memory on that card
    if has_model and (has_inference_speed(text) or slots.concurrency == 1 and claimed_ms_per_token(text)):
        return "decode"  # per-user decode speed is set by memory bandwidth, not by training throughput
    if (SAMPLES_PER_S.search(text) or TOKENS_PER_S.search(text)) and has_model:
        return "throughput"
    if LATENCY_US.search(text) and cue("latency", text):
        return "latency"
    if cue("network", text) and cue("enough", text):
        return "network" if has_model else None
    return "time" if timed else None  # a follow-up about the same run ("and with 1,024 GPUs?")


def _per_token(text: str) -> bool:
    return bool(re.search(r"\d\s*(?:ms|毫秒)", text, re.I)) and cue("per_token", text)


def _secondary_speed_kind(text: str, gpus: list[str], precision: str | None) -> str | None:
    """A claimed speed relation between GPUs or precisions: a factor (speedup), parity (speedup of 1×) or an order."""
    if FACTOR.search(text) or cue("doubles", text):
        if len(gpus) >= 2 or precision in ("fp8", "int8"):
            return "speedup"
    if len(gpus) >= 2 and cue("same_speed", text):
        return "speedup"  # "an H20 cluster is as fast as H100": parity is a claimed speed-up of 1×
    if len(gpus) >= 2 and (cue("faster", text) or cue("slower", text)):
        return "ordering"  # "I heard H20 trains faster than A100": which card is faster, with no factor
    return None


def check(kind: str, ctx) -> Finding | None:
    """The finding, or None when the tools cannot decide this claim after all (the handler then answers from knowledge)."""
    if kind in ("busbw", "mfu"):
        from service.assistant import claim_checks_link as link

        return {"busbw": link.busbw_claim, "mfu": link.mfu_claim}[kind](ctx)
    if kind in EXTRA_CHECKS:
        return EXTRA_CHECKS[kind](ctx)
    if kind == "compute":
        from service.assistant.claim_checks_compute import compute_claim

        return compute_claim(ctx)
    if kind == "time":
        from service.assistant.claim_checks_time import time_claim

        return time_claim(ctx)
    if kind in ("peak", "node_network"):
        from service.assistant import claim_checks_headline as headline

        return {"peak": headline.peak_figure, "node_network": headline.node_network}[kind](ctx)
    if kind in ("decode", "export", "memory", "feature"):
        from service.assistant import claim_checks_hardware as hardware

        return {"decode": hardware.decode_latency, "export": hardware.export_variant, "memory": hardware.memory, "feature": hardware.feature}[kind](ctx)
    finding = CHECKS[kind](ctx)
    if kind == "speedup" and finding is not None and finding.verdict == "optimistic" and len(_gpus(ctx.slots)) >= 2:
        from service.assistant.claim_checks_vendor import generation_points  # "B200 is 5× faster": where such figures come from

        finding.points += generation_points(ctx, _gpus(ctx.slots))
        finding.query = say("claims_extra.gen_query", ctx.lang)
    if kind in ("speedup", "ordering") and finding is not None:
        from service.assistant.claim_checks_consumer import consumer_points  # RTX 4090 against A100: memory and scaling too

        finding.points += consumer_points(ctx, _gpus(ctx.slots))
    return finding


# -- the checks ---------------------------------------------------------------
def _speedup(ctx) -> Finding:
    text, lang, catalog = ctx.text, ctx.lang, ctx.catalog
    factor = FACTOR.search(text)
    parity = factor is None and not cue("doubles", text) and cue("same_speed", text)
    claimed = _factor(factor.group(1)) if factor else 1.0 if parity else 2.0
    gpus = _gpus(ctx.slots)
    precision = _precision(text)
    if len(gpus) <= 1:  # a precision speed-up on one card: FP8 vs BF16 (on an H100 when no card is named)
        spec = catalog.gpus[gpus[0] if gpus else "h100-sxm"]
        fast, slow = (precision, "bf16") if precision in ("fp8", "int8") else ("bf16", "fp32")
        fast_tf, slow_tf = spec.dense_tflops(fast), spec.dense_tflops(slow)
        ratio = fast_tf / slow_tf
        # Peak ratios bound end-to-end gains from above: claiming the whole paper ratio is overstated.
        verdict = "optimistic" if claimed >= ratio * 0.9 else "plausible" if claimed >= 0.5 * ratio else "conservative"
        ctx.record("claim-check", {"gpu": spec.id, "claimed_speedup": claimed, "fast": fast, "slow": slow},
                   {"fast_dense_tflops": fast_tf, "slow_dense_tflops": slow_tf, "ratio": ratio, "verdict": verdict})
        lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
            "claim.precision_ratio", lang, gpu=spec.name, fast=fast.upper(), slow=slow.upper(), fast_tf=num(fast_tf), slow_tf=num(slow_tf), ratio=num(ratio))
        return Finding("speedup", verdict, lead, [_end_to_end(ctx, ratio, fast, slow)], topics=["claims", "precision"])
    a, b = (catalog.gpus[g] for g in gpus[:2])
    subject = next((name for name, pattern in SPEC_SUBJECTS if pattern.search(text)), None)
    if subject is not None and factor is not None:
        return _spec_ratio(ctx, a, b, subject, claimed)  # "H100 的显存带宽是 A100 的 3 倍": a datasheet ratio, not a speed-up
    prec = precision if precision in ("fp8", "fp16", "bf16") and a.dense_tflops(precision) and b.dense_tflops(precision) else \
        "bf16" if a.supports_bf16 and b.supports_bf16 else "fp16"
    fast, slow = (a, b) if a.dense_tflops(prec) >= b.dense_tflops(prec) else (b, a)
    compute_ratio = fast.dense_tflops(prec) / slow.dense_tflops(prec)
    bw_ratio = fast.memory_bandwidth_gbps / slow.memory_bandwidth_gbps
    high, low = max(compute_ratio, bw_ratio), min(compute_ratio, bw_ratio)
    verdict = "optimistic" if claimed > high * 1.05 else "conservative" if claimed < low * 0.95 else "plausible"
    if parity and compute_ratio >= PARITY_FALSE_ABOVE:
        return _parity(ctx, fast, slow, prec, compute_ratio, bw_ratio)
    ctx.record("claim-check", {"fast": fast.id, "slow": slow.id, "precision": prec, "claimed_speedup": claimed},
               {"compute_ratio": compute_ratio, "bandwidth_ratio": bw_ratio, "verdict": verdict,
                "fast_dense_tflops": fast.dense_tflops(prec), "slow_dense_tflops": slow.dense_tflops(prec),
                "fast_memory_gb": fast.memory_gb, "slow_memory_gb": slow.memory_gb})
    key = {"optimistic": "claim.speedup_claim_over", "plausible": "claim.speedup_claim_within", "conservative": "claim.speedup_claim_under"}[verdict]
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim.speedup_datasheet", lang, fast=fast.name, slow=slow.name, precision=prec.upper(), compute_ratio=num(compute_ratio), bw_ratio=num(bw_ratio))
    points = [say(key, lang, claimed=num(claimed))]
    if compute_ratio < 1.05 < bw_ratio:
        # H200 against H100: the same tensor cores; only memory differs, which compute-bound training barely feels.
        points.insert(0, say("claim.same_compute", lang, fast=fast.name, slow=slow.name, tflops=num(slow.dense_tflops(prec), 4),
                             precision=prec.upper(), fast_gb=num(fast.memory_gb), slow_gb=num(slow.memory_gb)))
    return Finding("speedup", verdict, lead, points, topics=["claims", "gpu-selection"])


def _network(ctx) -> Finding:
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    gpu = s.gpu or "h100-sxm"
    gpus = s.gpus or (s.nodes * 8 if s.nodes else 64)
    fabric, per_node_gbit = _fabric(text)
    notes = []
    if not (s.gpus or s.nodes):
        notes.append(_assumed(lang, "8 nodes × 8 GPUs", "8 台 × 8 卡"))
    model = {"model": s.model, "params_b": None if s.model else s.params_b}
    message = dict(model)
    if s.method in ("lora", "qlora"):
        # LoRA and QLoRA all-reduce only the adapters' gradients: the frozen base sends nothing between nodes.
        memory = ctx.run("training-memory", {**model, "method": s.method, "gpu": gpu, "gpus": 1})
        adapters = next(st.value for st in memory.work.steps if st.name == "lora.trainable_params")
        message = {"size_mb": adapters * 2 / 1e6}
        notes.append(say("claim.network_adapters_only", lang, method=s.method.upper() if s.method == "qlora" else "LoRA", params=big(adapters, lang),
                         mb=num(adapters * 2 / 1e6)))
    payload = {**message, "gpu": gpu, "gpus": max(gpus, 16), "gpus_per_node": 8, "inter_fabric": fabric}
    if per_node_gbit:
        payload["nic_gbps_per_gpu"] = per_node_gbit / 8
        notes.append(_assumed(lang, f"one {per_node_gbit} Gb/s NIC per 8-GPU node", f"每台 8 卡服务器一块 {per_node_gbit} Gb/s 网卡"))
    comm = ctx.run("allreduce", payload)
    step = ctx.run("training-time", {**model, "tokens": TOKENS_PER_STEP, "gpu": gpu, "gpus": max(gpus, 16)})
    compute_s, comm_s = step.hours.typical * 3600, comm.total_ms / 1000
    share = comm_s / (comm_s + compute_s)
    ideal = ctx.run("allreduce", {**message, "gpu": gpu, "gpus": max(gpus, 16), "gpus_per_node": 8, "inter_fabric": "infiniband-ndr"})
    ideal_s = ideal.total_ms / 1000
    verdict = "insufficient" if share > 0.3 else "sufficient"
    ctx.record("claim-check", {"inter_fabric": fabric, "tokens_per_step": TOKENS_PER_STEP},
               {"allreduce_s": comm_s, "compute_s_per_step": compute_s, "comm_share": share, "verdict": verdict,
                "infiniband_ndr_allreduce_s": ideal_s, "infiniband_ndr_share": ideal_s / (ideal_s + compute_s)})
    model_name = ctx.catalog.models[s.model].name if s.model in ctx.catalog.models else f"{num(s.params_b or 0)}B"
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim.network_lead", lang, fabric=comm.fabric, model=model_name, comm_s=num(comm_s), compute_s=num(compute_s),
        tokens_per_step=big(TOKENS_PER_STEP, lang), gpus=max(gpus, 16), gpu=ctx.catalog.gpus[comm.gpu].name, share=pct(share))
    points = [say("claim.network_verdict_bad" if verdict == "insufficient" else "claim.network_verdict_ok", lang)]
    if fabric != "infiniband-ndr":
        points.append(say("claim.network_alternative", lang, fabric2=ideal.fabric, comm2_s=num(ideal_s), share2=pct(ideal_s / (ideal_s + compute_s))))
    return Finding("network", verdict, lead, points, notes, [comm, step], ["networking"])


def _throughput(ctx) -> Finding:
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    gpu = s.gpu or "a100-80gb-sxm"
    gpus = s.gpus or 4
    model = {"model": s.model, "params_b": None if s.model else s.params_b}
    results = [ctx.run("training-time", {**model, "tokens": 1e9, "seq_len": seq, "gpu": gpu, "gpus": gpus,
                                         "precision": s.precision if s.precision != "fp8" else None})
               for seq in ([s.seq_len] if s.seq_len else [512, 2048])]
    best = max(results, key=lambda r: r.samples_per_second)
    samples = SAMPLES_PER_S.search(text)
    if samples:
        claimed = parse_number(samples.group(1) or samples.group(2)) or 0.0
        estimate, unit = best.samples_per_second, "samples/s"
    else:
        match = TOKENS_PER_S.search(text)
        claimed = (parse_number(match.group(1)) or 0.0) * {"k": 1e3, "m": 1e6, "万": 1e4}.get((match.group(2) or "").lower(), 1)
        estimate, unit = best.tokens_per_second, "tokens/s"
    ratio = claimed / estimate
    verdict = "not_credible" if ratio >= 3 else "optimistic" if ratio >= 1.5 else "plausible"
    ctx.record("claim-check", {"claimed": claimed, "unit": unit, "gpu": gpu, "gpus": gpus},
               {"estimated": estimate, "ratio": ratio, "verdict": verdict})
    name = ctx.catalog.gpus[gpu].name
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim.throughput_lead", lang, gpus=gpus, gpu=name, estimate=f"{num(estimate)} {unit}", claimed=f"{num(claimed)} {unit}", ratio=num(ratio))
    points = [say("claim.throughput_high", lang, mfu_high=pct(best.mfu.high))] if verdict != "plausible" else []
    return Finding("throughput", verdict, lead, points, results=results)


def _latency(ctx) -> Finding:
    s, lang = ctx.slots, ctx.lang
    claimed_us = float(LATENCY_US.search(ctx.text).group(1))
    gpus = max(s.gpus or 512, 16)
    result = ctx.run("allreduce", {"gpu": s.gpu or "h100-sxm", "gpus": gpus, "size_mb": 25, "latency_us": max(claimed_us - 0.5, 0.5)})
    ctx.record("claim-check", {"claimed_latency_us": claimed_us}, {"slowdown_from_half_us": result.slowdown_from_half_us, "verdict": "optimistic"})
    lead = say("claim.lead", lang, verdict=say("claim.verdict.optimistic", lang)) + " " + say(
        "claim.latency_lead", lang, gpus=gpus, slowdown=pct(result.slowdown_from_half_us))
    return Finding("latency", "optimistic", lead, results=[result], topics=["claims", "networking"])


def has_inference_speed(text: str) -> bool:
    return _per_token(text) or bool(claimed_ms_per_token(text) and cue("inference", text))


# Share of a training step spent in matrix multiplications, the only part a faster number format speeds up
# (an assumption stated in the answer: GEMM-heavy LLM training, the rest is attention softmax, norms, communication, data).
GEMM_SHARE = (0.5, 0.7)
PARITY_FALSE_ABOVE = 1.5  # "as fast as" is false when one card has this much more dense compute


def _end_to_end(ctx, ratio: float, fast: str, slow: str) -> str:
    """Amdahl's law: only the GEMM share of the step runs `ratio`× faster, so the end-to-end gain is a band well below the peak ratio."""
    low, high = (1 / ((1 - f) + f / ratio) for f in GEMM_SHARE)
    ctx.record("amdahl-speedup", {"peak_ratio": ratio, "gemm_share_low": GEMM_SHARE[0], "gemm_share_high": GEMM_SHARE[1]},
               {"end_to_end_low": low, "end_to_end_high": high, "gemm_share_low_pct": GEMM_SHARE[0] * 100, "gemm_share_high_pct": GEMM_SHARE[1] * 100})
    return say("claim_advice.end_to_end", ctx.lang, low=num(low), high=num(high), ratio=num(ratio), fast=fast.upper(), slow=slow.upper(),
               share_low=f"{GEMM_SHARE[0]:.0%}", share_high=f"{GEMM_SHARE[1]:.0%}")


def _parity(ctx, fast, slow, prec: str, compute_ratio: float, bw_ratio: float) -> Finding:
    """"X is as fast as Y": false for training when the dense compute differs this much; bandwidth-bound decode is the exception."""
    lang = ctx.lang
    fast_tf, slow_tf = fast.dense_tflops(prec), slow.dense_tflops(prec)
    ctx.record("claim-check", {"fast": fast.id, "slow": slow.id, "precision": prec, "claimed_speedup": 1.0},
               {"fast_dense_tflops": fast_tf, "slow_dense_tflops": slow_tf, "compute_ratio": compute_ratio,
                "bandwidth_ratio": bw_ratio, "fast_bandwidth_gbps": fast.memory_bandwidth_gbps,
                "slow_bandwidth_gbps": slow.memory_bandwidth_gbps, "verdict": "false"})
    compute = say("claim_advice.parity", lang, fast=fast.name, slow=slow.name, precision=prec.upper(), fast_tf=num(fast_tf, 4),
                  slow_tf=num(slow_tf, 4), ratio=num(compute_ratio))
    decode = say("claim_advice.parity_decode", lang, fast=fast.name, slow=slow.name, fast_bw=num(fast.memory_bandwidth_gbps),
                 slow_bw=num(slow.memory_bandwidth_gbps))
    if cue("inference", ctx.text) and bw_ratio < 1.5:
        # "H20 is basically an H100 for inference": decode (bandwidth) is close, prefill (compute) is not: partly true.
        lead = say("claim.lead", lang, verdict=say("claim.verdict.partly_true", lang)) + " " + say(
            "claim_advice.parity_inference", lang, fast=fast.name, slow=slow.name, fast_bw=num(fast.memory_bandwidth_gbps),
            slow_bw=num(slow.memory_bandwidth_gbps))
        return Finding("speedup", "partly_true", lead, [compute, say("claim_advice.parity_prefill", lang, slow=slow.name)],
                       topics=["claims", "inference", "gpu-selection"])
    lead = say("claim.lead", lang, verdict=say("claim.verdict.false", lang)) + " " + compute
    extra = training_points(ctx, fast, slow, prec, compute_ratio, bw_ratio)
    points = extra if bw_ratio >= 1.5 else [decode, *extra]  # decode is close only when the bandwidths are
    return Finding("speedup", "false", lead, points, topics=["claims", "gpu-selection"])


def _ordering(ctx) -> Finding:
    """"A is faster than B": training speed follows dense compute; bandwidth decides decode. The first card named is the
    one the claim is about (faster, or slower when the claim says so)."""
    lang, catalog = ctx.lang, ctx.catalog
    first, second = (catalog.gpus[g] for g in _gpus(ctx.slots)[:2])
    claimed, other = (second, first) if cue("slower", ctx.text) and not cue("faster", ctx.text) else (first, second)
    precision = _precision(ctx.text)
    prec = precision if precision in ("fp8", "fp16", "bf16") and claimed.dense_tflops(precision) and other.dense_tflops(precision) else \
        "bf16" if claimed.supports_bf16 and other.supports_bf16 else "fp16"
    compute_ratio = claimed.dense_tflops(prec) / other.dense_tflops(prec)
    bw_ratio = claimed.memory_bandwidth_gbps / other.memory_bandwidth_gbps
    # More compute is faster training only if memory bandwidth does not fall far behind (L40S against A100: 1.16× the
    # compute, 0.42× the bandwidth); either advantage alone makes the claim partly true.
    ahead_compute, ahead_bw = compute_ratio >= 1.05, bw_ratio >= 1.05
    verdict = "true" if ahead_compute and bw_ratio >= 0.8 else "partly_true" if ahead_compute or ahead_bw or compute_ratio > 0.95 else "false"
    ctx.record("claim-check", {"claimed_faster": claimed.id, "than": other.id, "precision": prec},
               {"claimed_dense_tflops": claimed.dense_tflops(prec), "other_dense_tflops": other.dense_tflops(prec),
                "compute_ratio": compute_ratio, "claimed_bandwidth_gbps": claimed.memory_bandwidth_gbps,
                "other_bandwidth_gbps": other.memory_bandwidth_gbps, "bandwidth_ratio": bw_ratio, "verdict": verdict})
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        "claim_advice.ordering", lang, claimed=claimed.name, other=other.name, precision=prec.upper(), claimed_tf=num(claimed.dense_tflops(prec), 4),
        other_tf=num(other.dense_tflops(prec), 4), compute_ratio=num(compute_ratio), claimed_bw=num(claimed.memory_bandwidth_gbps),
        other_bw=num(other.memory_bandwidth_gbps), bw_ratio=num(bw_ratio))
    return Finding("speedup", verdict, lead, [say("claim_advice.ordering_point", lang)], topics=["claims", "gpu-selection"])


# A ratio claimed for one datasheet figure: memory bandwidth, memory capacity or the GPU-to-GPU link (tried in this order).
SPEC_SUBJECTS = (
    ("memory_bandwidth_gbps", re.compile(r"显存带宽|内存带宽|memory bandwidth|\bhbm\b|\bbandwidth\b|带宽(?!.{0,6}(?:nvlink|互联|卡间))", re.I)),
    ("memory_gb", re.compile(r"显存(?!带宽)(?:容量|大小)?|\bvram\b|\bmemory\b(?![\s-]*(?:bandwidth|bound))|容量", re.I)),
    ("nvlink_gbps", re.compile(r"nvlink|卡间(?:互联|带宽)|interconnect", re.I)),
)
SPEC_MATCH = 0.15  # a claimed ratio within 15% of the datasheet's is true as stated


def _spec_ratio(ctx, a, b, subject: str, claimed: float) -> Finding:
    """The first card named against the second on one datasheet figure, held against the claimed ratio."""
    def value(gpu):
        if subject == "nvlink_gbps":
            return gpu.scale_up.bandwidth_gbps_bidir if gpu.scale_up else gpu.pcie_gbps_per_direction * 2
        return getattr(gpu, subject)

    va, vb = value(a), value(b)
    ratio = va / vb
    verdict = "true" if abs(claimed / ratio - 1) <= SPEC_MATCH else "false"
    ctx.record("claim-check", {"gpu": a.id, "against": b.id, "figure": subject, "claimed_ratio": claimed},
               {f"{a.id}_value": va, f"{b.id}_value": vb, "ratio": ratio, "verdict": verdict})
    lang = ctx.lang
    what = say(f"claim.spec_figure.{subject}", lang)
    unit = {"memory_bandwidth_gbps": "GB/s", "memory_gb": "GB", "nvlink_gbps": "GB/s"}[subject]
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(
        f"claim.spec_ratio_{verdict}", lang, a=a.name, b=b.name, what=what, va=f"{num(va)} {unit}", vb=f"{num(vb)} {unit}", ratio=num(ratio),
        claimed=num(claimed))
    compute = a.dense_tflops("bf16") / b.dense_tflops("bf16") if a.dense_tflops("bf16") and b.dense_tflops("bf16") else None
    # A false ratio close to the compute ratio is most likely the compute figure quoted for the wrong one.
    mixed_up = verdict == "false" and compute is not None and abs(claimed / compute - 1) <= 2 * SPEC_MATCH
    points = [say("claim.spec_ratio_compute", lang, a=a.name, b=b.name, compute=num(compute))] if mixed_up else []
    if points:
        ctx.record("claim-check", {"gpu": a.id, "against": b.id, "figure": "bf16_dense_tflops"},
                   {"compute_ratio": a.dense_tflops("bf16") / b.dense_tflops("bf16")})
    return Finding("speedup", verdict, lead, points, topics=["claims", "hardware"])


def _fabric_parity(ctx) -> Finding:
    """"RoCE = InfiniBand, no difference": true only for a tuned lossless Ethernet fabric; the knowledge base says what tuning."""
    return Finding("fabric", "partly_true", say("claim.lead", ctx.lang, verdict=say("claim.verdict.partly_true", ctx.lang)) + " "
                   + say("claim_advice.roce_ib", ctx.lang), [say("claim_advice.roce_ib_check", ctx.lang)], topics=["claims", "networking"])


CHECKS = {"throughput": _throughput, "speedup": _speedup, "network": _network,
          "latency": _latency, "fabric": _fabric_parity, "ordering": _ordering}


# -- helpers ------------------------------------------------------------------
def _factor(written: str) -> float:
    return float(CN_FACTOR.get(written, 0) or written)


def _gpus(slots: Slots) -> list[str]:
    found = list(slots.compare_gpus or [])
    if slots.gpu and slots.gpu not in found:
        found.insert(0, slots.gpu)
    return found


def _precision(text: str) -> str | None:
    match = re.search(r"\b(fp8|bf16|fp16|tf32|int8|fp4)\b", text, re.I) or re.search(r"(fp8|bf16|fp16|int8)", text, re.I)
    return match.group(1).lower() if match else None


def _supports(catalog: Catalog, gpu_id: str, precision: str) -> bool:
    spec = catalog.gpus[gpu_id]
    return spec.supports_fp8 if precision == "fp8" else spec.supports_bf16


def _fabric(text: str) -> tuple[str, int | None]:
    """(inter_fabric, NIC Gb/s per node when the text names one link for the node)."""
    lowered = text.lower()
    speed = next((int(m.group(1)) for m in LINK_GBIT.finditer(lowered) if int(m.group(1)) in (10, 25, 40, 50, 100, 200, 400, 800)), None)
    if re.search(r"infiniband|\bib\b|ib网|ndr|hdr", lowered):
        return ("infiniband-hdr" if "hdr" in lowered or speed == 200 else "infiniband-ndr"), None
    if "roce" in lowered:
        return {100: "roce-100", 200: "roce-200"}.get(speed or 0, "roce-400"), None
    if speed in (10, 25, 40, 50):
        return "ethernet-25", speed  # the NIC speed overrides the fabric's per-port figure
    return "ethernet-100", speed or 100


def _assumed(lang: str, en: str, zh: str) -> str:
    return f"假设：{zh}" if lang == "zh" else f"Assumed: {en}"
