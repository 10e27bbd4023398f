"""Formatting numbers for answers: three significant figures, units in the answer's language.

Shared by the composer (which writes block text) and the renderers (which format typed
values such as a recommendation's bands), so a figure reads the same wherever it is shown.
The formatting only rounds and converts units, which the grounding check understands.
"""

from __future__ import annotations

import math
from typing import Protocol


class BandLike(Protocol):
    low: float
    typical: float
    high: float


def num(x: float, digits: int = 3) -> str:
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    magnitude = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - magnitude)
    rounded = round(x, decimals)
    if decimals == 0:
        return f"{int(round(rounded)):,}"
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def big(x: float, lang: str) -> str:
    """Large counts: 15T / 1.5 万亿, 4.87M / 487 万."""
    if lang == "zh":
        if abs(x) >= 1e12:
            return f"{num(x / 1e12)} 万亿"
        if abs(x) >= 1e8:
            return f"{num(x / 1e8)} 亿"
        if abs(x) >= 1e4:
            return f"{num(x / 1e4)} 万"
        return num(x)
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(x) >= limit:
            return f"{num(x / limit)}{suffix}"
    return num(x)


def duration(hours: float, lang: str) -> str:
    if hours >= 24 * 2:
        days = hours / 24
        if days >= 700:
            return f"{num(days / 365)} 年" if lang == "zh" else f"{num(days / 365)} years"
        return f"{num(days)} 天" if lang == "zh" else f"{num(days)} days"
    if hours >= 1:
        return f"{num(hours)} 小时" if lang == "zh" else f"{num(hours)} hours"
    return f"{num(hours * 60)} 分钟" if lang == "zh" else f"{num(hours * 60)} minutes"


def duration_band(band: BandLike, lang: str) -> str:
    sep = "～" if lang == "zh" else "–"
    return f"{duration(band.typical, lang)}（{duration(band.low, lang)}{sep}{duration(band.high, lang)}）" if lang == "zh" \
        else f"{duration(band.typical, lang)} ({duration(band.low, lang)}{sep}{duration(band.high, lang)})"


def money(x: float, currency: str) -> str:
    return f"${num(x)}" if currency == "USD" else f"¥{num(x)}"


def money_band(band: BandLike, currency: str, lang: str) -> str:
    sep = "～" if lang == "zh" else "–"
    inner = f"{money(band.low, currency)}{sep}{money(band.high, currency)}"
    return f"{money(band.typical, currency)}（{inner}）" if lang == "zh" else f"{money(band.typical, currency)} ({inner})"


def memory_bandwidth(gbps: float, memory_type: str | None = None) -> str:
    """"3,350 GB/s (≈ 3.35 TB/s, HBM3)": the catalog's GB/s and the TB/s datasheets print for HBM parts."""
    extra = [f"≈ {num(gbps / 1000)} TB/s"] if gbps >= 1000 else []
    extra += [memory_type] if memory_type else []
    return f"{num(gbps)} GB/s" + (f" ({', '.join(extra)})" if extra else "")


def pct(x: float) -> str:
    return f"{num(x * 100, 2)}%"


def gib(x: float) -> str:
    return f"{num(x)} GiB"


def pick(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


def link_name(name: str, lang: str) -> str:
    """A GPU link's catalog name for the answer's language: a Chinese answer drops the English gloss
    ("NVLink bridge (3rd gen, pairs of cards)" -> "NVLink bridge"); product names stay as they are."""
    return name.split(" (")[0] if lang == "zh" else name
