"""The finite-result guard every registered calculator runs behind (issue 11: 500s and nulls from tiny floats)."""

from __future__ import annotations

import pytest

from service.errors import InputError
from service.sizing import SizingTool, get_tool
from service.sizing.guard import culprit, guarded, non_finite_path


def test_non_finite_path_finds_nested_infinities_and_nans() -> None:
    assert non_finite_path({"a": 1.0, "b": [2.0, {"c": 3}]}) is None
    assert non_finite_path({"a": 1.0, "b": [2.0, {"c": float("inf")}]}) == "b.1.c"
    assert non_finite_path([float("nan")]) == "0"


def _tool_returning(value_or_exc):
    real = get_tool("checkpoint")

    def run(request, catalog):
        if isinstance(value_or_exc, BaseException):
            raise value_or_exc
        result = real.run(request, catalog)
        return result.model_copy(update={"size_gb": value_or_exc})

    return SizingTool("checkpoint-probe", real.request, real.result, run, "probe", "探针")


@pytest.mark.parametrize("outcome", [float("inf"), float("nan"), ZeroDivisionError("float division by zero"),
                                     OverflowError("int too large"), ValueError("math domain error")])
def test_an_overflowing_calculation_is_an_input_error_naming_the_extreme_input(catalog, outcome) -> None:
    tool = _tool_returning(outcome)
    with pytest.raises(InputError) as info:
        tool({"params_b": 70, "write_gbps": 0.001, "gpus": 8}, catalog)
    problem = info.value.problems[0]
    # write_gbps sits at the very bottom of its range: the likeliest cause, with the range in both languages
    assert problem.field == "write_gbps" and problem.allowed == ">= 0.001 and <= 100000"
    assert "finite" in problem.en and "有限" in problem.zh


def test_other_errors_are_not_swallowed(catalog) -> None:
    with pytest.raises(ValueError, match="something else"):
        _tool_returning(ValueError("something else"))({"params_b": 70}, catalog)


def test_guard_is_applied_once_and_culprit_falls_back_to_body(catalog) -> None:
    tool = get_tool("cost")
    assert guarded(tool.run) is tool.run
    request = get_tool("break-even").request.model_validate({"gpu": "h100"})
    assert culprit(request).field == "body"
