"""What a reserved-versus-on-demand question states, read from its words: whether it is one (a commitment word with
the other side, not a purchase of hardware), the discount ("打6折", "40% off"), the term ("3-year", "包年") and the rates
quoted on each side. Below the handlers so that follow-ups (followup.py) can tell such a question without importing one.
The words are in reserved_cues.yaml."""

from __future__ import annotations

import re

from service.assistant.cues import patterns
from service.assistant.numbers import ARABIC, parse_number
from service.assistant.slot_readers import price

CUES = "reserved_cues.yaml"
PERCENT_FIGURE = re.compile(rf"({ARABIC})\s*%")
# The discount words around a percentage (reserved_cues.yaml), compiled at import, not per question.
DISCOUNT_AFTER = re.compile(rf"\s*(?:{patterns(CUES)['discount_after'].pattern})", re.I)
DISCOUNT_BEFORE = re.compile(rf"(?:{patterns(CUES)['discount_before'].pattern})\s*(?:about|around|~|约|大约)?\s*$", re.I)
YEARLY_BILLING = re.compile(r"包年")
I = re.IGNORECASE
CN_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# "打6折", "六折", "七五折", "75折": the price paid in tenths (or hundredths) of on-demand.
ZHE = re.compile(r"(?:打\s*)?([1-9]\d?(?:\.\d)?|[一二两三四五六七八九]{1,2})\s*折")
TERM = re.compile(r"(?<![\d.])([1-5]|one|two|three|five|[一两二三五])\s*[- ]?\s*(?:years?|yrs?|年)(?:期|的|合约|合同|term)?", I)
WORD_YEARS = {"one": 1, "two": 2, "three": 3, "five": 5, "一": 1, "两": 2, "二": 2, "三": 3, "五": 5}


def asks(text: str, *, usage_stated: bool = False) -> bool:
    """A reserved / committed-use vs on-demand question, not one about buying hardware: a commitment word with the other side,
    a weighing word, a discount or the usage it would be judged at ("commit to a 3-year CUD? we use them half the time")."""
    cue = patterns(CUES)
    if not cue["commitment"].search(text) or cue["hardware"].search(text):
        return False
    return bool(usage_stated or cue["on_demand"].search(text) or cue["weighs"].search(text) or discount(text) is not None)


def discount(text: str) -> float | None:
    """The reserved discount a question states: "打6折" -> 0.4, "七五折" -> 0.25, "40% off" / "优惠40%" -> 0.4."""
    if m := ZHE.search(text):
        written = m.group(1)
        tenths = parse_number(written) if written[0].isdigit() else _cn_tenths(written)
        if tenths:
            paid = tenths / 10 if tenths < 10 else tenths / 100
            if 0 < paid <= 1:
                return round(1 - paid, 4)
    for m in PERCENT_FIGURE.finditer(text):
        after, before = text[m.end():m.end() + 12], text[max(0, m.start() - 14):m.start()]
        if DISCOUNT_AFTER.match(after) or DISCOUNT_BEFORE.search(before):
            share = (parse_number(m.group(1)) or 0) / 100
            if 0 <= share < 1:
                return share
    return None


def term_years(text: str) -> float | None:
    """The commitment term: "3-year", "三年期", "1年"; 包年 is one year."""
    m = TERM.search(text)
    if m:
        written = m.group(1).lower()
        return float(WORD_YEARS.get(written) or parse_number(written) or 0) or None
    return 1.0 if YEARLY_BILLING.search(text) else None


def _cn_tenths(written: str) -> float | None:
    digits = [CN_DIGIT.get(ch) for ch in written]
    if None in digits:
        return None
    return digits[0] if len(digits) == 1 else digits[0] * 10 + digits[1]


def quoted_prices(text: str) -> dict[str, float]:
    """The per-GPU-hour rates a question quotes, each labelled by the billing word nearest before it (else just after it):
    "reserved at $2.1/GPU-hr vs on-demand $3.5/GPU-hr", "按需每卡时 28 元，包年每卡时 17 元". A lone unlabelled rate is on-demand."""
    cue = patterns(CUES)
    found: dict[str, float] = {}
    masked = text
    while (m := price(masked)) is not None:
        value, _, start, end = m
        before, after = masked[max(0, start - 40):start], text[end:end + 14]  # after: only right after, "$2.6/hr reserved"
        label = _nearest_label(cue, after, last=False) or _nearest_label(cue, before, last=True) or "on_demand_price_per_gpu_hour"
        if label in found:  # two rates quoted: the second is the other side's
            label = next(f for f in ("on_demand_price_per_gpu_hour", "reserved_price_per_gpu_hour") if f != label)
        found.setdefault(label, value)
        masked = masked[:start] + " " * (end - start) + masked[end:]
    return found


def _nearest_label(cue, text: str, *, last: bool) -> str | None:
    spots = [(m.start(), "reserved_price_per_gpu_hour") for m in cue["commitment"].finditer(text)]
    spots += [(m.start(), "on_demand_price_per_gpu_hour") for m in cue["on_demand"].finditer(text)]
    if not last:
        spots = [spot for spot in spots if spot[0] <= 3 and not text[:spot[0]].strip()]  # "… reserved", not "，包年…" (the next rate's)
    if not spots:
        return None
    return (max(spots) if last else min(spots))[1]
