"""Claim checks: run the tools on the claimed setup and say how far the claim is from the estimate."""

from __future__ import annotations

import re

from service.assistant.compose import extract, sizing
from service.assistant.compose.fmt import big, duration, duration_band, num, pct
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import faq
from service.assistant.slots import NUM
from service.assistant.numbers import parse_number
from service.contract import BulletsBlock, LeadBlock

SAMPLES_PER_S = re.compile(rf"{NUM}\s*(?:多)?\s*(?:个|条)?\s*(?:训练)?\s*(?:样本|samples?)\s*(?:/\s*s|每秒|per second|/sec)|每秒(?:处理|能处理|可处理)?(?:超过|超|约|大约)?\s*{NUM}\s*(?:多)?\s*(?:个|条)?\s*(?:训练)?\s*(?:样本|samples?)", re.I)
LATENCY = re.compile(r"(\d+(?:\.\d+)?)\s*(?:µs|μs|us|微秒)", re.I)
FITS_CLAIM = re.compile(r"足够|够用|就够|够了|可以跑|能跑|enough|sufficient|can (?:handle|run|fine-?tune)|is all you need|单卡|single (?:t4|a10|gpu)", re.I)


def verdict(ratio: float, lang: str) -> tuple[str, str]:
    """(label, sentence) for estimate/claim ratio on a 'how long' claim."""
    if ratio >= 3:
        return ("not_credible", "不靠谱，不现实" if lang == "zh" else "not credible — unrealistic")
    if ratio >= 1.5:
        return ("optimistic", "明显偏乐观，有所夸大" if lang == "zh" else "optimistic — overstated")
    if ratio >= 0.67:
        return ("plausible", "基本可信" if lang == "zh" else "plausible")
    return ("conservative", "偏保守" if lang == "zh" else "conservative")


def claim_check(ctx: Context) -> Draft:
    text = ctx.text
    s = ctx.slots
    samples = SAMPLES_PER_S.search(text)
    if samples and (s.model or s.params_b):
        return _throughput_claim(ctx, parse_number(samples.group(1) or samples.group(2)) or 0.0)
    latency = LATENCY.search(text)
    if latency and re.search(r"rdma|latency|延迟|infiniband|roce|网络", text, re.I):
        return _latency_claim(ctx, float(latency.group(1)))
    if (s.model or s.params_b) and s.deadline_hours and (s.gpus or s.nodes):
        return _time_claim(ctx)
    if (s.model or s.params_b) and s.gpu and FITS_CLAIM.search(text):
        return _fit_claim(ctx)
    return faq(ctx)


def _time_claim(ctx: Context) -> Draft:
    s = ctx.slots
    model = ctx.catalog.models.get(s.model or "")
    tokens = s.tokens or (model.pretraining_tokens if model and s.task in (None, "pretrain") else None)
    notes = []
    if s.tokens is None and tokens:
        notes.append(ctx.t(f"\"Full pre-training\" of {model.name} means its published {big(tokens, 'en')} tokens.",
                           f"“完整预训练” {model.name} 按其公开的 {big(tokens, 'zh')} token 计算。"))
    if tokens is None:
        return faq(ctx)
    gpu = s.gpu or "h100-sxm"
    timing = ctx.run("training-time", {"model": s.model, "params_b": None if s.model else s.params_b, "tokens": tokens, "gpu": gpu, "gpus": s.gpus, "precision": s.precision})
    need = ctx.run("gpus-for-deadline", {"model": s.model, "params_b": None if s.model else s.params_b, "tokens": tokens, "gpu": gpu, "deadline_hours": s.deadline_hours})
    fit = ctx.run("tokens-in-budget", {"model": s.model, "params_b": None if s.model else s.params_b, "gpu": gpu, "gpus": s.gpus, "hours": s.deadline_hours})
    ratio = timing.hours.typical / s.deadline_hours
    label, word = verdict(ratio, ctx.lang)
    ctx.record("claim-check", {"claimed_hours": s.deadline_hours, "gpus": s.gpus, "gpu": gpu, "tokens": tokens},
               {"estimated_hours": timing.hours.typical, "ratio": round(ratio, 3), "verdict": label})
    gpu_name = ctx.catalog.gpus[gpu].name
    lead = ctx.t(
        f"**Verdict: {word}.** {s.gpus} × {gpu_name} would need about {duration_band(timing.hours, 'en')}, not {duration(s.deadline_hours, 'en')} — about {num(ratio)}× longer than claimed.",
        f"**结论：{word}。** {s.gpus} 张 {gpu_name} 大约需要 {duration_band(timing.hours, 'zh')}，而不是 {duration(s.deadline_hours, 'zh')}——比宣称的长约 {num(ratio)} 倍。")
    points = [
        ctx.t(f"To finish in {duration(s.deadline_hours, 'en')} you would need about {num(need.gpus.typical)} × {gpu_name} (plan for {need.gpus_rounded:,}).",
              f"要在 {duration(s.deadline_hours, 'zh')}内完成，约需 {num(need.gpus.typical)} 张 {gpu_name}（按 {need.gpus_rounded:,} 张规划）。"),
        ctx.t(f"What {s.gpus} × {gpu_name} can do in {duration(s.deadline_hours, 'en')}: about {big(fit.tokens.typical, 'en')} tokens — continued pre-training, not a full run.",
              f"{s.gpus} 张 {gpu_name} 在 {duration(s.deadline_hours, 'zh')}内约能训练 {big(fit.tokens.typical, 'zh')} token——够做继续预训练，不够完整预训练。"),
    ]
    return _assemble(ctx, lead, points, notes, [timing, need, fit], ["claims"])


def _throughput_claim(ctx: Context, claimed: float) -> Draft:
    s = ctx.slots
    gpu = s.gpu or "a100-80gb-sxm"
    gpus = s.gpus or 4
    results = []
    for seq in ([s.seq_len] if s.seq_len else [512, 2048]):
        results.append(ctx.run("training-time", {"model": s.model, "params_b": None if s.model else s.params_b, "tokens": 1e9, "seq_len": seq,
                                                 "gpu": gpu, "gpus": gpus, "precision": s.precision if s.precision != "fp8" else None}))
    best = max(results, key=lambda r: r.samples_per_second)
    ratio = claimed / best.samples_per_second
    label = "not_credible" if ratio >= 3 else "optimistic" if ratio >= 1.5 else "plausible"
    ctx.record("claim-check", {"claimed_samples_per_second": claimed, "gpu": gpu, "gpus": gpus},
               {"estimated_samples_per_second": best.samples_per_second, "ratio": round(ratio, 3), "verdict": label})
    gpu_name = ctx.catalog.gpus[gpu].name
    word = verdict(ratio, ctx.lang)[1] if label != "plausible" else ctx.t("plausible", "基本可信")
    per_seq = "; ".join(f"{num(r.samples_per_second)} samples/s @ {r.seq_len} tokens" for r in results)
    lead = ctx.t(f"**Verdict: {word}.** {gpus} × {gpu_name} process about {per_seq} at typical MFU; {num(claimed)} samples/s is {num(ratio)}× that.",
                 f"**结论：{word}。** {gpus} 张 {gpu_name} 在典型 MFU 下约为 {per_seq}；宣称的每秒 {num(claimed)} 个样本是估算值的 {num(ratio)} 倍。")
    points = [ctx.t(f"Even at the high end of the MFU band ({pct(best.mfu.high)}) the GPUs cannot do the FLOPs that many samples need.",
                    f"即使按 MFU 区间上限（{pct(best.mfu.high)}），这些 GPU 也提供不了那么多样本所需的算力。")]
    return _assemble(ctx, lead, points, [], results, ["claims"])


def _latency_claim(ctx: Context, claimed_us: float) -> Draft:
    s = ctx.slots
    gpu = s.gpu or "h100-sxm"
    gpus = max(s.gpus or 512, 16)
    result = ctx.run("allreduce", {"gpu": gpu, "gpus": gpus, "size_mb": 25, "latency_us": max(claimed_us - 0.5, 0.5)})
    ctx.record("claim-check", {"claimed_latency_us": claimed_us}, {"slowdown_from_half_us": result.slowdown_from_half_us, "verdict": "unsupported"})
    lead = ctx.t(f"**Verdict: unsupported as a general rule.** In the α-β model, +0.5 µs per hop slows a 25 MB all-reduce over {gpus} GPUs by {pct(result.slowdown_from_half_us)}, before any overlap with compute.",
                 f"**结论：作为普遍规律不成立。** 按 α-β 模型，在 {gpus} 张 GPU 上对 25 MB 做 all-reduce，每跳延迟增加 0.5 µs 只会慢 {pct(result.slowdown_from_half_us)}，而且通信还会与计算重叠。")
    return _assemble(ctx, lead, [], [], [result], ["claims", "networking"])


def _fit_claim(ctx: Context) -> Draft:
    s = ctx.slots
    full = ctx.run("training-memory", {"model": s.model, "params_b": None if s.model else s.params_b, "method": "full", "gpu": s.gpu})
    qlora = ctx.run("training-memory", {"model": s.model, "params_b": None if s.model else s.params_b, "method": "qlora", "gpu": s.gpu})
    ctx.record("claim-check", {"gpu": s.gpu, "model": s.model}, {"full_fit": full.fit, "qlora_fit": qlora.fit})
    fits = {"fits": ctx.t("fits", "放得下"), "tight": ctx.t("fits, tightly", "勉强放得下"), "does_not_fit": ctx.t("does not fit", "放不下")}
    lead = ctx.t(f"**Verdict: only partly true.** Full fine-tuning needs about {num(full.per_gpu.total_gib)} GiB per GPU ({fits[full.fit]}), while QLoRA needs about {num(qlora.per_gpu.total_gib)} GiB ({fits[qlora.fit]}).",
                 f"**结论：只对了一部分。** 全参数微调每卡约需 {num(full.per_gpu.total_gib)} GiB（{fits[full.fit]}），QLoRA 约需 {num(qlora.per_gpu.total_gib)} GiB（{fits[qlora.fit]}）。")
    return _assemble(ctx, lead, [], [], [full, qlora], ["claims", "peft"])


def _assemble(ctx: Context, lead: str, points: list[str], notes: list[str], results: list, topics: list[str]) -> Draft:
    hits = ctx.retrieve(k=2, topics=topics)
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=2, headings=[h.heading for h in hits])
    quoted, cited = extract.cite(passages, hits, title=ctx.t("From the knowledge base", "知识库参考"))
    blocks = [LeadBlock(text=lead), *assumptions(notes)]
    if points:
        blocks.append(BulletsBlock(items=points))
    blocks += [*sizing.blocks(results[0], ctx.lang, ctx.catalog, lead=False), *warnings(results[0].work, ctx.lang), *quoted]
    return Draft(blocks=blocks, hits=cited, works=[(r.tool, r.work) for r in results[:2]],
                 follow_ups=[ctx.t("What configuration would actually meet this goal?", "要真正达到这个目标需要什么配置？"),
                             ctx.t("What other claims in the article are wrong?", "这篇文章还有哪些说法不对？")])
