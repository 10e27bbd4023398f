"""Request/response base classes shared by every calculator."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.sizing.work import Work

TrainPrecision = Literal["fp32", "fp16", "bf16", "fp8"]
Task = Literal["pretrain", "fine-tune"]
Method = Literal["full", "lora", "qlora"]


class SizingRequest(BaseModel):
    """Inputs of a calculator. Unknown fields, NaN and infinities are rejected."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)


class ModelRef(SizingRequest):
    """A model by catalog name, or an anonymous one by parameter count."""

    model: str | None = Field(default=None, min_length=1, max_length=120, description="catalog name or alias, e.g. llama-3-70b")
    params_b: float | None = Field(default=None, gt=0, le=100_000, description="parameters in billions, when the model is not in the catalog")


class SizingResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    tool: str
    work: Work
