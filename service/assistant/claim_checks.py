"""Claim checks for any claim: find what a claim asserts, check it with the matching tool or
catalog fact, and quote the claim's own numbers and the gap.

    classify(text, slots, catalog) -> a kind (KINDS, plus ordering and fabric) or None
    check(kind, ctx)               -> a Finding: verdict, lead, points, tool results

A claim that fits no kind is never answered with another claim's verdict: the handler asks
which kind the user means. Cue words live in claim_cues.yaml (per language), sentences in
the message catalog. Checks of some kinds live beside this file: claim_checks_time (time, GPU-hours),
claim_checks_hardware / claim_checks_decode (decode, memory, feature, export), claim_checks_headline
(a headline TFLOPS figure, a per-node network rate), claim_checks_speed (speed-up, parity, ordering,
datasheet ratios). Finding and the shared readers (cue, _gpus, _precision) are in claim_finding.
"""

from __future__ import annotations

import re

from service.assistant.claim_checks_compute import claimed_flops
from service.assistant.claim_checks_extra import EXTRA_CHECKS, extra_kind
from service.assistant.claim_checks_hardware import claimed_ms_per_token
from service.assistant.claim_checks_headline import claimed_tflops, node_gbit
from service.assistant.claim_checks_link import claimed_busbw, claimed_mfu
from service.assistant.claim_checks_speed import ordering_claim, speedup_claim
from service.assistant.claim_checks_time import claimed_hours
from service.assistant.claim_finding import FACTOR, Finding, _gpus, _precision, cue
from service.assistant.compose.fmt import big, model_label, num, pct
from service.assistant.messages import say
from service.assistant.numbers import parse_number
from service.assistant.slot_amounts import NUM
from service.assistant.slots import Slots
from service.assistant.spec_facts import export_pair
from service.catalog import Catalog
from service.sizing.defaults import DEFAULT_GPU

KINDS = ("time", "throughput", "speedup", "peak", "feature", "network", "node_network", "latency", "memory", "decode", "export")
EXPERT_KINDS = ("efficiency", "offload", "weights")  # listed from claims_expert.kinds when a claim fits no kind
TOKENS_PER_STEP = 4 * 1024 * 1024  # a 4M-token global batch, as in Llama 2/3 pre-training
SAMPLES_PER_S = re.compile(
    rf"{NUM}\s*(?:\+|多|以上)?\s*(?:个|条)?\s*(?:训练)?\s*(?:样本|samples?)\s*(?:/\s*s|每秒|per second|/sec)|"
    rf"每秒(?:处理|能处理|可处理)?(?:超过|超|约|大约)?\s*{NUM}\s*(?:多)?\s*(?:个|条)?\s*(?:训练)?\s*(?:样本|samples?)", re.I)
TOKENS_PER_S = re.compile(rf"{NUM}\s*([kKmM万])?\s*(?:tokens?|token)\s*(?:/\s*s|每秒|per second|/sec)", re.I)
LATENCY_US = re.compile(r"(\d+(?:\.\d+)?)\s*(?:µs|μs|us|微秒)", re.I)
DURATION = re.compile(r"(?:\d|[一二两三四五六七八九十百半]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|a few|a|an)\b)\s*"
                      r"(?:个)?\s*(?:天|days?|小时|hours?|h\b|周|星期|weeks?|个?月|months?|年|years?|gpu[- ]?hours?|卡时|分钟|minutes?|mins?\b)", re.I)
LINK_GBIT = re.compile(r"(\d{2,3})\s*(?:g|gb|gbe|gbps|gbit|gb/s|g网|g以太网)?(?![0-9])", re.I)


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


PER_TOKEN_TIME = re.compile(r"\d\s*(?:ms|毫秒)", re.I)


def _per_token(text: str) -> bool:
    return bool(PER_TOKEN_TIME.search(text)) and cue("per_token", text)


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

        # Before a false parity claim's closing "where the claim is roughly fair" point, which stays last.
        at = len(finding.points) - 1 if finding.verdict == "false" and finding.points else len(finding.points)
        finding.points[at:at] = consumer_points(ctx, _gpus(ctx.slots))
    return finding


# -- the checks ---------------------------------------------------------------
def _network(ctx) -> Finding:
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    gpu = s.gpu or DEFAULT_GPU
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
    model_name = model_label(ctx.catalog, s.model, s.params_b or 0)
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
    result = ctx.run("allreduce", {"gpu": s.gpu or DEFAULT_GPU, "gpus": gpus, "size_mb": 25, "latency_us": max(claimed_us - 0.5, 0.5)})
    ctx.record("claim-check", {"claimed_latency_us": claimed_us}, {"slowdown_from_half_us": result.slowdown_from_half_us, "verdict": "optimistic"})
    lead = say("claim.lead", lang, verdict=say("claim.verdict.optimistic", lang)) + " " + say(
        "claim.latency_lead", lang, gpus=gpus, slowdown=pct(result.slowdown_from_half_us))
    return Finding("latency", "optimistic", lead, results=[result], topics=["claims", "networking"])


def has_inference_speed(text: str) -> bool:
    return _per_token(text) or bool(claimed_ms_per_token(text) and cue("inference", text))


def _fabric_parity(ctx) -> Finding:
    """"RoCE = InfiniBand, no difference": true only for a tuned lossless Ethernet fabric; the knowledge base says what tuning."""
    return Finding("fabric", "partly_true", say("claim.lead", ctx.lang, verdict=say("claim.verdict.partly_true", ctx.lang)) + " "
                   + say("claim_advice.roce_ib", ctx.lang), [say("claim_advice.roce_ib_check", ctx.lang)], topics=["claims", "networking"])


CHECKS = {"throughput": _throughput, "speedup": speedup_claim, "network": _network,
          "latency": _latency, "fabric": _fabric_parity, "ordering": ordering_claim}


# -- helpers ------------------------------------------------------------------
def _supports(catalog: Catalog, gpu_id: str, precision: str) -> bool:
    spec = catalog.gpus[gpu_id]
    return spec.supports_fp8 if precision == "fp8" else spec.supports_bf16


INFINIBAND = re.compile(r"infiniband|\bib\b|ib网|ndr|hdr")


def _fabric(text: str) -> tuple[str, int | None]:
    """(inter_fabric, NIC Gb/s per node when the text names one link for the node)."""
    lowered = text.lower()
    speed = next((int(m.group(1)) for m in LINK_GBIT.finditer(lowered) if int(m.group(1)) in (10, 25, 40, 50, 100, 200, 400, 800)), None)
    if INFINIBAND.search(lowered):
        return ("infiniband-hdr" if "hdr" in lowered or speed == 200 else "infiniband-ndr"), None
    if "roce" in lowered:
        return {100: "roce-100", 200: "roce-200"}.get(speed or 0, "roce-400"), None
    if speed in (10, 25, 40, 50):
        return "ethernet-25", speed  # the NIC speed overrides the fabric's per-port figure
    return "ethernet-100", speed or 100


def _assumed(lang: str, en: str, zh: str) -> str:
    return f"假设：{zh}" if lang == "zh" else f"Assumed: {en}"
