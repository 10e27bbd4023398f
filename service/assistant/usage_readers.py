"""A usage share stated in words, read as the yearly utilisation (the share of hours the GPUs are busy) in a pricing or renting
question: "usage ~45%", "we use them about half the time", "GPU 平均只用了一半时间", "六成时间在跑", "用了40%"; and a short
follow-up that only restates it: "and at 80%?", "那如果用到八成呢".

GPU-Util readings ("GPU 利用率只有 30%") are not read here: slot_amounts.utilization keeps them as gpu_utilization. The words are in
usage_cues.yaml; the number grammar (percentages, 一半, 六成, a third) is here.
"""

from __future__ import annotations

import re

from service.assistant.cues import patterns
from service.assistant.numbers import ARABIC, CN_NUMERAL, parse_number

I = re.IGNORECASE
CUES = "usage_cues.yaml"
MAX_RESTATED = 40  # characters: "and at 80%?", "那如果用到八成呢"
PERCENT = rf"(?<![A-Za-z0-9_.])({ARABIC}|{CN_NUMERAL})\s*(?:%|％|percent\b)"
TENTHS = r"(?<![\d一二三四五六七八九十])([一二两三四五六七八九]|\d)\s*成"  # 六成 = 60%
WORD_SHARES = [
    (re.compile(r"\ba half\b|\bhalf\b|一半|半数", I), 0.5),
    (re.compile(r"三分之一|\bone[- ]third\b|\ba third\b", I), 1 / 3),
    (re.compile(r"三分之二|\btwo[- ]thirds\b", I), 2 / 3),
    (re.compile(r"四分之一|\bone[- ]quarter\b|\ba quarter\b", I), 0.25),
    (re.compile(r"四分之三|\bthree[- ]quarters\b", I), 0.75),
]
SHARE_FIGURE = re.compile(rf"{PERCENT}|{TENTHS}", I)
PERCENT_FIGURE = re.compile(PERCENT, I)
TENTHS_FIGURE = re.compile(TENTHS)
# After a share, the words saying it is a share of time ("45% of the time", "一半时间"), from usage_cues.yaml: compiled here,
# at import, not per question.
TIME_AFTER = re.compile(rf"\s*(?:{patterns(CUES)['time_after'].pattern})", I)
TIME_AFTER_WORD = re.compile(rf"\s*(?:of\s+)?(?:the\s+)?(?:{patterns(CUES)['time_after'].pattern})", I)
# A short turn that restates only the usage: "and at 80%?", "80% then?", "那如果用到八成呢", "六成的话呢". Read by removing
# the filler words: what is left must be one share. (A single pattern with optional groups backtracked exponentially.)
RESTATED_FILLER = re.compile(
    r"\b(?:and|so|ok|okay|but|what|how|about|if|we|it|they|are|were|is|was|use[ds]?|at|with|to|on|usage|utili[sz]ation|of|the|time|"
    r"instead|then)\b|那么|那|如果|要是|假如|利用率|用到|用了|跑到|提高到|提到|升到|降到|的话|怎么样|如何|时间|到|是|为|的|呢|吗|[\s,，?？。.!！]", I)


def usage_share(text: str) -> float | None:
    """The share of hours busy the text states in a pricing context (0-1], else None."""
    # Only a short turn restates a usage.
    rest = RESTATED_FILLER.sub("", text) if len(text) <= MAX_RESTATED else ""
    if 0 < len(rest) <= 8:
        share = _share(rest)
        if share is not None:
            return share
    cue = patterns(CUES)
    if not cue["pricing"].search(text):
        return None
    for m in SHARE_FIGURE.finditer(text):
        before, after = text[max(0, m.start() - 24):m.start()], text[m.end():m.end() + 16]
        used = _last(cue["usage_before"], before)
        if used is None and not TIME_AFTER.match(after):
            continue
        if cue["other_resource"].search(before[max(0, used.start() - 6):] if used else before[-8:]):
            continue  # "显存用了40%", "usage discount 40%": not the GPUs' hours
        value = _share(m.group(0))
        if value is not None:
            return value
    for pattern, value in WORD_SHARES:
        for m in pattern.finditer(text):
            if TIME_AFTER_WORD.match(text[m.end():m.end() + 16]):
                return value
    return None


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = None
    for found in pattern.finditer(text):
        pass
    return found


def _share(written: str) -> float | None:
    """'45%' -> 0.45, '六成' -> 0.6, '一半' -> 0.5; None when it is not a share in (0, 1]."""
    written = written.strip()
    if m := PERCENT_FIGURE.fullmatch(written):
        value = parse_number(m.group(1))
        value = value / 100 if value is not None else None
    elif m := TENTHS_FIGURE.fullmatch(written):
        value = (parse_number(m.group(1)) or 0) / 10
    else:
        value = next((v for p, v in WORD_SHARES if p.fullmatch(written)), None)
    return value if value is not None and 0 < value <= 1 else None
