"""A serving plan held against the latency the user asked for.

"p95 under 3 s for ~400-token answers", "每路每秒不低于 20 token", "TPOT 50 ms": each is a decode speed per sequence
the plan must reach (an end-to-end target leaves `target − time to first token` for the output tokens). The inference
tool gives the plan's decode speed per sequence at its concurrency; when it is too slow, fewer sequences per copy of
the plan are what make each faster, so the answer is the replica count at which the target holds — every figure a
tool call.
"""

from __future__ import annotations

import math
import re

from service.assistant import consult
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.handlers.serving_load import lengths_in
from service.assistant.messages import say
from service.contract import ParagraphBlock

I = re.IGNORECASE
_N = r"(\d[\d,]*(?:\.\d+)?)"
_PER_SEQUENCE = r"(?:per\s+(?:user|stream|sequence|request|session|conversation)|each\s+user|每(?:个|位)?(?:用户|路|请求|会话|人)|单路|单用户|每路)"
PER_SEQUENCE = re.compile(_PER_SEQUENCE, I)
_TOKENS = r"(?:tokens?|toks?|个\s*token|字)"
RATE = [
    re.compile(rf"{_N}\s*{_TOKENS}\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?|每秒|/\s*秒)", I),
    re.compile(rf"每秒\s*(?:钟)?\s*(?:输出|生成|吐|出)?\s*(?:不低于|至少|不少于|大于|高于|>=|≥|>)?\s*{_N}\s*{_TOKENS}", I),
]
TPOT = re.compile(
    rf"(?:\btpot\b|\bitl\b|inter[- ]token|per[- ]token\s+latency|time\s+per\s+output\s+token|每个?\s*token\s*(?:的)?\s*(?:延迟|耗时|时延)|token\s*间隔)"
    rf"[^0-9\n]{{0,16}}{_N}\s*(ms|毫秒|s|秒)",
    I,
)
AGGREGATE = re.compile(r"total|aggregate|overall|throughput|in all|总|整体|合计|吞吐", I)
TTFT_WORDS = re.compile(r"time[- ]to[- ]first[- ]token|\bttft\b|first[- ]token|首\s*token|首字|首包", I)
END_TO_END = re.compile(
    rf"(?:p9[059]|latency|延迟|响应时间|response\s+time|end[- ]to[- ]end|端到端|回复|返回)[^0-9\n。.;；]{{0,24}}?{_N}\s*(ms|毫秒|s\b|secs?\b|seconds?|秒)"
    rf"|{_N}\s*(ms|毫秒|s\b|secs?\b|seconds?|秒)\s*(?:内|以内|之内)\s*(?:返回|回复|出完|响应|生成完)",
    I,
)
ANSWER_TOKENS = re.compile(rf"{_N}\s*(k)?\s*-?\s*{_TOKENS}\s*(?:的)?\s*(?:answers?|repl(?:y|ies)|responses?|outputs?|completions?|回答|回复|输出|答案)", I)
TTFT_TARGET = re.compile(
    rf"(?:time[- ]to[- ]first[- ]token|\bttft\b|first[- ]token|首\s*token|首字|首包)[^0-9\n]{{0,16}}{_N}\s*(ms|毫秒|s\b|secs?\b|seconds?|秒)", I
)
PERCENTILE = re.compile(r"\bp9[059]\b|\bP9[059]\b|tail|尾延迟", I)
DEFAULT_OUTPUT_TOKENS = 256  # the serving-load default (serving_load.throughput_notes)


def _seconds(value: str, unit: str) -> float:
    x = float(value.replace(",", ""))
    return x / 1000 if unit.lower() in ("ms", "毫秒") else x


def per_sequence_target(text: str) -> tuple[str, float] | None:
    """("rate", tokens/s) for a stated speed per sequence; ("tpot", seconds) for a time per output token."""
    m = TPOT.search(text)
    if m:
        return "tpot", _seconds(m.group(1), m.group(2))
    for pattern in RATE:
        m = pattern.search(text)
        if not m:
            continue
        rate = float(m.group(1).replace(",", ""))
        around = text[max(0, m.start() - 20) : m.end() + 20]
        # "2,000 tokens/s in total" is the fleet's throughput; 20 tokens/s with no such word is what one user sees.
        if PER_SEQUENCE.search(around) or (not AGGREGATE.search(around) and rate <= 200):
            return "rate", rate
    return None


def end_to_end_target(text: str) -> float | None:
    """Seconds for a whole answer ("p95 under 3 s", "3 秒内返回"), not a first-token target."""
    for m in END_TO_END.finditer(text):
        if TTFT_WORDS.search(text[max(0, m.start() - 12) : m.end()]):
            continue
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return _seconds(value, unit)
    return None


def output_tokens(text: str) -> int | None:
    m = ANSWER_TOKENS.search(text)
    if m:
        return int(float(m.group(1).replace(",", "")) * (1024 if m.group(2) else 1))
    return lengths_in(text)[1]


def _held_against(band, tail: bool) -> float:
    """The per-sequence decode speed a target is held against: a p95 target the slow end of the band."""
    return band.low if tail else band.typical


def check_latency_target(ctx: Context, draft: Draft) -> None:
    """For a serving plan: the decode speed per sequence the user's target needs against the plan's, and if it falls
    short the replicas (fewer sequences each) at which it holds. Adds one paragraph after the lead; records its figures."""
    rec = draft.recommendation
    if not rec or rec.get("task") != "inference" or not (ctx.slots.model or ctx.slots.params_b):
        return
    stated = per_sequence_target(ctx.text)
    total_s = None if stated else end_to_end_target(ctx.text)
    first = TTFT_TARGET.search(ctx.text)
    if stated is None and total_s is None and first is None:
        return
    configuration = rec["recommended"]["configuration"]
    gpu_id, gpus = configuration["gpu"], configuration["gpus"]
    concurrency = ctx.slots.concurrency or 1
    base = {**model_ref(ctx), "gpu": gpu_id, "gpus": gpus, "weights": ctx.slots.weights, "context_len": ctx.slots.context_len}
    plan, _ = ctx.try_run("inference", {**base, "concurrency": concurrency})
    if plan is None or not plan.decode_tokens_per_second:
        return
    tail = bool(PERCENTILE.search(ctx.text))
    at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
    draft.works.append((plan.tool, plan.work))
    if first is not None:
        draft.blocks.insert(at, ParagraphBlock(text=_first_token(ctx, plan, _seconds(first.group(1), first.group(2)))))
        at += 1
    if stated is None and total_s is None:
        return
    output = None
    if stated is not None:
        need = stated[1] if stated[0] == "rate" else 1 / stated[1]
        inputs = {"tokens_per_second_per_sequence" if stated[0] == "rate" else "seconds_per_output_token": stated[1]}
    else:
        output = output_tokens(ctx.text) or DEFAULT_OUTPUT_TOKENS
        left = total_s - (plan.time_to_first_token_s or 0)
        if left <= 0:
            draft.blocks.insert(at, ParagraphBlock(text=_first_token_too_slow(ctx, plan, total_s)))
            return
        need = output / left
        inputs = {"target_seconds": total_s, "output_tokens": output, "time_to_first_token_s": plan.time_to_first_token_s}
    have = _held_against(plan.decode_tokens_per_second, tail)
    ctx.record(
        "latency-target",
        {**inputs, "decode_tokens_per_second_per_sequence": have, "concurrency": concurrency},
        {"required_tokens_per_second_per_sequence": need, "meets_target": have >= need},
    )
    values = {
        "need": num(need),
        "have": num(have),
        "concurrency": f"{concurrency:,}",
        "gpus": gpus,
        "gpu": ctx.catalog.gpus[gpu_id].name,
        "end": say("latency.slow_end" if tail else "latency.typical", ctx.lang),
    }
    if output is not None:
        values |= {"output": f"{output:,}", "target": num(total_s), "ttft": num(plan.time_to_first_token_s or 0)}
    how = say("latency.derived" if output is not None else "latency.stated", ctx.lang, **values)
    if output is not None and not ANSWER_TOKENS.search(ctx.text) and not lengths_in(ctx.text)[1]:
        how += " " + say("latency.assumed_output", ctx.lang, output=f"{output:,}")
    if have >= need:
        text = say("latency.meets", ctx.lang, **values)
    else:
        text = _replicas_that_meet(ctx, base, concurrency, need, tail, values)
    draft.blocks.insert(at, ParagraphBlock(text=f"{text}{'' if ctx.lang == 'zh' else ' '}{how}"))


def _replicas_that_meet(ctx: Context, base: dict, concurrency: int, need: float, tail: bool, values: dict) -> str:
    """The most sequences one copy of the plan can hold at the target speed (decode slows as sequences are added, so a
    bisection over the inference tool finds it), and so the replicas."""

    def speed(sequences: int) -> float | None:
        trial, _ = ctx.try_run("inference", {**base, "concurrency": sequences})
        if trial is None or not trial.decode_tokens_per_second:
            return None
        return _held_against(trial.decode_tokens_per_second, tail)

    single = speed(1)
    if single is None or single < need:
        return say("latency.unreachable", ctx.lang, **values, single=num(single or 0))
    fits, too_many = 1, concurrency  # speed(fits) meets the target, speed(too_many) does not
    while too_many - fits > 1:
        middle = (fits + too_many) // 2
        at = speed(middle)
        if at is not None and at >= need:
            fits = middle
        else:
            too_many = middle
    replicas = math.ceil(concurrency / fits)
    per_replica = math.ceil(concurrency / replicas)
    have = speed(per_replica)
    ctx.record(
        "latency-replicas",
        {"concurrency": concurrency, "most_sequences_at_target": fits, "gpus_per_replica": base["gpus"]},
        {"replicas": replicas, "sequences_per_replica": per_replica, "decode_tokens_per_second_per_sequence": have, "gpus": replicas * base["gpus"]},
    )
    return say("latency.replicas", ctx.lang, **values, replicas=replicas, per_replica=f"{per_replica:,}", at=num(have), total=replicas * base["gpus"])


def _first_token(ctx: Context, plan, target: float) -> str:
    """A first-token target against the plan's time to first token (prefill of the prompt the tool assumed)."""
    ttft = plan.time_to_first_token_s or 0
    prompt = next((i.value for i in plan.work.inputs if i.name == "prompt_tokens"), None)
    ctx.record("first-token-target", {"target_seconds": target, "time_to_first_token_s": ttft, "prompt_tokens": prompt}, {"meets_target": ttft <= target})
    return say(
        "latency.first_token_ok" if ttft <= target else "latency.first_token_over_target",
        ctx.lang,
        target=num(target),
        ttft=num(ttft),
        prompt=f"{int(prompt or 0):,}",
        gpus=plan.gpus,
        gpu=ctx.catalog.gpus[plan.gpu].name,
    )


def _first_token_too_slow(ctx: Context, plan, total_s: float) -> str:
    ctx.record("latency-target", {"target_seconds": total_s, "time_to_first_token_s": plan.time_to_first_token_s}, {"meets_target": False})
    return say(
        "latency.first_token_over", ctx.lang, target=num(total_s), ttft=num(plan.time_to_first_token_s), gpus=plan.gpus, gpu=ctx.catalog.gpus[plan.gpu].name
    )


LATENCY_ASKED = re.compile(r"latenc|延迟|时延|响应时间|response time|how fast|how quick|多快|多久.{0,4}(?:回复|返回|出)|\bttft\b|首字|首\s*token", I)


def latency_estimate(ctx: Context, result) -> list:
    """"What latency should I expect?" with no target: the per-sequence decode speed as time per output token, the
    first token for the prompt the tool assumed, and an answer of a stated (or assumed) length — blocks to lead with."""
    if not LATENCY_ASKED.search(ctx.text) or END_TO_END.search(ctx.text) or TTFT_TARGET.search(ctx.text) or not result.decode_tokens_per_second:
        return []
    speed = result.decode_tokens_per_second
    stated = output_tokens(ctx.text)
    output = stated or DEFAULT_OUTPUT_TOKENS
    ttft = result.time_to_first_token_s or 0
    prompt = next((i.value for i in result.work.inputs if i.name == "prompt_tokens"), 0)
    per_token_ms = {"low": 1000 / speed.high, "typical": 1000 / speed.typical, "high": 1000 / speed.low}
    answer_s = {"fast": ttft + output / speed.high, "slow": ttft + output / speed.low}
    ctx.record("latency-estimate", {"decode_tokens_per_second_per_sequence": speed.model_dump(), "time_to_first_token_s": ttft,
                                    "prompt_tokens": prompt, "output_tokens": output, "concurrency": result.concurrency},
               {"ms_per_output_token": per_token_ms, "seconds_per_answer": answer_s})
    gpu = ctx.catalog.gpus[result.gpu].name if result.gpu else ""
    text = say("latency.estimate", ctx.lang, low=num(speed.low), high=num(speed.high), ms_low=num(per_token_ms["low"]), ms_high=num(per_token_ms["high"]),
               ttft=num(ttft), prompt=f"{int(prompt or 0):,}", output=f"{output:,}", fast=num(answer_s["fast"]), slow=num(answer_s["slow"]),
               concurrency=f"{result.concurrency:,}", gpus=result.gpus, gpu=gpu)
    blocks = [ParagraphBlock(text=text), ParagraphBlock(text=say("latency.under_load", ctx.lang))]
    if not stated:
        blocks.insert(1, ParagraphBlock(text=say("latency.assumed_output", ctx.lang, output=f"{output:,}")))
    return blocks


def concurrency_lead(ctx: Context, result) -> list:
    """"How many sequences can it run at once?": the inference tool's ceiling for the context asked, as the lead."""
    if ctx.slots.concurrency or result.max_concurrency is None or not consult.cue("concurrency_asked", ctx.text):
        return []
    gpu = ctx.catalog.gpus[result.gpu].name if result.gpu else ""
    text = say("latency.max_concurrency", ctx.lang, n=f"{result.max_concurrency:,}", context=f"{result.context_len:,}", gpus=result.gpus, gpu=gpu,
               weights=result.weights_format.upper(), kv=num(result.kv_per_sequence_gib))
    return [ParagraphBlock(text=text)]
