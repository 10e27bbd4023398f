"""Issue 7's targets, asserted: the headline (the newest blind set) met them on its first run, still meets them
on the code under test, and the README's Evaluation table reports every blind set's first run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evaluators.blind_eval import HEADLINE_TARGETS, evaluate, headline, missed_targets, sets
from evaluators.gates import apply_gates, failed, load_gates

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "evaluators" / "results"
README = ROOT / "README.md"


def _first_run(path: Path) -> dict:
    records = json.loads((RESULTS / f"{path.stem}.first_run.json").read_text(encoding="utf-8"))
    return records[0] if isinstance(records, list) else records


def _set_number(path: Path) -> int:
    return int(re.sub(r"\D", "", path.stem))


@pytest.fixture(scope="module")
def headline_now(tmp_path_factory, indexed_data_dir: Path) -> dict:
    data_dir = tmp_path_factory.mktemp("headline") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    return evaluate(headline(), data_dir)


def test_sets_are_ordered_by_number_so_the_headline_is_the_newest() -> None:
    numbers = [_set_number(p) for p in sets()]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert _set_number(headline()) == max(numbers)


def test_missed_targets_names_each_metric_against_its_bound() -> None:
    met = {
        "expert_pass_rate": 0.9,
        "intent_accuracy": 0.95,
        "in_scope_refusals": 0,
        "unneeded_clarifications": 0,
        "numeric_grounding": 1.0,
        "citation_validity": 1.0,
        "language_match": 1.0,
    }
    assert missed_targets(met) == []
    missed = missed_targets({**met, "expert_pass_rate": 0.84, "unneeded_clarifications": 1})
    assert missed == ["expert_pass_rate 0.84 (>= 0.85)", "unneeded_clarifications 1 (<= 0)"]


def test_every_blind_set_has_its_first_run_recorded() -> None:
    for path in sets():
        record = _first_run(path)
        assert record["set"] == path.stem
        assert set(HEADLINE_TARGETS) <= set(record["metrics"])


def test_the_headline_met_the_targets_on_its_first_run() -> None:
    metrics = _first_run(headline())["metrics"]
    assert missed_targets(metrics) == [], metrics


def test_the_headline_still_meets_the_targets_and_its_gates(headline_now: dict) -> None:
    metrics = headline_now["metrics"]
    assert missed_targets(metrics) == [], headline_now["failures"][:10]
    gates = [g for g in load_gates("full") if g.metric.startswith(f"blind.{headline().stem}.")]
    assert gates, "the headline set has no gates in evaluators/gates.yaml"
    prefixed = {f"blind.{headline().stem}.{k}": v for k, v in metrics.items()}
    assert failed(apply_gates(prefixed, gates)) == []


def test_the_readme_table_reports_every_first_run_and_leads_with_the_headline() -> None:
    text = README.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "blind set" in line]
    assert rows, "no Evaluation table in the README"
    first_runs = {int(m.group(1)): line for line in rows if (m := re.search(r"blind set (\d+)\*{0,2} \((?:headline, )?first run", line))}
    assert set(first_runs) == {_set_number(p) for p in sets()}
    top = rows[0]
    assert f"blind set {_set_number(headline())} (headline, first run)" in top
    metrics = _first_run(headline())["metrics"]
    cells = [c.strip(" *") for c in top.strip("|").split("|")]
    assert cells[2] == f"{metrics['expert_pass_rate']:.3f}" and cells[3] == f"{metrics['intent_accuracy']:.3f}"
    assert cells[4] == str(metrics["in_scope_refusals"]) and cells[5] == str(metrics["unneeded_clarifications"])
