"""Quality gates: every reported metric has a threshold in evaluators/gates.yaml.

The file has one section per run profile (`full`, `fast`): a fast run measures subsets, so its
figures (and thresholds) differ from a full run's. A threshold is either a number (the metric
must be at least that) or `{min: x}` / `{max: y}` (counts such as forbidden phrases use max).
Thresholds are today's measured values rounded down a little; in normal work they are only raised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

GATES = Path(__file__).resolve().parent / "gates.yaml"
PROFILES = ("full", "fast")


@dataclass(frozen=True)
class Gate:
    metric: str
    min: float | None = None
    max: float | None = None

    def describe(self) -> str:
        parts = ([f">= {self.min:g}"] if self.min is not None else []) + ([f"<= {self.max:g}"] if self.max is not None else [])
        return " and ".join(parts)


@dataclass(frozen=True)
class Verdict:
    gate: Gate
    value: float | None  # None: the metric was not measured in this run

    @property
    def measured(self) -> bool:
        return self.value is not None

    @property
    def passed(self) -> bool:
        if self.value is None:
            return True  # an evaluator that is not there (yet) cannot fail the run; the report lists it as not measured
        if not math.isfinite(self.value):
            return False
        return (self.gate.min is None or self.value >= self.gate.min) and (self.gate.max is None or self.value <= self.gate.max)


def load_gates(profile: str, path: Path = GATES) -> list[Gate]:
    """The gates of one profile; a malformed entry raises ValueError naming file, profile and metric."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, not {profile!r}")
    raw: Any = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    section = raw.get(profile) if isinstance(raw, dict) else None
    if not isinstance(section, dict):
        raise ValueError(f"{path.name}: no '{profile}' section")
    gates = []
    for metric, rule in section.items():
        where = f"{path.name}: {profile}.{metric}"
        if isinstance(rule, (int, float)) and not isinstance(rule, bool):
            gates.append(Gate(str(metric), min=float(rule)))
            continue
        if not isinstance(rule, dict) or not rule or set(rule) - {"min", "max"}:
            raise ValueError(f"{where}: a threshold is a number or {{min: x}} / {{max: y}}")
        try:
            gates.append(Gate(str(metric), min=_num(rule.get("min")), max=_num(rule.get("max"))))
        except (TypeError, ValueError):
            raise ValueError(f"{where}: min and max must be numbers") from None
    return gates


def _num(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError("not a number")
    return float(value)


def apply_gates(metrics: dict[str, float], gates: list[Gate]) -> list[Verdict]:
    return [Verdict(gate, None if metrics.get(gate.metric) is None else float(metrics[gate.metric])) for gate in gates]


def failed(verdicts: list[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if not v.passed]


def ungated(metrics: dict[str, float], gates: list[Gate]) -> list[str]:
    """Metrics the run produced that no gate covers (a new metric needs its threshold)."""
    known = {g.metric for g in gates}
    return sorted(m for m in metrics if m not in known)


# -- proposing thresholds from a run -------------------------------------------------------------

# Invariants: held exactly, never "rounded down a little".
EXACT = ("numeric_grounding", "citation_validity", "language_match", "sizing.pass_rate")
# Lower is better: gated with max.
UPPER = ("forbidden_violations", "in_scope_refusals", "unneeded_clarifications", "median_factor")


# Below the measured value, after flooring to 2 decimals: the fast run's samples are small (one turn of
# 39 moves a rate by 0.026), so its margin is wider.
MARGIN = {"full": 0.01, "fast": 0.03}


def suggest(metrics: dict[str, float], profile: str = "full") -> dict[str, Any]:
    """Thresholds from measured values: rates floored to 2 decimals less the profile's margin, invariants
    exact, lower-is-better figures capped a little above. The run is deterministic; the margin absorbs
    small, reviewed changes elsewhere."""
    out: dict[str, Any] = {}
    for name, value in sorted(metrics.items()):
        if any(name.endswith(u) for u in UPPER):
            out[name] = {"max": math.ceil(value * 100) / 100 + 0.05 if name.endswith("median_factor") else value}
        elif any(name.endswith(e) for e in EXACT) and value >= 1.0:
            out[name] = 1.0
        else:
            out[name] = max(round(math.floor(value * 100) / 100 - MARGIN[profile], 2), 0.0)
    return out


if __name__ == "__main__":
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m evaluators.gates", description="Propose a gates section from a results.json.")
    parser.add_argument("results", type=Path)
    args = parser.parse_args()
    data = json.loads(args.results.read_text(encoding="utf-8"))
    print(yaml.safe_dump({data["profile"]: suggest(data["metrics"], data["profile"])}, sort_keys=False, allow_unicode=True), end="")
