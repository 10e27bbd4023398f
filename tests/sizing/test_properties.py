"""Property tests over every registered calculator (issue 11).

For random VALID inputs (drawn from each request model's own bounds and literals), a calculator either
returns a result whose every number is finite (so JSON never carries null/NaN/Infinity), or refuses with
InputError naming a field: never any other exception. And results move the right way: time grows with
tokens and shrinks with more GPUs, memory grows with sequence length.
"""

from __future__ import annotations

import json
import math
import typing

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from service.errors import InputError
from service.sizing import all_tools, get_tool
from service.sizing.base import field_range
from service.sizing.guard import non_finite_path
from tests.sizing.payloads import BASE_PAYLOADS

# deterministic, bounded, no timing: a failure reproduces on every run
PROPERTY = settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck), database=None)
GPUS = ["h100-sxm", "a100-80gb-sxm", "a10", "t4", "l40s", "h20", "ascend-910b", "rtx-4090", "b200", "mi300x"]
MODELS = ["llama-3-8b", "llama-3-70b", "qwen-14b", "mixtral-8x7b", "llama-3.1-405b", "deepseek-v3", "bert-base-cased", "qwen2.5-0.5b"]


def _number(lower, upper, integer: bool) -> st.SearchStrategy:
    lo = lower[1] if lower else (1 if integer else 1e-3)
    hi = upper[1] if upper else (10**6 if integer else 1e6)
    if integer:
        lo = lo + 1 if lower and lower[0] == ">" else lo
        hi = hi - 1 if upper and upper[0] == "<" else hi
        # log-spread: small counts are as interesting as huge ones
        return st.one_of(st.integers(int(lo), min(int(hi), int(lo) + 64)), st.integers(int(lo), int(hi)))
    lo = math.nextafter(lo, math.inf) if lower and lower[0] == ">" else lo
    hi = math.nextafter(hi, -math.inf) if upper and upper[0] == "<" else hi
    if lo > 0:  # draw the exponent uniformly so values near both bounds (1e-3 and 1e16) are tried
        return st.floats(math.log10(lo), math.log10(hi)).map(lambda e: min(max(10**e, lo), hi))
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def field_strategy(model, name: str) -> st.SearchStrategy:
    annotation = model.model_fields[name].annotation
    options = [a for a in (annotation, *typing.get_args(annotation)) if a is not type(None)]
    for option in options:
        if typing.get_origin(option) is typing.Literal:
            return st.sampled_from(typing.get_args(option))
    if bool in options:
        return st.booleans()
    if int in options or float in options:
        lower, upper = field_range(model, name)
        return _number(lower, upper, integer=int in options and float not in options)
    if name == "gpu":
        return st.sampled_from(GPUS)
    if name == "model":
        return st.sampled_from(MODELS)
    return st.nothing()


def payloads(tool) -> st.SearchStrategy:
    """The tool's base payload with a random subset of fields replaced by random in-range values."""
    model = tool.request
    names = sorted(n for n in model.model_fields if not field_strategy(model, n).is_empty)
    return st.fixed_dictionaries({}, optional={n: field_strategy(model, n) for n in names}).map(
        lambda changes: {**BASE_PAYLOADS[tool.name], **changes})


def _check(tool, catalog, payload) -> None:
    try:
        request = tool.request.model_validate(payload)
    except ValidationError:
        assume(False)  # cross-field rules (tp x pp layout, mfu with achieved_tflops): not a valid input
    try:
        result = tool(request, catalog)
    except InputError as exc:
        assert exc.problems and all(p.field and p.en and p.zh for p in exc.problems)
        return
    dumped = result.model_dump(mode="json")
    assert non_finite_path(result.model_dump()) is None
    text = json.dumps(dumped, allow_nan=False)  # raises on NaN/Infinity
    assert "null" not in json.dumps({k: v for k, v in dumped.items() if k in _required_numbers(tool)})
    assert text


def _required_numbers(tool) -> set[str]:
    fields = tool.result.model_fields
    return {n for n, f in fields.items() if f.annotation in (int, float)}


@pytest.mark.parametrize("tool", all_tools(), ids=lambda t: t.name)
def test_random_valid_inputs_give_finite_results_or_input_error(tool, catalog) -> None:
    @PROPERTY
    @given(payload=payloads(tool))
    def run(payload):
        _check(tool, catalog, payload)

    run()


TIME = get_tool("training-time")


@PROPERTY
@given(tokens=st.floats(9, 15.9), factor=st.floats(1.01, 100), gpus=st.integers(1, 4096), model=st.sampled_from(MODELS))
def test_training_time_grows_with_tokens(catalog, tokens, factor, gpus, model) -> None:
    base = {"model": model, "gpu": "h100", "gpus": gpus}
    fewer = TIME({**base, "tokens": 10**tokens}, catalog)
    more = TIME({**base, "tokens": min(10**tokens * factor, 1e16)}, catalog)
    assert more.hours.typical >= fewer.hours.typical and more.gpu_hours.typical >= fewer.gpu_hours.typical


@PROPERTY
@given(gpus=st.integers(1, 8192), extra=st.integers(1, 8192), model=st.sampled_from(MODELS))
def test_training_time_shrinks_with_more_gpus(catalog, gpus, extra, model) -> None:
    base = {"model": model, "gpu": "a100", "tokens": 1e12}
    few = TIME({**base, "gpus": gpus}, catalog)
    many = TIME({**base, "gpus": gpus + extra}, catalog)
    assert many.hours.typical <= few.hours.typical and many.hours.low <= few.hours.low and many.hours.high <= few.hours.high


@PROPERTY
@given(hours=st.floats(0.01, 8760), factor=st.floats(1.01, 10), model=st.sampled_from(MODELS))
def test_deadline_gpus_and_budget_tokens_move_with_time(catalog, hours, factor, model) -> None:
    deadline, budget = get_tool("gpus-for-deadline"), get_tool("tokens-in-budget")
    tight = deadline({"model": model, "gpu": "h100", "tokens": 1e12, "deadline_hours": hours}, catalog)
    loose = deadline({"model": model, "gpu": "h100", "tokens": 1e12, "deadline_hours": hours * factor}, catalog)
    assert loose.gpus.typical <= tight.gpus.typical
    short = budget({"model": model, "gpu": "h100", "gpus": 8, "hours": hours}, catalog)
    long = budget({"model": model, "gpu": "h100", "gpus": 8, "hours": hours * factor}, catalog)
    assert long.tokens.typical >= short.tokens.typical


@PROPERTY
@given(seq=st.integers(16, 65536), factor=st.integers(2, 8), model=st.sampled_from(MODELS),
       method=st.sampled_from(["full", "lora", "qlora"]), recompute=st.sampled_from(["none", "selective", "full"]))
def test_training_memory_grows_with_sequence_length(catalog, seq, factor, model, method, recompute) -> None:
    memory = get_tool("training-memory")
    base = {"model": model, "method": method, "recompute": recompute, "task": "fine-tune"}
    short = memory({**base, "seq_len": seq}, catalog)
    long = memory({**base, "seq_len": seq * factor}, catalog)
    assert long.per_gpu.activations_gib >= short.per_gpu.activations_gib and long.per_gpu.total_gib >= short.per_gpu.total_gib
