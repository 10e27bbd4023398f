""""Show the work": every sizing result carries its inputs (with provenance), the
formulas it applied with their intermediate values, its assumptions and warnings.

A `Ledger` collects these while a calculator runs; `Ledger.work()` freezes them
into the `Work` object returned with the result.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Provenance = Literal["user", "catalog", "default", "derived"]
Severity = Literal["info", "warning", "critical"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class InputValue(Frozen):
    name: str
    value: float | int | str | bool | None
    unit: str = ""
    provenance: Provenance
    source: str | None = Field(default=None, description="catalog entry, citation or why this default")


class Step(Frozen):
    name: str = Field(description="stable identifier of the formula applied")
    formula: str
    value: float
    unit: str = ""


class Note(Frozen):
    code: str
    en: str
    zh: str
    severity: Severity = "info"

    def text(self, language: str) -> str:
        return self.zh if language == "zh" else self.en


class Citation(Frozen):
    title: str
    url: str


class Work(Frozen):
    inputs: list[InputValue] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    assumptions: list[Note] = Field(default_factory=list)
    warnings: list[Note] = Field(default_factory=list)
    sources: list[Citation] = Field(default_factory=list)


def relabel(work: Work, stated: set[str], *, provenance: Provenance, source: str) -> Work:
    """The same work with 'user' inputs the person never stated re-attributed (to a caller's default or choice)."""
    inputs = [i if i.provenance != "user" or i.name in stated else i.model_copy(update={"provenance": provenance, "source": source})
              for i in work.inputs]
    return work.model_copy(update={"inputs": inputs})


def sig(value: float, digits: int = 4) -> float:
    """Round to significant digits so results are readable and stable across platforms."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, -int(math.floor(math.log10(abs(value)))) + digits - 1)


class Ledger:
    """Mutable collector used inside one calculator run."""

    def __init__(self) -> None:
        self._inputs: dict[str, InputValue] = {}
        self._steps: list[Step] = []
        self._assumptions: dict[str, Note] = {}
        self._warnings: dict[str, Note] = {}
        self._sources: dict[str, Citation] = {}

    # inputs ---------------------------------------------------------------
    def given(self, name: str, value, unit: str = "", source: str | None = None):
        self._inputs[name] = InputValue(name=name, value=value, unit=unit, provenance="user", source=source)
        return value

    def from_catalog(self, name: str, value, unit: str, entry: str):
        self._inputs[name] = InputValue(name=name, value=value, unit=unit, provenance="catalog", source=entry)
        return value

    def default(self, name: str, value, unit: str = "", why: str | None = None):
        self._inputs[name] = InputValue(name=name, value=value, unit=unit, provenance="default", source=why)
        return value

    def derived(self, name: str, value, unit: str = "", how: str | None = None):
        self._inputs[name] = InputValue(name=name, value=value, unit=unit, provenance="derived", source=how)
        return value

    def pick(self, name: str, user_value, default_value, unit: str = "", why: str | None = None):
        """The user's value when given, else the default (recorded as such)."""
        if user_value is not None:
            return self.given(name, user_value, unit)
        return self.default(name, default_value, unit, why)

    def field(self, request, name: str, unit: str = "", why: str | None = None, *, default=None):
        """Record a request field: 'user' when the caller set it, else 'default' (the field's or `default`)."""
        value = getattr(request, name)
        if name in request.model_fields_set and value is not None:
            return self.given(name, value, unit)
        return self.default(name, default if value is None else value, unit, why)

    # work -----------------------------------------------------------------
    def step(self, name: str, formula: str, value: float, unit: str = "") -> float:
        self._steps.append(Step(name=name, formula=formula, value=sig(value, 6), unit=unit))
        return value

    def assume(self, code: str, en: str, zh: str) -> None:
        self._assumptions.setdefault(code, Note(code=code, en=en, zh=zh))

    def warn(self, code: str, en: str, zh: str, severity: Severity = "warning") -> None:
        self._warnings.setdefault(code, Note(code=code, en=en, zh=zh, severity=severity))

    def cite(self, title: str, url: str) -> None:
        self._sources.setdefault(url, Citation(title=title, url=url))

    def work(self) -> Work:
        return Work(
            inputs=list(self._inputs.values()),
            steps=list(self._steps),
            assumptions=list(self._assumptions.values()),
            warnings=list(self._warnings.values()),
            sources=list(self._sources.values()),
        )


class NullLedger(Ledger):
    """Records nothing: for inner loops (the recommender's search) that only need the numbers."""

    def given(self, name, value, unit="", source=None):
        return value

    def from_catalog(self, name, value, unit, entry):
        return value

    def default(self, name, value, unit="", why=None):
        return value

    def derived(self, name, value, unit="", how=None):
        return value

    def step(self, name, formula, value, unit=""):
        return value

    def assume(self, code, en, zh):
        pass

    def warn(self, code, en, zh, severity="warning"):
        pass

    def cite(self, title, url):
        pass
