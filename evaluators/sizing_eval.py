"""Sizing tools against published figures: every case in datasets/sizing_cases.jsonl run through the REAL tools.

    python -m evaluators.sizing_eval [--json reports/sizing_eval.json] [--only ID ...] [--failures]

A case is one published (or derived, or seed-article) figure with its source, the tool and
request that should reproduce it, and how we judge the answer:

- ``check``: which number of the result to compare (``gpu_hours``, ``days``, ``flops``,
  ``mfu_band``, ``kv_per_token``, ``model_states``, ``fit``, ...; see ``CHECKS``);
- ``tolerance``: a number t means |estimate/published − 1| <= t (exact arithmetic);
  ``[lo, hi]`` means lo <= estimate/published <= hi (``hi`` may be null); null for verdicts;
- ``band_covers``: the published figure must also lie inside the tool's low–high band;
- ``claim`` (seed-article cases): a claimed figure the tool must refute, i.e. the claim lies
  outside the band and at least ``min_factor`` times away from the typical estimate;
- ``expect_fit`` (``check == "fit"``): the accepted memory verdicts.

Targets (issue "sizing core"): published training runs within 0.5x-2x at typical MFU and, where
band_covers is true, inside the low–high band; exact arithmetic within 3%.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evaluators.jsonl import read_jsonl
from service.catalog import Catalog, default_catalog
from service.sizing import get_tool

DATASET = Path(__file__).resolve().parent / "datasets" / "sizing_cases.jsonl"
KINDS = ("reported", "reported_secondhand", "derived", "seed_claim", "catalog_snapshot")
BYTES_PER = {"bytes": 1.0, "bytes/token": 1.0, "MiB": 2.0**20, "MB": 1e6, "GB": 1e9, "GiB": 2.0**30, "TB": 1e12}
GIB = 2.0**30


@dataclass(frozen=True)
class Measured:
    """What the tool said: a value (number or verdict), an optional low–high band, a display string."""

    value: float | str
    low: float | None = None
    high: float | None = None
    shown: str = ""


@dataclass
class Outcome:
    id: str
    kind: str
    check: str
    tool: str
    unit: str
    published: float | str
    estimate: float | str
    shown: str
    ratio: float | None
    low: float | None
    high: float | None
    within: bool
    covered: bool | None
    claim_refuted: bool | None
    passed: bool
    why: list[str] = field(default_factory=list)


# -- extracting the checked number from a result -----------------------------------------------

def _run(tool: str, payload: dict, catalog: Catalog):
    return get_tool(tool)(payload, catalog)


def _band(band, scale: float = 1.0) -> Measured:
    return Measured(band.typical * scale, band.low * scale, band.high * scale)


def _scaled_band(typical: float, mfu) -> Measured:
    """A throughput at typical MFU, with its band from the MFU band (throughput ∝ MFU)."""
    return Measured(typical, typical * mfu.low / mfu.typical, typical * mfu.high / mfu.typical)


def _bytes_in(unit: str) -> float:
    try:
        return BYTES_PER[unit]
    except KeyError:
        raise ValueError(f"unit {unit!r} is not a memory unit ({', '.join(BYTES_PER)})") from None


def _gpu_hours(case, cat):
    return _band(_run(case["tool"], case["payload"], cat).gpu_hours)


def _days(case, cat):
    return _band(_run(case["tool"], case["payload"], cat).days)


def _iteration_seconds(case, cat):
    r = _run(case["tool"], case["payload"], cat)
    return Measured(r.hours.typical * 3600)


def _flops(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).flops_6nd)


def _mfu_band(case, cat):
    return _band(_run(case["tool"], case["payload"], cat).mfu)


def _mfu_ceiling(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).mfu.high)


def _throughput_tflops(case, cat):
    r = _run(case["tool"], case["payload"], cat)
    return _band(r.mfu, r.peak_tflops_per_gpu)


def _tokens_per_gpu_second(case, cat):
    r = _run(case["tool"], case["payload"], cat)
    return _scaled_band(r.tokens_per_second / r.gpus, r.mfu)


def _samples_per_second(case, cat):
    r = _run(case["tool"], case["payload"], cat)
    return _scaled_band(r.samples_per_second, r.mfu)


def _speedup(case, cat):
    """GPU-hours per token of the baseline over the candidate's, at typical MFU."""
    base = _run(case["tool"], case["payload"]["baseline"], cat)
    cand = _run(case["tool"], case["payload"]["candidate"], cat)
    return Measured((base.gpu_hours.typical / base.tokens) / (cand.gpu_hours.typical / cand.tokens))


def _goodput(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).goodput)


def _gpus(case, cat):
    return _band(_run(case["tool"], case["payload"], cat).gpus)


def _tokens(case, cat):
    return _band(_run(case["tool"], case["payload"], cat).tokens)


def _kv_per_token(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).kv_bytes_per_token / _bytes_in(case["expected"]["unit"]))


def _param_memory(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).weights_gib * GIB / _bytes_in(case["expected"]["unit"]))


def _model_states(case, cat):
    p = _run(case["tool"], case["payload"], cat).per_gpu
    return Measured((p.weights_gib + p.gradients_gib + p.optimizer_gib) * GIB / _bytes_in(case["expected"]["unit"]))


def _model_states_total(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).model_states_total_gib * GIB / _bytes_in(case["expected"]["unit"]))


def _fit(case, cat):
    r = _run(case["tool"], case["payload"], cat)
    return Measured(r.fit, shown=f"{r.fit} ({r.per_gpu.total_gib:g} of {r.gpu_memory_gib:g} GiB)")


def _checkpoint_size(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).size_gb * 1e9 / _bytes_in(case["expected"]["unit"]))


def _read_rate(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).read_mb_per_s)


def _link_bandwidth(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).link_gbps_per_direction)


def _price(case, cat):
    cheapest = _run(case["tool"], case["payload"], cat).cheapest
    if cheapest is None:
        raise ValueError("the cost tool found no instance")
    return Measured(cheapest.price.price_per_hour)


def _allreduce_slowdown(case, cat):
    return Measured(_run(case["tool"], case["payload"], cat).slowdown_from_half_us)


def _decode_tps(case, cat):
    band = _run(case["tool"], case["payload"], cat).decode_tokens_per_second
    if band is None:
        raise ValueError("no decode speed: give a gpu")
    return _band(band)


CHECKS: dict[str, Callable[[dict, Catalog], Measured]] = {
    "gpu_hours": _gpu_hours,
    "days": _days,
    "iteration_seconds": _iteration_seconds,
    "flops": _flops,
    "mfu_band": _mfu_band,
    "mfu_ceiling": _mfu_ceiling,
    "throughput_tflops": _throughput_tflops,
    "tokens_per_gpu_second": _tokens_per_gpu_second,
    "samples_per_second": _samples_per_second,
    "speedup": _speedup,
    "goodput": _goodput,
    "gpus": _gpus,
    "tokens": _tokens,
    "kv_per_token": _kv_per_token,
    "param_memory": _param_memory,
    "model_states": _model_states,
    "model_states_total": _model_states_total,
    "fit": _fit,
    "checkpoint_size": _checkpoint_size,
    "read_rate": _read_rate,
    "link_bandwidth": _link_bandwidth,
    "price": _price,
    "allreduce_slowdown": _allreduce_slowdown,
    "decode_tps": _decode_tps,
}


# -- judging ------------------------------------------------------------------------------------

def within_tolerance(ratio: float, tolerance: float | list | None) -> bool:
    if tolerance is None:
        raise ValueError("a numeric check needs a tolerance")
    if isinstance(tolerance, (int, float)):
        return abs(ratio - 1.0) <= tolerance
    lo, hi = tolerance
    return (lo is None or ratio >= lo) and (hi is None or ratio <= hi)


def _inside(value: float, low: float, high: float) -> bool:
    slack = 1e-9 * max(abs(low), abs(high))  # the tools round to 4 significant digits
    return low - slack <= value <= high + slack


def evaluate_case(case: dict, catalog: Catalog) -> Outcome:
    check = case["check"]
    measured = CHECKS[check](case, catalog)
    published = case["expected"]["value"]
    why: list[str] = []
    ratio = low = high = None
    covered = refuted = None
    if check == "fit":
        accepted = case["expect_fit"]
        within = measured.value in accepted
        if not within:
            why.append(f"verdict {measured.value!r} not in {accepted}")
    else:
        value = float(measured.value)
        if not math.isfinite(value):
            raise ValueError(f"{case['id']}: the tool returned a non-finite {check}")
        ratio = value / float(published)
        within = within_tolerance(ratio, case["tolerance"])
        if not within:
            why.append(f"ratio {ratio:.3g} outside tolerance {case['tolerance']}")
        low, high = measured.low, measured.high
        if case.get("band_covers"):
            covered = low is not None and high is not None and _inside(float(published), low, high)
            if not covered:
                why.append("published figure outside the low–high band" if low is not None else "no band to cover the published figure")
        claim = case.get("claim")
        if claim:
            claimed = float(claim["value"])
            outside = low is None or high is None or not _inside(claimed, low, high)
            factor = max(value / claimed, claimed / value)
            refuted = outside and factor >= claim.get("min_factor", 1.0)
            if not refuted:
                why.append(f"claim {claimed:g} {claim['unit']} not refuted (factor {factor:.2g})")
    covered_ok = covered is not False
    refuted_ok = refuted is not False
    passed = within and covered_ok and refuted_ok
    shown = measured.shown or _num(measured.value)
    return Outcome(id=case["id"], kind=case["kind"], check=check, tool=case["tool"], unit=case["expected"]["unit"], published=published,
                   estimate=measured.value, shown=shown, ratio=ratio, low=low, high=high, within=within, covered=covered,
                   claim_refuted=refuted, passed=passed, why=why)


# -- loading ------------------------------------------------------------------------------------

REQUIRED = ("id", "kind", "question", "inputs", "expected", "source", "tool", "payload", "check", "tolerance", "band_covers")


def load_cases(path: Path = DATASET) -> list[dict]:
    cases: list[dict] = []
    seen: set[str] = set()
    for where, case in read_jsonl(path):
        missing = [k for k in REQUIRED if k not in case]
        if missing:
            raise ValueError(f"{where}: missing {', '.join(missing)}")
        if case["id"] in seen:
            raise ValueError(f"{where}: duplicate id {case['id']!r}")
        if case["check"] not in CHECKS:
            raise ValueError(f"{where}: unknown check {case['check']!r}")
        if case["kind"] not in KINDS:
            raise ValueError(f"{where}: unknown kind {case['kind']!r}")
        if not str(case["source"]).strip():
            raise ValueError(f"{where}: a case needs its source")
        if case["check"] == "fit" and not case.get("expect_fit"):
            raise ValueError(f"{where}: a fit check needs expect_fit")
        seen.add(case["id"])
        cases.append(case)
    return cases


def evaluate(cases: Iterable[dict] | None = None, catalog: Catalog | None = None) -> list[Outcome]:
    catalog = catalog or default_catalog()
    return [evaluate_case(c, catalog) for c in (load_cases() if cases is None else cases)]


# -- reporting ----------------------------------------------------------------------------------

def _num(x: Any) -> str:
    if isinstance(x, str):
        return x
    if x is None:
        return ""
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-2:
        return f"{x:.3g}"
    return f"{x:,.4g}"


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    by_kind: dict[str, list[int]] = {}
    for o in outcomes:
        counts = by_kind.setdefault(o.kind, [0, 0])
        counts[0] += o.passed
        counts[1] += 1
    return {"passed": sum(o.passed for o in outcomes), "cases": len(outcomes),
            "by_kind": {k: {"passed": p, "cases": n} for k, (p, n) in sorted(by_kind.items())}}


def print_table(outcomes: list[Outcome], totals: list[Outcome] | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Sizing tools vs published figures", title_justify="left")
    for column in ("case", "check", "estimate", "published", "unit", "ratio", "band", "pass"):
        table.add_column(column, justify="right" if column in ("estimate", "published", "ratio") else "left")
    for o in outcomes:
        band = f"{_num(o.low)}–{_num(o.high)}" if o.low is not None and o.high is not None else ""
        if o.covered is not None:
            band += " ✓" if o.covered else " ✗"
        verdict = "[green]pass[/]" if o.passed else f"[red]FAIL[/] {'; '.join(o.why)}"
        table.add_row(o.id, o.check, o.shown, _num(o.published), o.unit, "" if o.ratio is None else f"{o.ratio:.3f}", band, verdict)
    console = Console(width=200)
    console.print(table)
    s = summary(outcomes if totals is None else totals)
    console.print(f"{s['passed']}/{s['cases']} cases pass; " + ", ".join(f"{k} {v['passed']}/{v['cases']}" for k, v in s["by_kind"].items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluators.sizing_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the outcomes as JSON (e.g. reports/sizing_eval.json)")
    parser.add_argument("--only", nargs="*", help="case ids to run")
    parser.add_argument("--failures", action="store_true", help="show failing cases only")
    args = parser.parse_args(argv)
    cases = load_cases()
    if args.only:
        unknown = set(args.only) - {c["id"] for c in cases}
        if unknown:
            parser.error(f"unknown case ids: {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c["id"] in set(args.only)]
    outcomes = evaluate(cases)
    print_table([o for o in outcomes if not o.passed] if args.failures else outcomes, outcomes)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary(outcomes), "cases": [asdict(o) for o in outcomes]}, indent=2, ensure_ascii=False),
                             encoding="utf-8")
        print(f"wrote {args.json}")
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
