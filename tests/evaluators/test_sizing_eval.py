"""The sizing evaluation: the case set is well-formed and sourced, the real tools meet the issue's targets on
every case, and the evaluator's judging can fail."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from evaluators import sizing_eval
from evaluators.sizing_eval import CHECKS, evaluate, evaluate_case, load_cases
from service.catalog import default_catalog
from service.sizing import all_tools

DEV = Path("/work/shared/reference/sizing_cases.dev.jsonl")
PUBLISHED_RUN_CHECKS = {"gpu_hours", "days"}
EXACT_CHECKS = {"model_states", "model_states_total", "kv_per_token", "param_memory", "flops"}


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return load_cases()


@pytest.fixture(scope="module")
def outcomes(cases):
    return {o.id: o for o in evaluate(cases)}


# --------------------------------------------------------------------------- the data set


def test_cases_are_well_formed_and_sourced(cases) -> None:
    assert len(cases) >= 50
    tools = {t.name for t in all_tools()}
    for case in cases:
        assert case["tool"] in tools and case["check"] in CHECKS, case["id"]
        assert len(case["source"]) > 20 and case["question"].strip(), case["id"]
        assert "value" in case["expected"] and case["expected"]["unit"], case["id"]
        assert isinstance(case["band_covers"], bool)
        if case["check"] == "fit":
            assert case["tolerance"] is None and case["expect_fit"]
        else:
            tol = case["tolerance"]
            assert isinstance(tol, (int, float)) or (isinstance(tol, list) and len(tol) == 2), case["id"]


def test_the_required_cases_are_present(cases) -> None:
    ids = {c["id"] for c in cases}
    assert {"zero-fig1-baseline", "zero-fig1-pos", "zero-fig1-pos-g", "zero-fig1-pos-g-p"} <= ids
    zero = {c["id"]: c for c in cases if c["id"].startswith("zero-fig1")}
    assert all("arxiv.org/abs/1910.02054" in c["source"] and c["expected"]["unit"] == "GB" for c in zero.values())
    assert [zero[f"zero-fig1-{s}"]["expected"]["value"] for s in ("baseline", "pos", "pos-g", "pos-g-p")] == [120.0, 31.4, 16.6, 1.9]
    seed = [c for c in cases if c["kind"] == "seed_claim"]
    for claim in range(1, 7):  # every verdict of sizing-research §D has at least one case
        assert any(f"§D({claim})" in c["source"] for c in seed), claim
    runs = [c for c in cases if c["check"] in PUBLISHED_RUN_CHECKS and c["kind"].startswith("reported")]
    assert len(runs) >= 10


@pytest.mark.skipif(not DEV.exists(), reason="the shared reference cases are not mounted")
def test_copied_facts_match_the_reference_cases(cases) -> None:
    dev = {json.loads(line)["id"]: json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()}
    copied = [c for c in cases if c["id"] in dev]
    assert len(copied) >= 20
    for case in copied:
        ref = dev[case["id"]]
        for key in ("question", "inputs", "source", "kind", "category", "tolerance_note"):
            assert case[key] == ref[key], (case["id"], key)
        assert case["expected"]["text"] == ref["expected"]["text"], case["id"]


def test_loader_rejects_bad_files(tmp_path) -> None:
    good = json.dumps(load_cases()[0], ensure_ascii=False)
    for broken, message in ((good + "\n" + good, "duplicate id"), ("{not json", "not valid JSON"),
                            (good.replace('"check": "gpu_hours"', '"check": "vibes"'), "unknown check"),
                            (json.dumps({"id": "x"}), "missing")):
        path = tmp_path / "cases.jsonl"
        path.write_text(broken, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            load_cases(path)


# --------------------------------------------------------------------------- the targets, on the full case set


def test_every_case_passes(outcomes) -> None:
    failing = {i: o.why for i, o in outcomes.items() if not o.passed}
    assert not failing


def test_published_runs_within_2x_and_inside_the_band(cases, outcomes) -> None:
    runs = [c for c in cases if c["check"] in PUBLISHED_RUN_CHECKS and c["kind"].startswith("reported") and isinstance(c["tolerance"], list)]
    for case in runs:
        o = outcomes[case["id"]]
        ratio = o.estimate / case["expected"]["value"]
        assert 0.5 <= ratio <= 2.0, (case["id"], ratio)
        if case["band_covers"]:
            assert o.low <= case["expected"]["value"] <= o.high, case["id"]
    assert sum(c["band_covers"] for c in runs) >= 6


def test_published_mfu_inside_the_band(cases, outcomes) -> None:
    for case in cases:
        if case["check"] in ("mfu_band", "throughput_tflops", "samples_per_second", "tokens", "gpus", "decode_tps") and case["band_covers"]:
            o = outcomes[case["id"]]
            assert o.low <= case["expected"]["value"] <= o.high, case["id"]


def test_exact_arithmetic_within_3_percent(cases, outcomes) -> None:
    exact = [c for c in cases if c["check"] in EXACT_CHECKS and isinstance(c["tolerance"], (int, float))]
    assert len(exact) >= 15
    for case in exact:
        ratio = outcomes[case["id"]].estimate / case["expected"]["value"]
        assert abs(ratio - 1) <= 0.03, (case["id"], ratio)


def test_seed_claims_are_refuted_where_false(cases, outcomes) -> None:
    claimed = [c for c in cases if c.get("claim")]
    assert {c["id"] for c in claimed} >= {"seed-70b-512h100-days", "seed-qwen14b-samples-512", "seed-rdma-latency"}
    for case in claimed:
        o = outcomes[case["id"]]
        assert o.claim_refuted, case["id"]
        factor = max(o.estimate / case["claim"]["value"], case["claim"]["value"] / o.estimate)
        assert factor >= case["claim"]["min_factor"]


# --------------------------------------------------------------------------- the judge can fail


def _case(cases, case_id):
    return copy.deepcopy(next(c for c in cases if c["id"] == case_id))


def test_a_wrong_published_figure_fails(cases) -> None:
    catalog = default_catalog()
    case = _case(cases, "zero-fig1-pos")
    case["expected"]["value"] = 35.0  # 12% off
    outcome = evaluate_case(case, catalog)
    assert not outcome.passed and not outcome.within
    run = _case(cases, "llama2-70b-pretrain-gpu-hours")
    run["expected"]["value"] *= 3
    assert not evaluate_case(run, catalog).passed


def test_a_figure_outside_the_band_fails_when_it_should_be_covered(cases) -> None:
    catalog = default_catalog()
    case = _case(cases, "llama3-8b-pretrain-gpu-hours")  # 1.3M is above the band's 1.28M
    assert evaluate_case(case, catalog).passed
    case["band_covers"] = True
    outcome = evaluate_case(case, catalog)
    assert outcome.covered is False and not outcome.passed


def test_an_unrefuted_claim_fails(cases) -> None:
    catalog = default_catalog()
    case = _case(cases, "seed-70b-512h100-days")
    case["claim"]["value"] = 380  # inside the band
    outcome = evaluate_case(case, catalog)
    assert outcome.claim_refuted is False and not outcome.passed


def test_a_wrong_fit_verdict_fails(cases) -> None:
    case = _case(cases, "seed-llama3-8b-qlora-t4")
    case["expect_fit"] = ["does_not_fit"]
    assert not evaluate_case(case, default_catalog()).passed


def test_open_ended_tolerance() -> None:
    assert sizing_eval.within_tolerance(5.0, [1.0, None]) and not sizing_eval.within_tolerance(0.9, [1.0, None])
    assert sizing_eval.within_tolerance(1.02, 0.03) and not sizing_eval.within_tolerance(1.04, 0.03)


def test_command_line_writes_json(tmp_path, capsys) -> None:
    out = tmp_path / "reports" / "sizing_eval.json"
    assert sizing_eval.main(["--json", str(out), "--only", "zero-fig1-baseline", "seed-70b-512h100-days"]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["summary"]["passed"] == data["summary"]["cases"] == 2
    assert {c["id"] for c in data["cases"]} == {"zero-fig1-baseline", "seed-70b-512h100-days"}
    printed = capsys.readouterr().out
    assert "zero-fig1-baseline" in printed and "2/2 cases pass" in printed
