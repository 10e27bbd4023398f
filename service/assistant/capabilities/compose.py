"""Findings -> one Draft that reads like a colleague's answer: the first sentence answers what was asked, then a few
short points, then any table or checklist; the tools' work is folded behind it and the sources come last.

The first finding leads. A later finding adds its lead as one more point (the diagnosis after the memory figure, or
"if not that, ..."), its own points only while the answer stays short.
"""

from __future__ import annotations

import re

from service.assistant.capabilities.base import Finding
from service.assistant.handlers.base import Draft
from service.contract import Block, BulletsBlock, LeadBlock

MAX_POINTS = 5
MARKER = re.compile(r"\[(\d+)\]")


def _renumbered(findings: list[Finding]) -> tuple[list[Finding], list]:
    """Each finding cites its own hits as [1], [2], ...; in the answer they follow each other: shift the markers."""
    hits: list = []
    out = []
    for finding in findings:
        offset = len(hits)
        hits += finding.hits

        def shift(text: str, offset: int = offset) -> str:
            return MARKER.sub(lambda m: f"[{int(m.group(1)) + offset}]", text)

        out.append(Finding(**{**finding.__dict__, "lead": shift(finding.lead), "points": [shift(p) for p in finding.points]}))
    return out, hits


def lead_agrees(finding: Finding) -> bool:
    """The first sentence against the tool figures it rests on: a "no" needs the need above the capacity, a "yes" within it."""
    need, capacity = finding.basis.get("need"), finding.basis.get("capacity")
    if need is None or capacity is None or finding.verdict not in ("yes", "no", "tight"):
        return True
    return (finding.verdict == "no") == (need > capacity) or finding.verdict == "yes" and finding.lead.startswith(("**Yes, with", "**可以，但"))


def compose(findings: list[Finding]) -> Draft:
    findings, hits = _renumbered(findings)
    first = findings[0]
    points = list(first.points)
    blocks: list[Block] = []
    for later in findings[1:]:
        if later.lead and later.lead not in points:
            points.append(later.lead)
        points += [p for p in later.points if p not in points][: max(0, MAX_POINTS - len(points))]
    blocks = [LeadBlock(text=first.lead)]
    if points:
        blocks.append(BulletsBlock(items=points[:MAX_POINTS + 1]))
    for finding in findings:
        blocks += finding.blocks
    works = [w for finding in findings for w in finding.works]
    follow_ups = list(dict.fromkeys(f for finding in findings for f in finding.follow_ups))[:3]
    return Draft(blocks=blocks, hits=hits, works=works, follow_ups=follow_ups, show_sources=bool(hits))
