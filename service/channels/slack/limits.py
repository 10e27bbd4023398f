"""Slack's Block Kit limits, and fitting a rendered message inside them.

Slack rejects a message with more than 50 blocks, a section text over 3,000 characters,
more than 10 fields in a section or a field over 2,000 characters; very large payloads are
refused too (about 13,000 characters of text is safe). Long sections are split at line
boundaries; blocks that still do not fit are left out behind a "see more" line.
"""

from __future__ import annotations

import json
from typing import Any

from service.channels.slack.mrkdwn import truncate

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_CONTEXT_ELEMENTS = 10
MAX_PAYLOAD_CHARS = 12_000  # json length of the blocks: under the ~13,000 that is safe
MAX_FALLBACK_TEXT = 3000

BlockDict = dict[str, Any]


def size(blocks: list[BlockDict]) -> int:
    return len(json.dumps(blocks, ensure_ascii=False))


def mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def sections(text: str) -> list[BlockDict]:
    """One or more section blocks for a text, split at line boundaries to respect the per-section limit."""
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        if len(line) > MAX_SECTION_TEXT:  # a single enormous line: cut it
            parts.extend([current, truncate(line, MAX_SECTION_TEXT)])
            current = ""
            continue
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > MAX_SECTION_TEXT:
            parts.append(current)
            current = line
        else:
            current = candidate
    if current.strip():
        parts.append(current)
    return [{"type": "section", "text": mrkdwn(part)} for part in parts if part.strip()]


def field_sections(fields: list[str], heading: str | None = None) -> list[BlockDict]:
    """Two-column fields, at most 10 per section; the heading goes on the first section."""
    blocks: list[BlockDict] = []
    items = [truncate(f, MAX_FIELD_TEXT) for f in fields if f]
    for start in range(0, len(items), MAX_FIELDS):
        block: BlockDict = {"type": "section", "fields": [mrkdwn(f) for f in items[start : start + MAX_FIELDS]]}
        if heading and start == 0:
            block["text"] = mrkdwn(truncate(heading, MAX_SECTION_TEXT))
        blocks.append(block)
    if not blocks and heading:
        blocks = sections(heading)
    return blocks


def context(texts: list[str]) -> BlockDict:
    texts = [truncate(t, MAX_SECTION_TEXT) for t in texts if t][:MAX_CONTEXT_ELEMENTS]
    return {"type": "context", "elements": [mrkdwn(t) for t in texts]}


def fit(body: list[BlockDict], tail: list[BlockDict], trimmed_notice: BlockDict) -> list[BlockDict]:
    """Body blocks in order while they fit with the tail (sources, buttons); the notice marks anything left out."""
    budget_blocks = MAX_BLOCKS - len(tail)
    if len(body) <= budget_blocks and size(body + tail) <= MAX_PAYLOAD_CHARS:
        return body + tail
    reserve = size(tail) + size([trimmed_notice]) + 2
    kept: list[BlockDict] = []
    used = 2
    for block in body:
        cost = size([block]) + 1
        if len(kept) + 1 > budget_blocks - 1 or used + cost + reserve > MAX_PAYLOAD_CHARS:
            break
        kept.append(block)
        used += cost
    return kept + [trimmed_notice] + tail
