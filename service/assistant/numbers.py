"""Numbers as people write them in Chinese and English: 3000亿, 50万, 15T, 1.5e12, 两周, 十天, $20k.

Used both to read questions (slot extraction) and to read answers (grounding).
"""

from __future__ import annotations

import re

CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
CN_UNITS = {"十": 10, "百": 100, "千": 1000}
MULTIPLIER = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "b": 1e9, "B": 1e9, "t": 1e12, "T": 1e12,
              "千": 1e3, "万": 1e4, "亿": 1e8, "万亿": 1e12, "千亿": 1e11, "百亿": 1e10, "十亿": 1e9, "千万": 1e7, "百万": 1e6}

CN_NUMERAL = "[零〇一二两三四五六七八九十百千]+"
ARABIC = r"\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?"
NUMBER = rf"(?:{ARABIC}|{CN_NUMERAL})"
# Big units may follow either kind of number: "3000亿", "1.5万亿", "五十万".
# "3千亿", "5百万": an Arabic digit before a compound unit ("三千亿" is read as a Chinese numeral, then 亿).
BIG = r"(?:万亿|千亿|百亿|十亿|亿|千万|百万|万|千)"


def cn_to_int(text: str) -> int | None:
    """'十' -> 10, '二十五' -> 25, '三百' -> 300, '两' -> 2."""
    if not text or any(ch not in CN_DIGITS and ch not in CN_UNITS for ch in text):
        return None
    total, digit = 0, None
    for ch in text:
        if ch in CN_DIGITS:
            digit = CN_DIGITS[ch]
        else:
            total += (digit if digit is not None else 1) * CN_UNITS[ch]
            digit = None
    return total + (digit or 0)


NUMBER_WITH_MULTIPLIER = re.compile(rf"({ARABIC}|{CN_NUMERAL})\s*({BIG}|[kKmMbBtT])?")
ARABIC_NUMBER = re.compile(ARABIC)


def parse_number(text: str) -> float | None:
    """One number with an optional 万/亿/K/M/B/T multiplier; None if it is not a number."""
    text = text.strip()
    m = NUMBER_WITH_MULTIPLIER.fullmatch(text)
    if not m:
        return None
    base_text, mult = m.group(1), m.group(2)
    if ARABIC_NUMBER.fullmatch(base_text):
        base = float(base_text.replace(",", ""))
    else:
        value = cn_to_int(base_text)
        if value is None:
            return None
        base = float(value)
    return base * MULTIPLIER[mult] if mult else base


# A number in running text with an optional multiplier glued to it.
QUANTITY = re.compile(rf"(?<![A-Za-z0-9_.])({ARABIC}|{CN_NUMERAL})\s*({BIG}|[kKmMbBtT](?![a-zA-Z]))?")


def quantities(text: str) -> list[tuple[float, int, int]]:
    """(value, start, end) for every number in `text` (multipliers applied)."""
    out = []
    for m in QUANTITY.finditer(text):
        value = parse_number(m.group(0))
        if value is not None:
            out.append((value, m.start(), m.end()))
    return out
