"""A measured training throughput to judge: "8×H100 training Llama 3 8B, only 9,000 tokens/s, is that normal?".

The training-time tool gives the cluster's tokens/s at the typical MFU and the MFU band for the model and card; the
measured rate over that estimate, times the typical MFU, is the MFU the user's run achieves. The answer says whether it
is below, inside or above the band (or above the cards' peak: then the rate is miscounted), then the usual causes. Sentences are in the message catalog (measured_speed.*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import model_label, num, pct
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.messages import say
from service.contract import LeadBlock, ParagraphBlock

NUMBER = r"(\d[\d,]*(?:\.\d+)?)\s*([kK万])?"
UNIT = r"(?:tokens?|tok)\s*/\s*s(?:ec)?|tokens?\s*(?:per|a)\s*(?:second|sec)|tokens?\s*每秒"
# "9000 tokens/s", "9k tok/s", or "tokens/s 只有 9000", "throughput is only 9,000"
RATE_AFTER = re.compile(rf"{NUMBER}\s*(?:个\s*)?(?:{UNIT})", re.I)
RATE_BEFORE = re.compile(rf"(?:{UNIT}|吞吐(?:量)?|throughput)\s*(?:is|was|of|只有|才|仅|约|大约|是|为|:|：|only|just|about|around|~|\s)*{NUMBER}", re.I)
PER_GPU = re.compile(r"per[\s-]*gpu|/\s*gpu|每\s*(?:张)?\s*卡|单卡|每\s*gpu", re.I)
TRAINING = re.compile(r"train|fine[\s-]*tun|finetun|pre[\s-]*train|\bsft\b|lora|训练|微调|预训练|精调", re.I)
# A rate the user saw in a run of theirs, not a target ("need 9,000 tokens/s"): how they report or question it.
OBSERVED = re.compile(
    r"正常吗|正常不|合理吗|是不是.{0,4}(?:慢|低)|偏低|太慢|很慢|慢|只有|才|仅|实测|测得|跑出|跑到|跑了|目前|现在|"
    r"normal|reasonable|expected\?|too slow|slow|\bonly\b|\bjust\b|we (?:get|see|are getting|measure)|i (?:get|see)|"
    r"measured|getting|is that (?:ok|good|bad)",
    re.I,
)
MULT = {"k": 1e3, "K": 1e3, "万": 1e4}
RUN_TOKENS = 1e9  # any run length: the rate does not depend on it


# "step time 2.3s, global batch 1024×4096", "每步 1.8 秒，每步 4M token": tokens per step over seconds per step
STEP_TIME = re.compile(r"(?:step[\s_-]*time|iteration[\s_-]*time|time per step|per[\s-]*step time|每步(?:耗时|时间|用时)?|一步(?:要|耗时)?)"
                       r"\D{0,12}?(\d+(?:\.\d+)?)\s*(ms|毫秒|s\b|secs?|seconds?|秒)", re.I)
GLOBAL_BATCH = re.compile(r"(?:global[\s_-]*batch(?:[\s_-]*size)?|全局\s*batch(?:\s*size)?|\bgbs\b)\D{0,10}?(\d[\d,]*)(?:\s*[x×*]\s*(\d[\d,]*))?", re.I)
TOKENS_PER_STEP = re.compile(r"(\d+(?:\.\d+)?)\s*([kKmM])?\s*tokens?\s*(?:per|/|每)\s*(?:step|步)|每步\s*(\d+(?:\.\d+)?)\s*([kKmM万])?\s*(?:个\s*)?tokens?", re.I)
STEP_MULT = {"k": 1e3, "m": 1e6, "万": 1e4}


def step_rate(text: str, seq_len: int | None) -> float | None:
    """Tokens/s from a step time and the tokens each step processes (global batch × sequence length)."""
    step = STEP_TIME.search(text)
    if not step:
        return None
    seconds = float(step.group(1)) / (1000 if step.group(2).lower() in ("ms", "毫秒") else 1)
    tokens = None
    if (m := TOKENS_PER_STEP.search(text)) is not None:
        number, mult = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        tokens = float(number) * STEP_MULT.get((mult or "").lower(), 1)
    elif (m := GLOBAL_BATCH.search(text)) is not None:
        batch = float(m.group(1).replace(",", ""))
        seq = float(m.group(2).replace(",", "")) if m.group(2) else seq_len
        tokens = batch * seq if seq else None
    return tokens / seconds if tokens and seconds > 0 else None


def measured_rate(text: str) -> float | None:
    m = RATE_AFTER.search(text) or RATE_BEFORE.search(text)
    if not m:
        return None
    value = float(m.group(1).replace(",", "")) * MULT.get(m.group(2) or "", 1.0)
    return value if value > 0 else None


def answer(ctx: Context) -> Draft | None:
    s, lang = ctx.slots, ctx.lang
    stepped = step_rate(ctx.text, s.seq_len)
    measured = measured_rate(ctx.text) or stepped
    if measured is None or not (s.model or s.params_b) or not s.gpu:
        return None
    if stepped is None and not (TRAINING.search(ctx.text) and OBSERVED.search(ctx.text)):
        return None  # a step time and its tokens are a run's own measurements; a bare rate must be said to be one
    gpus = s.gpus or 1
    payload = {**model_ref(ctx), "gpu": s.gpu, "gpus": gpus, "tokens": RUN_TOKENS, "precision": s.precision, "method": s.method or "full", "seq_len": s.seq_len}
    result, _ = ctx.try_run("training-time", payload)
    if result is None or not result.tokens_per_second:
        return None
    per_gpu = bool(PER_GPU.search(ctx.text))
    cluster = measured * result.gpus if per_gpu else measured
    mfu = cluster / result.tokens_per_second * result.mfu.typical
    low, high = result.mfu.low, result.mfu.high
    verdict = "low" if mfu < low else "impossible" if mfu > 1 else "high" if mfu > high else "normal"
    expected_low = result.tokens_per_second * low / result.mfu.typical
    expected_high = result.tokens_per_second * high / result.mfu.typical
    ctx.record(
        "measured-throughput",
        {"measured_tokens_per_s": measured, "per_gpu": per_gpu, "gpus": result.gpus},
        {
            "cluster_tokens_per_s": cluster,
            "expected_tokens_per_s": result.tokens_per_second,
            "expected_low": expected_low,
            "expected_high": expected_high,
            "implied_mfu": mfu,
            "mfu_low": low,
            "mfu_typical": result.mfu.typical,
            "mfu_high": high,
            "verdict": verdict,
        },
    )
    name = model_label(ctx.catalog, result.model, result.params_b)
    values = {
        "model": name,
        "gpu": ctx.catalog.gpus[result.gpu].name,
        "gpus": result.gpus,
        "measured": say("measured_speed.per_gpu", lang, rate=num(measured), total=num(cluster))
        if per_gpu
        else say("measured_speed.total", lang, rate=num(cluster)),
        "mfu": pct(mfu),
        "expected": num(result.tokens_per_second),
        "low": num(expected_low),
        "high": num(expected_high),
        "typical": pct(result.mfu.typical),
        "mfu_low": pct(low),
        "mfu_high": pct(high),
        "precision": result.precision.upper(),
    }
    blocks = [LeadBlock(text=say(f"measured_speed.lead_{verdict}", lang, **values)), ParagraphBlock(text=say("measured_speed.how", lang, **values))]
    if verdict == "low":
        blocks.append(ParagraphBlock(text=say("training_speed.advice", lang)))
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(say("measured_speed.query", lang), k=3),
        works=[(result.tool, result.work)],
        follow_ups=[say("training_speed.follow_mfu", lang)],
    )
