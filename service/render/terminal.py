"""Blocks -> rich renderables: the CLI on a TTY (tables as tables, commands as copyable code, the work folded under a rule)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from service.contract import Block
from service.render.inline import tokens
from service.render.labels import NOTICE_ICONS, label
from service.render.rows import alternative_rows, formula_lines, recommendation_rows, work_input_rows

STYLES = {"bold": "bold", "code": "cyan", "cite": "dim", "link": "underline blue"}
NOTICE_STYLES = {"assumption": "dim", "info": "blue", "warning": "yellow", "error": "bold red"}


def render(blocks: Sequence[Block], language: str) -> Group:
    items: list[RenderableType] = []
    for block in blocks:
        if items:
            items.append(Text(""))
        items.append(_RENDER[block.type](block, language))
    return Group(*items)


def inline(text: str, style: str = "") -> Text:
    out = Text(style=style)
    for token in tokens(text):
        if token.kind == "text":
            out.append(token.text)
        elif token.kind == "link":
            out.append(token.text, style=f"{STYLES['link']} link {token.url}")
            out.append(f" <{token.url}>", style="dim")
        else:
            out.append(token.text, style=STYLES[token.kind])
    return out


def table(head: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> Table:
    grid = Table(title=inline(title) if title else None, title_justify="left", show_lines=False, header_style="bold")
    for h in head:
        grid.add_column(inline(h), overflow="fold")
    for row in rows:
        grid.add_row(*(inline(c) for c in row))
    return grid


def _titled(title: str | None, body: RenderableType) -> RenderableType:
    return Group(inline(title, "bold"), body) if title else body


def _lead(block, lang: str) -> RenderableType:
    return inline(block.text)


def _paragraph(block, lang: str) -> RenderableType:
    return _titled(block.title, inline(block.text))


def _bullets(block, lang: str) -> RenderableType:
    lines = [Text(f"{i}. " if block.ordered else "• ") + inline(t) for i, t in enumerate(block.items, 1)]
    return _titled(block.title, Group(*lines))


def _table(block, lang: str) -> RenderableType:
    return table([c.label for c in block.columns], [[cell.text for cell in row] for row in block.rows], block.title)


def _checklist(block, lang: str) -> RenderableType:
    parts: list[RenderableType] = []
    for step in block.steps:
        parts.append(Text("☐ ") + inline(step.text + (f" {step.detail}" if step.detail else "")))
        if step.commands:
            parts.append(Syntax("\n".join(step.commands), "bash", theme="ansi_dark", background_color="default"))
    return _titled(block.title, Group(*parts))


def _recommendation(block, lang: str) -> RenderableType:
    rec = block.recommendation
    parts: list[RenderableType] = [table([label(lang, "item"), label(lang, "value")], recommendation_rows(rec, lang))]
    if rec.alternatives:
        parts.append(table(*alternative_rows(rec, lang), title=label(lang, "alternatives")))
    return Group(*parts)


def _work(block, lang: str) -> RenderableType:
    parts: list[RenderableType] = [Rule(inline(block.title, "dim"), align="left", style="dim")]
    if block.inputs:
        parts.append(table(*work_input_rows(block, lang)))
    formulas = formula_lines(block, lang)
    if formulas:
        parts += [Text(label(lang, "formulas"), style="dim"), *(Text("  - ") + inline(f) for f in formulas)]
    if block.assumptions:
        parts += [Text(label(lang, "assumptions"), style="dim"), *(Text("  - ") + inline(a) for a in block.assumptions)]
    if block.sources:
        parts.append(Text(label(lang, "formula_sources"), style="dim") + inline("; ".join(f"[{s.title}]({s.url})" for s in block.sources)))
    return Group(*parts)


def _notice(block, lang: str) -> RenderableType:
    icon = NOTICE_ICONS[block.kind]
    return Panel(inline(f"{icon} {block.text}" if icon else block.text), border_style=NOTICE_STYLES[block.kind], expand=False)


def _sources(block, lang: str) -> RenderableType:
    lines = [Text(f"[{s.n}] ", style="dim") + Text(f"{s.title} — {s.source} ") + Text(f"<{s.url}>", style="underline blue") for s in block.items]
    return _titled(block.title, Group(*lines))


_RENDER = {"lead": _lead, "paragraph": _paragraph, "bullets": _bullets, "table": _table, "checklist": _checklist,
           "recommendation": _recommendation, "work": _work, "notice": _notice, "sources": _sources}
