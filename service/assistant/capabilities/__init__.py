"""Capabilities: the few things the advisor does with a case (size, diagnose, explain, compare, plan, check a claim).

`answer_case(ctx)` looks the case's subject and act up in the one table (data/table.yaml), runs the capabilities it
names and composes their findings; it returns None when the table names none (the intent handlers answer then).
A capability reads the Case and the slots from understanding, never the raw message.
"""

from __future__ import annotations

from service.assistant.capabilities import diagnose, serving_memory, step_time, training_memory  # noqa: F401 — they register themselves
from service.assistant.capabilities.base import CAPABILITIES, Finding, capability
from service.assistant.capabilities.compose import compose, lead_agrees
from service.assistant.capabilities.table import capabilities_for
from service.assistant.handlers.base import Context, Draft

__all__ = ["CAPABILITIES", "Finding", "answer_case", "capability"]


def answer_case(ctx: Context) -> Draft | None:
    case = getattr(ctx.understanding, "case", None)
    if case is None:
        return None
    names, fallback = capabilities_for(case.subject, case.act)
    findings = [f for f in (CAPABILITIES[name](ctx) for name in names) if f is not None]
    if not findings:
        findings = [f for f in (CAPABILITIES[name](ctx) for name in fallback) if f is not None]
    findings = [f for f in findings if lead_agrees(f)]  # a lead its own figures contradict is never sent
    return compose(findings) if findings else None
