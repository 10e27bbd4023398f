"""Request/response base classes shared by every calculator."""

from __future__ import annotations

from typing import Any, Literal

import annotated_types
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from service.i18n import BilingualValueError
from service.sizing.work import Work

TrainPrecision = Literal["fp32", "fp16", "bf16", "fp8"]
Task = Literal["pretrain", "fine-tune"]
Method = Literal["full", "lora", "qlora"]

_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


def field_range(model: type[BaseModel], name: str) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
    """The (operator, bound) pair below and above a field's allowed values, from its Field(gt/ge/lt/le)."""
    lower = upper = None
    for item in model.model_fields[name].metadata:
        if isinstance(item, annotated_types.Ge):
            lower = (">=", item.ge)
        elif isinstance(item, annotated_types.Gt):
            lower = (">", item.gt)
        elif isinstance(item, annotated_types.Le):
            upper = ("<=", item.le)
        elif isinstance(item, annotated_types.Lt):
            upper = ("<", item.lt)
    return lower, upper


_PHRASES = {">=": ("at least {}", "不小于 {}"), ">": ("greater than {}", "大于 {}"), "<=": ("at most {}", "不大于 {}"), "<": ("less than {}", "小于 {}")}


def range_problem(model: type[BaseModel], name: str) -> BilingualValueError:
    """'must be at least 1 and at most 1000000': both ends of the range, whichever one was crossed."""
    bounds = [b for b in field_range(model, name) if b is not None]
    en = " and ".join(_PHRASES[op][0].format(_num(v)) for op, v in bounds)
    zh = " 且".join(_PHRASES[op][1].format(_num(v)) for op, v in bounds)
    allowed = " and ".join(f"{op} {_num(v)}" for op, v in bounds)
    return BilingualValueError(f"must be {en}", f"必须{zh}", allowed or None)


class SizingRequest(BaseModel):
    """Inputs of a calculator. Unknown fields, NaN and infinities are rejected."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)

    @field_validator("*", mode="wrap")
    @classmethod
    def _numbers_are_numbers_in_range(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        # JSON true/false would otherwise pass as 1/0 for a count ("gpus": true): a number field takes numbers only.
        annotation = cls.model_fields[info.field_name].annotation
        if isinstance(value, bool) and bool not in (annotation, *getattr(annotation, "__args__", ())):
            raise BilingualValueError("must be a number, not true/false", "必须是数字，不能是 true/false")
        try:
            return handler(value)
        except ValidationError as exc:
            # A range error names both ends of the allowed range, so the caller can fix it in one go.
            if any(e["type"] in _RANGE_ERRORS for e in exc.errors()) and isinstance(value, (int, float, str)):
                try:
                    finite = abs(float(value)) != float("inf") and float(value) == float(value)
                except OverflowError:
                    finite = True  # a whole number beyond float range (10**400): finite, only out of range
                except ValueError:
                    finite = False
                if finite:
                    raise range_problem(cls, info.field_name) from None
            raise


class ModelRef(SizingRequest):
    """A model by catalog name, or an anonymous one by parameter count."""

    model: str | None = Field(default=None, min_length=1, max_length=120, description="catalog name or alias, e.g. llama-3-70b")
    params_b: float | None = Field(default=None, ge=0.001, le=100_000, description="parameters in billions, when the model is not in the catalog")


class SizingResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    tool: str
    work: Work
