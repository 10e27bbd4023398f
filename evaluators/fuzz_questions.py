"""Deterministic question generator for the grounding and language fuzz test.

Templates in Chinese and English combine catalog names (GPUs, models) with random token counts,
budgets, user counts, context lengths, GPU counts, prices, utilisation and precisions across the
product's topics. Some items are two turns: the follow-up changes one parameter. Phrasings vary
order, units and include the odd typo. `generate(n, seed)` returns the same list for the same
arguments.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from evaluators import fuzz_en as en
from evaluators import fuzz_zh as zh
from evaluators.fuzz_vocab import R, _typo


@dataclass(frozen=True)
class FuzzItem:
    id: str
    lang: str
    topic: str
    turns: tuple[str, ...]


TEMPLATES: dict[str, tuple[Callable[[R], tuple[str, ...]], Callable[[R], tuple[str, ...]]]] = {
    "fit": (en.en_fit, zh.zh_fit),
    "sizing": (en.en_sizing, zh.zh_sizing),
    "serving": (en.en_serving, zh.zh_serving),
    "compare": (en.en_compare, zh.zh_compare),
    "claim": (en.en_claim, zh.zh_claim),
    "spec": (en.en_spec, zh.zh_spec),
    "rent_buy": (en.en_rent_buy, zh.zh_rent_buy),
    "kv_cache": (en.en_kv, zh.zh_kv),
    "checkpoint": (en.en_checkpoint, zh.zh_checkpoint),
    "diagnostics": (en.en_diag, zh.zh_diag),
    "preflight": (en.en_preflight, zh.zh_preflight),
    "budget": (en.en_budget, zh.zh_budget),
    "time_cost": (en.en_time_cost, zh.zh_time_cost),
    "inference_speed": (en.en_inference_speed, zh.zh_inference_speed),
    "claim_compute": (en.en_claim_compute, zh.zh_claim_compute),
    "cluster": (en.en_cluster, zh.zh_cluster),
    "odd_units": (en.en_odd_units, zh.zh_odd_units),
    "measured": (en.en_measured, zh.zh_measured),
}


def generate(n: int, seed: int = 1) -> list[FuzzItem]:
    """n items, cycling through topics and alternating languages, fully determined by seed."""
    r = random.Random(seed)
    topics = sorted(TEMPLATES)
    items: list[FuzzItem] = []
    for i in range(n):
        topic = topics[i % len(topics)]
        lang = "en" if (i // len(topics)) % 2 == 0 else "zh"
        make = TEMPLATES[topic][0 if lang == "en" else 1]
        turns = tuple(_typo(r, t) if lang == "en" else t for t in make(r))
        items.append(FuzzItem(id=f"fuzz-{seed}-{i:04d}", lang=lang, topic=topic, turns=turns))
    return items
