"""'Show the work': every result carries its inputs with provenance, formula steps, sources and bilingual notes."""

from __future__ import annotations

import math
import re

import pytest

from service.sizing import all_tools, get_tool
from service.sizing.work import Ledger, NullLedger, sig
from tests.sizing.payloads import BASE_PAYLOADS

CJK = re.compile(r"[\u4e00-\u9fff]")
TOOLS = [t.name for t in all_tools()]


def result(catalog, name, **overrides):
    return get_tool(name)({**BASE_PAYLOADS[name], **overrides}, catalog)


@pytest.mark.parametrize("name", TOOLS)
def test_every_result_has_steps_and_sources(catalog, name) -> None:
    work = result(catalog, name).work
    assert work.steps, "no formula steps"
    assert work.sources, "no source"


@pytest.mark.parametrize("name", TOOLS)
def test_steps_sources_and_notes_are_well_formed(catalog, name) -> None:
    work = result(catalog, name).work
    for step in work.steps:
        assert step.name and step.formula and math.isfinite(step.value)
    for source in work.sources:
        assert source.title and source.url.startswith(("https://", "http://"))
    for note in (*work.assumptions, *work.warnings):
        assert note.code and note.en and CJK.search(note.zh), note.code


@pytest.mark.parametrize("name", TOOLS)
def test_provenance_of_inputs(catalog, name) -> None:
    payload = BASE_PAYLOADS[name]
    inputs = {i.name: i for i in result(catalog, name).work.inputs}
    for key in payload:
        if key not in inputs:
            continue
        expected = "catalog" if key == "model" else "user"  # a model name is resolved to its catalog entry
        assert inputs[key].provenance == expected, key
    for item in inputs.values():
        if item.provenance == "user":
            assert item.name in payload, f"{item.name} marked 'user' but not given"
        if item.provenance in ("catalog", "default", "derived") and item.name in payload and item.name != "model":
            pytest.fail(f"{item.name} was given but recorded as {item.provenance}")
        if item.provenance == "catalog":
            assert item.source, f"catalog input {item.name} without its entry"


def test_given_gpu_is_recorded_as_user_input(catalog) -> None:
    for name in ("training-memory", "inference", "training-time", "allreduce", "break-even"):
        inputs = {i.name: i for i in result(catalog, name).work.inputs}
        assert inputs["gpu"].provenance == "user", name


def test_catalog_figures_and_defaults(catalog) -> None:
    timing = {i.name: i for i in result(catalog, "training-time").work.inputs}
    assert timing["peak_tflops"].provenance == "catalog" and timing["peak_tflops"].value == 989.5
    assert timing["params_b"].provenance == "catalog"
    assert timing["precision"].provenance == "default" and timing["precision"].source
    assert timing["mfu"].provenance == "default" and "band" in timing["mfu"].source
    pinned = {i.name: i for i in result(catalog, "training-time", precision="bf16", mfu=0.4).work.inputs}
    assert pinned["precision"].provenance == "user" and pinned["mfu"].provenance == "user"
    memory = {i.name: i for i in result(catalog, "training-memory").work.inputs}
    assert memory["gpu_memory"].provenance == "catalog" and memory["data_parallel"].provenance == "derived"
    # a value the user typed stays 'user' even when it equals the default
    assert memory["seq_len"].provenance == "user"
    assert {i.name: i for i in result(catalog, "training-memory", seq_len=2048).work.inputs}["seq_len"].provenance == "user"
    without = get_tool("training-memory")({"model": "llama-3-8b"}, catalog)
    assert {i.name: i for i in without.work.inputs}["seq_len"].provenance == "default"


@pytest.mark.parametrize("name", TOOLS)
def test_results_round_trip_through_json(catalog, name) -> None:
    r = result(catalog, name)
    assert get_tool(name).result.model_validate_json(r.model_dump_json()) == r


def test_ledger_mechanics() -> None:
    assert sig(123456.789) == 123500 and sig(0.000123456, 3) == 0.000123 and sig(0.0) == 0.0
    assert math.isinf(sig(math.inf))
    ledger = Ledger()
    ledger.pick("a", None, 3, why="because")
    ledger.pick("b", 5, 3)
    ledger.step("x", "a + b", 8.0)
    ledger.warn("w", "careful", "小心", "critical")
    ledger.warn("w", "again", "再次")  # the first note with a code wins
    ledger.cite("T", "https://example.org")
    ledger.cite("T again", "https://example.org")
    work = ledger.work()
    assert [(i.name, i.provenance) for i in work.inputs] == [("a", "default"), ("b", "user")]
    assert len(work.warnings) == 1 and work.warnings[0].severity == "critical" and len(work.sources) == 1
    null = NullLedger()
    assert null.step("x", "f", 2.0) == 2.0 and null.given("a", 1) == 1
    assert null.work().inputs == [] and null.work().steps == []
