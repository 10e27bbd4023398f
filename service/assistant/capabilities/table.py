"""(subject, act) -> capabilities: the one table (data/table.yaml) that says which capabilities answer a case."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from service import yaml_files

DATA = Path(__file__).parent / "data" / "table.yaml"


Plan = tuple[tuple[str, ...], tuple[str, ...]]  # (capabilities, fallback)


@cache
def rows() -> tuple[tuple[str, frozenset[str] | None, Plan], ...]:
    data = yaml_files.safe_load(DATA.read_text(encoding="utf-8"))["rows"]
    return tuple((row["subject"], None if row["acts"] == "any" else frozenset(row["acts"]),
                  (tuple(row["capabilities"]), tuple(row.get("fallback") or ()))) for row in data)


def capabilities_for(subject: str | None, act: str) -> Plan:
    """(the capabilities that answer, those that answer when none of them could) for a subject and act."""
    if subject is None:
        return (), ()
    specific = [plan for s, acts, plan in rows() if s == subject and acts is not None and act in acts]
    general = [plan for s, acts, plan in rows() if s == subject and acts is None]
    return (specific or general or [((), ())])[0]
