"""A usage share stated in words, read as the yearly utilisation (the share of hours the GPUs are busy) in a pricing or renting
question: "usage ~45%", "we use them about half the time", "GPU 平均只用了一半时间", "六成时间在跑", "用了40%"; and a short
follow-up that only restates it: "and at 80%?", "那如果用到八成呢".

GPU-Util readings ("GPU 利用率只有 30%") are not read here: slots._utilization keeps them as gpu_utilization. The words are in
usage_cues.yaml; the number grammar (percentages, 一半, 六成, a third) is here.
"""

from __future__ import annotations

import re

from service.assistant.cues import patterns
from service.assistant.numbers import ARABIC, CN_NUMERAL, parse_number

I = re.IGNORECASE
CUES = "usage_cues.yaml"
PERCENT = rf"(?<![A-Za-z0-9_.])({ARABIC}|{CN_NUMERAL})\s*(?:%|％|percent\b)"
TENTHS = r"(?<![\d一二三四五六七八九十])([一二两三四五六七八九]|\d)\s*成"  # 六成 = 60%
WORD_SHARES = [
    (re.compile(r"\ba half\b|\bhalf\b|一半|半数", I), 0.5),
    (re.compile(r"三分之一|\bone[- ]third\b|\ba third\b", I), 1 / 3),
    (re.compile(r"三分之二|\btwo[- ]thirds\b", I), 2 / 3),
    (re.compile(r"四分之一|\bone[- ]quarter\b|\ba quarter\b", I), 0.25),
    (re.compile(r"四分之三|\bthree[- ]quarters\b", I), 0.75),
]
# A short turn that restates only the usage: "and at 80%?", "80% then?", "那如果用到八成呢", "六成的话呢".
RESTATED = re.compile(
    r"^\s*(?:(?:and|so|ok|okay|but)\s*,?\s*)?(?:what|how)?\s*(?:about|if)?\s*(?:we|it|they)?\s*(?:(?:are|were|is|was)\s+)?(?:use[ds]?|at|with|to|on)?\s*"
    r"(?:那|那么)?\s*(?:如果|要是|假如)?\s*(?:利用率)?\s*(?:用到|用了|跑到|提到|提高到|升到|降到|到|是|为)?\s*"
    r"(?P<share>[^\s,，。?？!！呢]{1,8}?)\s*(?:的)?\s*(?:(?:usage|utili[sz]ation|use|of the time|利用率|时间)\s*)?"
    r"(?:的话)?\s*(?:instead|then)?\s*(?:呢|吗|怎么样|如何)?\s*[?？。.!！]*\s*$", I)


def usage_share(text: str) -> float | None:
    """The share of hours busy the text states in a pricing context (0-1], else None."""
    restated = RESTATED.match(text)
    if restated and len(text) <= 40:
        share = _share(restated.group("share"))
        if share is not None:
            return share
    cue = patterns(CUES)
    if not cue["pricing"].search(text):
        return None
    for m in re.finditer(rf"{PERCENT}|{TENTHS}", text, I):
        before, after = text[max(0, m.start() - 24):m.start()], text[m.end():m.end() + 16]
        used = _last(cue["usage_before"], before)
        if used is None and not re.match(rf"\s*(?:{cue['time_after'].pattern})", after, I):
            continue
        if cue["other_resource"].search(before[max(0, used.start() - 6):] if used else before[-8:]):
            continue  # "显存用了40%", "usage discount 40%": not the GPUs' hours
        value = _share(m.group(0))
        if value is not None:
            return value
    for pattern, value in WORD_SHARES:
        for m in pattern.finditer(text):
            if re.match(rf"\s*(?:of\s+)?(?:the\s+)?(?:{cue['time_after'].pattern})", text[m.end():m.end() + 16], I):
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
    if m := re.fullmatch(rf"{PERCENT}", written, I):
        value = parse_number(m.group(1))
        value = value / 100 if value is not None else None
    elif m := re.fullmatch(TENTHS, written):
        value = (parse_number(m.group(1)) or 0) / 10
    else:
        value = next((v for p, v in WORD_SHARES if p.fullmatch(written)), None)
    return value if value is not None and 0 < value <= 1 else None
