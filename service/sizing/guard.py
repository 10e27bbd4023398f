"""The last line of defence around every calculator: a result is finite, or the caller gets a 422.

Field bounds keep inputs physical, but some combinations of in-range values can still
overflow (or underflow into a division by zero). Rather than a 500, or a JSON `null`
where Infinity used to be, the caller learns which input drove the result out of range.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from service.catalog import Catalog
from service.errors import InputError, Problem
from service.i18n import problems_from_errors
from service.sizing.base import SizingRequest, SizingResult, field_range, range_problem

Run = Callable[[SizingRequest, Catalog], SizingResult]


def _all_finite(value: Any) -> bool:
    """Whether every float in a (dumped) result is finite: the common case, checked without building paths."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return True


def non_finite_path(value: Any, path: str = "") -> str | None:
    """The dotted path of the first NaN or infinity in a (dumped) result, or None when all numbers are finite."""
    if not path and _all_finite(value):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "result")
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return None
    for key, item in items:
        found = non_finite_path(item, f"{path}.{key}" if path else str(key))
        if found:
            return found
    return None


def _extremeness(request: SizingRequest, name: str) -> float | None:
    """How close (0 = at a bound, 0.5 = mid-range) a set number sits to its allowed bounds, in log space."""
    value = getattr(request, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    lower, upper = field_range(type(request), name)
    if lower is None or upper is None or lower[1] <= 0 or upper[1] <= lower[1]:
        return None
    span = math.log(upper[1]) - math.log(lower[1])
    position = (math.log(value) - math.log(lower[1])) / span
    return min(position, 1 - position)


def culprit(request: SizingRequest) -> Problem:
    """The user-given number nearest an end of its range: the likeliest cause of an overflow."""
    scored = [(score, name) for name in sorted(request.model_fields_set) if name in type(request).model_fields
              if (score := _extremeness(request, name)) is not None]
    if not scored:
        return Problem("body", "these inputs give a result that is not a finite number; use less extreme values",
                       "这些输入得出的结果不是有限数值；请使用不那么极端的数值")
    name = min(scored)[1]
    ranged = range_problem(type(request), name)
    return Problem(name, f"with this value the result is not a finite number; use a less extreme value ({ranged.en})",
                   f"该取值使计算结果不是有限数值；请使用不那么极端的数值（{ranged.zh}）", ranged.allowed)


def guarded(run: Run) -> Run:
    """`run` that never returns NaN/infinity and never raises an arithmetic error: InputError instead."""
    if getattr(run, "__guarded__", False):
        return run

    def checked(request: SizingRequest, catalog: Catalog) -> SizingResult:
        try:
            result = run(request, catalog)
        except ValidationError as exc:
            # An inner request a calculator built (recommend -> inference) from values that passed the outer
            # schema: still the caller's input, so the same field-named InputError every channel maps to 422.
            raise InputError(problems_from_errors(exc.errors(), strip=())) from None
        except ArithmeticError as exc:
            raise InputError([culprit(request)]) from exc
        except ValueError as exc:
            if "math domain error" not in str(exc):
                raise
            raise InputError([culprit(request)]) from exc
        dumped = result.model_dump() if isinstance(result, BaseModel) else result
        if non_finite_path(dumped) is not None:
            raise InputError([culprit(request)])
        return result

    checked.__guarded__ = True  # type: ignore[attr-defined]
    checked.__wrapped__ = run  # type: ignore[attr-defined]
    return checked
