"""Retrieved sections as the FAQ composer sees them, for the composer's tests (text, heading, document id, source)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Hit:
    text: str
    heading: str
    doc_id: str
    source: str = "A source"


def quoted(result) -> str:
    """The lead and the points of a composed answer, one per line."""
    return "\n".join([result.lead, *result.points])
