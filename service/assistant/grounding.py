"""Numeric grounding: every number in an answer must equal a number in a tool output or a cited chunk.

Equality allows unit conversion (hours/days/years, %, k/M/G/T, GB/GiB) and the
rounding the answer shows. Code blocks (commands quoted verbatim), citation
markers, list numbering and names that contain digits (H100, Llama 3 70B,
ZeRO-3, p5.48xlarge) are not figures and are skipped.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from service.assistant.numbers import MULTIPLIER, quantities
from service.assistant.slots import catalog_names, find_all
from service.catalog import Catalog
from service.render.labels import LABELS

# The renderer's own counts ("… 73 more steps in the tool output") number lines of the work, not figures.
FOLD_COUNTS = re.compile("|".join(re.escape(LABELS[lang]["more_steps"]).replace(r"\{n\}", r"\d+") for lang in LABELS))

FACTORS = (1.0, 100.0, 0.01, 24.0, 1 / 24, 1 / 365, 1 / 8760, 1 / 168, 60.0, 1 / 60, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 1e12, 1e-12,
           2**30 / 1e9, 1e9 / 2**30, 1 / 1024, 1024.0, 1 / 2**20, 2.0**20, 8.0, 1 / 8)
REL_TOL = 0.006

CODE_BLOCK = re.compile(r"```.*?```", re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
MARKERS = re.compile(r"\[\d+\]|^\s{0,3}(?:\d+[.)]|#{1,6})\s", re.M)
# Names with digits, not quantities: model-1.3, 4bit-ish ids, URLs, dates, and the "2:4" structured-sparsity pattern.
IDENTIFIER = re.compile(r"\b2:4\b|[A-Za-z][A-Za-z]*[-_.]\d[\w.\-]*|\b\d+(?:\.\d+)*[a-z]+\d[\w.]*|https?://\S+|\b(?:19|20)\d\d-\d\d-\d\d\b")


def source_numbers(tool_outputs: Iterable[Any], texts: Iterable[str]) -> list[float]:
    values: list[float] = []

    def walk(node: Any) -> None:
        if isinstance(node, bool) or node is None:
            return
        if isinstance(node, (int, float)):
            if math.isfinite(node):
                values.append(float(node))
        elif isinstance(node, str):
            values.extend(numbers_in(node))
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    for output in tool_outputs:
        walk(output)
    for text in texts:
        values.extend(numbers_in(text))
    return values


@lru_cache(maxsize=16_384)
def numbers_in(text: str) -> tuple[float, ...]:
    """The figures of a source text. Kept per text: cited sections and the tools' formula and assumption lines recur
    in turn after turn, and reading them was most of the check's time."""
    return tuple(v for v, _, _ in quantities(_strip(text)))


def _strip(text: str) -> str:
    return IDENTIFIER.sub(" ", text)


LEADING_DIGIT = re.compile(r"\d")


def answer_numbers(answer: str, catalog: Catalog) -> list[tuple[str, float, float]]:
    """(as written, value, half a unit of its last shown digit) for every figure in the answer."""
    text = CODE_BLOCK.sub(" ", answer)
    text = INLINE_CODE.sub(" ", text)
    text = MARKERS.sub(" ", text)
    text = FOLD_COUNTS.sub(" ", text)
    names = catalog_names(catalog)
    for patterns in (names.model, names.gpu):
        for _, start, end in find_all(patterns, text):
            text = text[:start] + " " * (end - start) + text[end:]
    text = IDENTIFIER.sub(lambda m: " " * len(m.group(0)), text)
    out = []
    for value, start, end in quantities(text):
        written = text[start:end].strip()
        if not LEADING_DIGIT.match(written):
            continue  # Chinese numerals in prose ("一次", "两张卡") are words; figures are written in digits
        out.append((written, value, _half_unit(written)))
    return out


WRITTEN_FIGURE = re.compile(r"([\d,]+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?\s*(.*)$")


def _half_unit(written: str) -> float:
    m = WRITTEN_FIGURE.match(written)
    if not m:
        return 0.5  # Chinese numerals are whole numbers
    decimals = len(m.group(2) or "")
    exponent = int(m.group(3) or 0)
    mult = MULTIPLIER.get(m.group(4).strip(), 1.0) if m.group(4) else 1.0
    return 0.5 * 10 ** (exponent - decimals) * mult


def targets(sources: Iterable[float]) -> list[float]:
    """Every source value in every unit the answer may show it in, sorted for bisection."""
    return sorted({s * f for s in {abs(s) for s in sources if s} for f in FACTORS})  # distinct sources first: they repeat


def is_grounded(value: float, half_unit: float, sorted_targets: list[float]) -> bool:
    if value == 0:
        return True
    value = abs(value)
    # |value - t| <= max(REL_TOL*t, half_unit) is satisfied only by t near value: bisect that window.
    low = min(value / (1 + REL_TOL), value - half_unit * 1.0001)
    high = max(value / (1 - REL_TOL), value + half_unit * 1.0001)
    i = bisect.bisect_left(sorted_targets, low)
    while i < len(sorted_targets) and sorted_targets[i] <= high:
        t = sorted_targets[i]
        if abs(value - t) <= max(REL_TOL * t, half_unit * 1.0001):
            return True
        i += 1
    return False


def check(answer: str, catalog: Catalog, tool_outputs: Iterable[Any], cited_texts: Iterable[str]) -> tuple[int, list[str]]:
    """(numbers checked, the ones not found in any tool output or cited chunk)."""
    numbers = answer_numbers(answer, catalog)
    if not numbers:
        return 0, []
    sorted_targets = targets(source_numbers(tool_outputs, cited_texts))
    ungrounded = [written for written, value, half in numbers if not is_grounded(value, half, sorted_targets)]
    return len(numbers), ungrounded
