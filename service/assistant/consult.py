"""Advice around the calculators: what a consultant adds to a literal computation.

- `stage(text)`: budget or production words steer the tier and the method.
- `fit_options(ctx, ...)`: a fit question evaluates every training method (full, LoRA, QLoRA)
  or every weight format for serving (16-bit, FP8, INT8, INT4) and leads with one that fits.
- `compute_optimal_tokens(params)`: pre-training with no token count assumes ~20 tokens per
  parameter (Chinchilla), stated as an assumption.
- `cluster_table(ctx, ...)`: with no deadline, a few cluster sizes against wall-clock time.
- `concurrency_for_users(users)`: peak concurrent sequences from a user count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.assistant import cues, slot_readers


TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022 (Chinchilla): compute-optimal data is ~20 tokens per parameter
PEAK_ACTIVE_SHARE = 0.1  # share of users with a request in flight at the busiest time
# Daily or monthly actives are not online together: a few requests a day each, so far fewer are in flight at the peak
# (an assumption, stated in the answer: 50k daily players x ~20 requests of ~5 s, peaking at ~3x the daily mean, is ~1%).
DAILY_ACTIVE_SHARE = 0.01
TRAINING_METHODS = ("full", "lora", "qlora")
SERVING_FORMATS = ("bf16", "fp8", "int8", "int4")
CLUSTER_SIZES = (8, 64, 256, 1024)
USERS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k|K|千|万)?\s*(?:个|名|位)?\s*(?:(?:concurrent |simultaneous |daily |monthly |active |internal |同时在线的?|并发)?(?:users?|用户|人(?:同时)?(?:在用|使用)?|客户|people|employees|员工|staff|players?|玩家)"
                   r"|(?:日活|月活|DAU|MAU))", re.I)
USER_SCALE = {"k": 1e3, "K": 1e3, "千": 1e3, "万": 1e4}


def cue(name: str, text: str) -> bool:
    return cues.matches("consult_cues.yaml", name, text)


def stage(text: str) -> str | None:
    """'budget', 'production' or None, from the words the user chose."""
    if cue("budget", text):
        return "budget"
    if cue("production", text):
        return "production"
    return None


def compute_optimal_tokens(params: float) -> float:
    return TOKENS_PER_PARAM * params


# "日活两万", "三千个用户": a Chinese count word before 万/千 is read as its digit.
CHINESE_COUNT = re.compile(r"(?<![\d.])(一|两|二|三|四|五|六|七|八|九|十)\s*(万|千)")
CHINESE_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


ACTIVE_USERS = re.compile(r"(?:日活|月活|DAU|MAU)\s*(?:大概|约|大约|about|around|~)?\s*(\d[\d,]*(?:\.\d+)?)\s*(k|K|千|万)?")


def users_in(text: str) -> int | None:
    text = CHINESE_COUNT.sub(lambda m: f"{CHINESE_DIGITS[m.group(1)]}{m.group(2)}", text)
    match = USERS.search(text)
    if not match:
        match = ACTIVE_USERS.search(text)
    if not match:
        return slot_readers.users_in(text)  # "2,000 daily active users": several words between the count and "users"
    return int(float(match.group(1).replace(",", "")) * USER_SCALE.get(match.group(2) or "", 1))


def concurrency_for_users(users: int, share: float = PEAK_ACTIVE_SHARE) -> int:
    return max(1, round(users * share))


DAILY_USERS = re.compile(r"daily|monthly|per day|a day|\bdau\b|\bmau\b|日活|月活|每天|每日", re.I)


def peak_share(text: str) -> float:
    """The share of the counted users with a request in flight at the peak."""
    if users_are_concurrent(text):
        return 1.0
    daily = DAILY_USERS.search(text)
    return DAILY_ACTIVE_SHARE if daily else PEAK_ACTIVE_SHARE


CONCURRENT_USERS = re.compile(r"concurrent|simultaneous|同时在线|并发", re.I)


def users_are_concurrent(text: str) -> bool:
    """"2k concurrent users" already is the peak: no active-share assumption applies."""
    match = USERS.search(text)
    return bool(match and CONCURRENT_USERS.search(match.group(0)))


@dataclass
class FitOption:
    option: str  # a training method or a weight format
    result: object  # the tool result
    fit: str  # fits | tight | does_not_fit


def fit_options(ctx, model_ref: dict, *, gpu: str, gpus: int = 1, serving: bool = False, concurrency: int = 1,
                context_len: int | None = None, seq_len: int | None = None, eight_bit_base: bool = False) -> list[FitOption]:
    """Every method (or weight format) on the named GPUs, in order of cost; options the tools refuse are left out.
    seq_len: the training length the user stated; eight_bit_base: they asked about LoRA on an 8-bit base (lora8)."""
    options: list[FitOption] = []
    if serving:
        for fmt in SERVING_FORMATS:
            result, _ = ctx.try_run("inference", {**model_ref, "gpu": gpu, "gpus": gpus, "weights": fmt, "concurrency": concurrency,
                                                  "context_len": context_len})
            if result is not None:
                options.append(FitOption(fmt, result, result.fit or "fits"))
        return options
    methods = list(TRAINING_METHODS)
    if eight_bit_base:
        methods.insert(methods.index("qlora"), "lora8")  # "LoRA in 8-bit": the base the user asked about, between the two
    for method in methods:
        payload = {**model_ref, "task": "fine-tune", "method": "lora" if method == "lora8" else method, "gpu": gpu, "gpus": gpus}
        if method == "lora8":
            payload["lora_base_bits"] = 8
        if seq_len:
            payload["seq_len"] = seq_len
        if gpus > 1:
            payload["sharding"] = "zero3"
        result, _ = ctx.try_run("training-memory", payload)
        if result is not None:
            options.append(FitOption(method, result, result.fit or "fits"))
    return options


def with_checkpointing(ctx, option: FitOption, model_ref: dict, *, gpu: str, gpus: int, seq_len: int | None) -> FitOption | None:
    """The training option again with full activation checkpointing, when it was sized without it and did not fit."""
    if option.option not in ("full", "lora", "lora8") or getattr(option.result, "recompute", None) == "full":
        return None
    payload = {**model_ref, "task": "fine-tune", "method": "lora" if option.option == "lora8" else option.option, "gpu": gpu, "gpus": gpus,
               "recompute": "full", **({"lora_base_bits": 8} if option.option == "lora8" else {}), **({"seq_len": seq_len} if seq_len else {}),
               **({"sharding": "zero3"} if gpus > 1 else {})}
    result, _ = ctx.try_run("training-memory", payload)
    return None if result is None else FitOption(option.option, result, result.fit or "fits")


def best_fit(options: list[FitOption]) -> FitOption | None:
    """The most capable option that fits comfortably, else the one that fits tightly."""
    for wanted in ("fits", "tight"):
        for option in options:
            if option.fit == wanted:
                return option
    return None


def cluster_table(ctx, model_ref: dict, *, tokens: float, gpu: str, sizes: tuple[int, ...] = CLUSTER_SIZES) -> list[tuple[int, object]]:
    """(GPUs, training-time result) for a few cluster sizes: what a deadline would buy."""
    rows = []
    for gpus in sizes:
        result, _ = ctx.try_run("training-time", {**model_ref, "tokens": tokens, "gpu": gpu, "gpus": gpus})
        if result is not None:
            rows.append((gpus, result))
    return rows
