"""Answer blocks -> a Slack message (Block Kit plus the plain `text` fallback).

A pure function of the typed blocks and the language: no I/O, no pipeline, and never the
Markdown rendering. Every number shown comes from a block (that is, from a tool output or a
cited source); this module only formats it. Limits are enforced in `limits.fit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.channels.slack import limits
from service.channels.slack.limits import BlockDict
from service.channels.slack.mrkdwn import code_block, escape, link, to_mrkdwn, to_plain, truncate
from service.channels.slack.strings import text as say
from service.contract.blocks import (
    Block,
    BulletsBlock,
    ChecklistBlock,
    LeadBlock,
    NoticeBlock,
    ParagraphBlock,
    Recommendation,
    RecommendationBlock,
    SourcesBlock,
    TableBlock,
    WorkBlock,
)
from service.render.labels import label, tier_name
from service.render.rows import alternative_rows, recommendation_rows

FEEDBACK_UP = "advisor_feedback_up"
FEEDBACK_DOWN = "advisor_feedback_down"
SHARE = "advisor_share"
NOTICE_ICONS = {"assumption": ":information_source:", "info": ":information_source:", "warning": ":warning:", "error": ":x:"}
MAX_SOURCES_TEXT = 2500


@dataclass
class SlackMessage:
    text: str
    blocks: list[BlockDict] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": self.blocks}


def render_answer(
    blocks: Sequence[Block],
    language: str,
    *,
    message_id: str | None = None,
    more_url: str | None = None,
    share_value: str | None = None,
) -> SlackMessage:
    """The message for an answer: body blocks, sources, then buttons (feedback; share when ephemeral)."""
    body: list[BlockDict] = []
    tail: list[BlockDict] = []
    for block in blocks:
        if isinstance(block, SourcesBlock):
            tail.append(_sources(block))
        else:
            body.extend(_render(block, language))
    actions = _actions(language, message_id, share_value)
    if actions:
        tail.append(actions)
    notice = say(language, "trimmed")
    if more_url:
        notice += " " + link(more_url, say(language, "see_more"))
    fitted = limits.fit(body, tail, limits.context([f":scissors: {notice}"]))
    return SlackMessage(text=fallback_text(blocks), blocks=fitted)


def plain_message(message: str) -> SlackMessage:
    """The bot's own words (help, apology), already mrkdwn; the fallback text is the same words."""
    return SlackMessage(text=truncate(message, limits.MAX_FALLBACK_TEXT), blocks=limits.sections(message))


def fallback_text(blocks: Sequence[Block]) -> str:
    """Plain text for notifications and clients without Block Kit: the lead, else the first text block."""
    for block in blocks:
        if isinstance(block, LeadBlock | ParagraphBlock):
            return truncate(to_plain(block.text), limits.MAX_FALLBACK_TEXT)
        if isinstance(block, NoticeBlock):
            return truncate(to_plain(block.text), limits.MAX_FALLBACK_TEXT)
    return "…"


# -- one renderer per block type ---------------------------------------------------


def _render(block: Block, language: str) -> list[BlockDict]:
    if isinstance(block, LeadBlock):
        return limits.sections(to_mrkdwn(block.text))
    if isinstance(block, ParagraphBlock):
        return limits.sections(_titled(block.title, to_mrkdwn(block.text)))
    if isinstance(block, BulletsBlock):
        lines = [f"{i}. {to_mrkdwn(item)}" if block.ordered else f"• {to_mrkdwn(item)}" for i, item in enumerate(block.items, 1)]
        return limits.sections(_titled(block.title, "\n".join(lines)))
    if isinstance(block, TableBlock):
        return _table(block)
    if isinstance(block, ChecklistBlock):
        return _checklist(block)
    if isinstance(block, RecommendationBlock):
        return _recommendation(block.recommendation, language)
    if isinstance(block, WorkBlock):
        return [_work(block, language)]
    if isinstance(block, NoticeBlock):
        return [limits.context([f"{NOTICE_ICONS[block.kind]} {to_mrkdwn(block.text)}"])]
    return []  # a block type this renderer does not know yet: left out rather than guessed


def _titled(title: str | None, body: str) -> str:
    return f"*{escape(title)}*\n{body}" if title else body


def _table(block: TableBlock) -> list[BlockDict]:
    """Two columns map to label/value fields; wider tables put one row per field (first cell bold, then label: value)."""

    def header(index: int) -> str:
        column = block.columns[index]
        return escape(f"{column.label} ({column.unit})" if column.unit else column.label)

    heading = f"*{escape(block.title)}*" if block.title else None
    fields: list[str] = []
    if len(block.columns) == 2:
        fields += [f"*{header(0)}*", f"*{header(1)}*"]
        for row in block.rows:
            fields += [to_mrkdwn(row[0].text) if row else " ", to_mrkdwn(row[1].text) if len(row) > 1 else " "]
    else:
        for row in block.rows:
            if not row:
                continue
            lines = [f"*{to_mrkdwn(row[0].text)}*"]
            lines += [f"{header(i)}: {to_mrkdwn(cell.text)}" for i, cell in enumerate(row[1:], 1) if i < len(block.columns)]
            fields.append("\n".join(lines))
    return limits.field_sections(fields, heading)


def _checklist(block: ChecklistBlock) -> list[BlockDict]:
    parts = [f"*{escape(block.title)}*"] if block.title else []
    for number, step in enumerate(block.steps, 1):
        lines = [f"*{number}.* {to_mrkdwn(step.text)}"]
        if step.detail:
            lines.append(to_mrkdwn(step.detail))
        if step.commands:
            lines.append(code_block(step.commands))
        parts.append("\n".join(lines))
    # One section per step keeps a code block from being split across sections.
    out: list[BlockDict] = []
    for part in parts:
        out += limits.sections(part)
    return out


def _recommendation(rec: Recommendation, language: str) -> list[BlockDict]:
    """The same rows as every other format (service.render.rows), as label/value fields; alternatives one per line."""
    heading = f"*{escape(rec.tier_name or tier_name(language, rec.tier))} — {escape(rec.model_name)}*"
    fields = [f"*{escape(name)}*\n{escape(value)}" for name, value in recommendation_rows(rec, language)]
    out = limits.field_sections(fields, heading)
    if rec.alternatives:
        head, rows = alternative_rows(rec, language)
        lines = [f"*{escape(label(language, 'alternatives'))}*"]
        lines += [f"• *{escape(row[0])}*: " + escape(" · ".join(cell for cell in row[1:] if cell and cell != "—")) for row in rows]
        out += limits.sections("\n".join(lines))
    return out


def _work(block: WorkBlock, language: str) -> BlockDict:
    """Folded to one context line: Slack has no disclosure widget, and the inputs and formulas stay in the conversation record."""
    return limits.context([say(language, "work", title=escape(block.title), tool=escape(block.tool))])


def _sources(block: SourcesBlock) -> BlockDict:
    lines = [f"*{escape(block.title)}*"]
    used = len(lines[0])
    for item in block.items:
        line = (
            f"[{item.n}] {link(item.url, item.title)}"
            if item.url.startswith(("http://", "https://"))
            else f"[{item.n}] {escape(item.title)}"
        )
        if used + len(line) + 1 > MAX_SOURCES_TEXT:
            lines.append("…")
            break
        lines.append(line)
        used += len(line) + 1
    return limits.context(["\n".join(lines)])


def _actions(language: str, message_id: str | None, share_value: str | None) -> BlockDict | None:
    elements: list[dict[str, Any]] = []
    if share_value:
        elements.append(_button(say(language, "share"), SHARE, share_value, style="primary"))
    if message_id:
        elements.append(_button(say(language, "feedback_up"), FEEDBACK_UP, message_id))
        elements.append(_button(say(language, "feedback_down"), FEEDBACK_DOWN, message_id))
    return {"type": "actions", "block_id": "advisor_actions", "elements": elements} if elements else None


def _button(label: str, action_id: str, value: str, *, style: str | None = None) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "action_id": action_id,
        "value": value,
        "text": {"type": "plain_text", "text": label, "emoji": True},
    }
    if style:
        button["style"] = style
    return button
