"""The Finding every claim check returns and the readers all checks share (cue words, the GPUs, precision and factor a
claim names), kept apart from claim_checks.py so check modules can use them without importing the dispatcher."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from service.assistant import cues
from service.assistant.slots import Slots

FACTOR = re.compile(r"(?<![A-Za-z\d.])(\d+(?:\.\d+)?|[两二三四五六七八九十])\s*(?:x|×|倍)(?![a-z])", re.I)  # not "MI300X"
CN_FACTOR = {"两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def cue(name: str, text: str) -> bool:
    return cues.matches("claim_cues.yaml", name, text)


@dataclass
class Finding:
    kind: str
    verdict: str
    lead: str
    points: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    results: list = field(default_factory=list)  # sizing results, first one shown as a table
    topics: list[str] = field(default_factory=lambda: ["claims"])
    query: str | None = None  # what to retrieve from the knowledge base, when not the claim's own words
    table: object = None  # a TableBlock shown after the points


def _factor(written: str) -> float:
    return float(CN_FACTOR.get(written, 0) or written)


def _gpus(slots: Slots) -> list[str]:
    found = list(slots.compare_gpus or [])
    if slots.gpu and slots.gpu not in found:
        found.insert(0, slots.gpu)
    return found


PRECISION_WORD = re.compile(r"\b(fp8|bf16|fp16|tf32|int8|fp4)\b", re.I)
PRECISION_ANYWHERE = re.compile(r"(fp8|bf16|fp16|int8)", re.I)


def _precision(text: str) -> str | None:
    match = PRECISION_WORD.search(text) or PRECISION_ANYWHERE.search(text)
    return match.group(1).lower() if match else None
