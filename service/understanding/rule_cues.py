"""The rule cascade's cue vocabulary (service.assistant.understand), read from data/<lang>/rule_cues.yaml.

Each cue is a list of regex alternatives per language; the loader joins both languages'
alternatives into ONE pattern per cue, compiled with re.IGNORECASE, so a mixed question
("训练时GPU utilization一直50%左右") is matched by either language's words. The sizing asks are
tried in the order they are listed (the first that matches names the ask), and both files list them
in the same order.

This module imports nothing from the pipeline: service.understanding imports
service.assistant.understand, which reads its cues from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from service import budget, yaml_files

DATA_DIR = Path(__file__).parent / "data"
LANGUAGES = ("en", "zh")
FILE_NAME = "rule_cues.yaml"
ASK_ORDER_KEY = "asks"
CUE_KEYS = (
    "domain",
    "injection",
    "smalltalk",
    "claim",
    "strong_claim",
    "preflight",
    "cloud",
    "compare",
    "recommend",
    "how_many",
    "memory_ask",
    "diag",
    "symptom",
    "definition",
    "task_words",
    "faq_how_to",
)
FLAGS = re.IGNORECASE  # every cue has always been case-insensitive


@dataclass(frozen=True)
class RuleCues:
    patterns: dict[str, re.Pattern[str]]  # cue key -> one pattern joined from both languages
    asks: tuple[tuple[str, re.Pattern[str]], ...]  # (ask name, pattern), in the order they are tried

    def __getitem__(self, key: str) -> re.Pattern[str]:
        return self.patterns[key]


def read_alternatives(data_dir: Path = DATA_DIR) -> dict[str, dict]:
    """Each language's file as written: {lang: {cue: [alternative, ...], "asks": {name: [alternative, ...]}}}."""
    data = {}
    for lang in LANGUAGES:
        path = data_dir / lang / FILE_NAME
        loaded = yaml_files.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
        data[lang] = loaded or {}
    return data


def build_rule_cues(data_dir: Path = DATA_DIR) -> RuleCues:
    """Read and compile the cues; a file naming an unknown cue, or holding a bad pattern, is refused (ValueError)."""
    data = read_alternatives(data_dir)
    for lang, cues in data.items():
        unknown = set(cues) - set(CUE_KEYS) - {ASK_ORDER_KEY}
        if unknown:
            raise ValueError(f"{data_dir / lang / FILE_NAME}: unknown cue(s) {sorted(unknown)}; known: {', '.join(CUE_KEYS)}, {ASK_ORDER_KEY}")
    patterns = {key: _join(key, [cues.get(key) for cues in data.values()]) for key in CUE_KEYS}
    orders = [list(cues.get(ASK_ORDER_KEY) or {}) for cues in data.values() if cues.get(ASK_ORDER_KEY)]
    if any(order != orders[0] for order in orders):
        # The first ask that matches wins, so the order is behaviour: one order for both languages.
        raise ValueError(f"{ASK_ORDER_KEY}: the languages list the asks in different orders: {orders}")
    order = orders[0] if orders else []
    asks = tuple((name, _join(f"{ASK_ORDER_KEY}.{name}", [(cues.get(ASK_ORDER_KEY) or {}).get(name) for cues in data.values()])) for name in order)
    return RuleCues(patterns, asks)


@budget.loader
def load_rule_cues(data_dir: Path = DATA_DIR) -> RuleCues:
    """The cues, read once per data directory."""
    return build_rule_cues(data_dir)


def _join(key: str, per_language: list[list[str] | None]) -> re.Pattern[str]:
    alternatives = [a for alts in per_language for a in (alts or [])]
    if not alternatives:
        raise ValueError(f"cue {key!r} has no alternatives in any language")
    for alternative in alternatives:
        if not isinstance(alternative, str) or not alternative.strip():
            raise ValueError(f"cue {key!r}: an alternative must be a non-empty string, got {alternative!r}")
        try:
            re.compile(alternative, FLAGS)
        except re.error as exc:
            raise ValueError(f"cue {key!r}: bad pattern {alternative!r}: {exc}") from exc
    # Each alternative is grouped so that one language's `|` or anchors cannot leak into another's.
    return re.compile("|".join(f"(?:{a})" for a in dict.fromkeys(alternatives)), FLAGS)
