"""What a capability is: a function from the case (in the handler Context) to a Finding, registered by name.

A Finding is one capability's contribution to an answer: the sentence that answers the act (a verdict or a number),
a few short points, any table or checklist, the work of the tools it ran, and the passages it cites. Several findings
may make one answer (an OOM's memory figure and the diagnosis of the error); compose.py orders them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.assistant.handlers.base import Context
from service.contract import Block
from service.sizing.work import Work


@dataclass
class Finding:
    capability: str
    lead: str  # answers the act: a verdict or a number, in the user's language
    points: list[str] = field(default_factory=list)  # at most about five short points: reasons, the one fix, what to check next
    blocks: list[Block] = field(default_factory=list)  # tables, checklists: after the points
    works: list[tuple[str, Work]] = field(default_factory=list)  # folded "how this was computed"
    hits: list = field(default_factory=list)  # retrieval hits cited by the points, in order
    follow_ups: list[str] = field(default_factory=list)
    verdict: str | None = None  # "yes" | "no" | "tight" | a number's tool field: what the lead asserts, checked against the tools
    basis: dict[str, Any] = field(default_factory=dict)  # the tool figures the lead rests on (checked before sending)


CapabilityFn = Callable[[Context], Finding | None]
CAPABILITIES: dict[str, CapabilityFn] = {}


def capability(name: str) -> Callable[[CapabilityFn], CapabilityFn]:
    """Register a capability under `name` (the name the table in data/table.yaml uses)."""

    def register(fn: CapabilityFn) -> CapabilityFn:
        CAPABILITIES[name] = fn
        return fn

    return register
