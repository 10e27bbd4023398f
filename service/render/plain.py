"""Blocks -> plain text: the CLI without a TTY, pipes and logs. No markup; tables aligned in spaces."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from service.contract import Block
from service.render.inline import plain
from service.render.labels import label
from service.render.rows import alternative_rows, formula_lines, recommendation_rows, work_input_rows


def render(blocks: Sequence[Block], language: str) -> str:
    parts = [_RENDER[block.type](block, language) for block in blocks]
    text = "\n\n".join(p.rstrip("\n") for p in parts if p.strip())
    return text + "\n" if text else ""


def width(text: str) -> int:
    """Columns on a terminal: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = [[plain(c) for c in head], *[[plain(c) for c in row] for row in rows]]
    widths = [max(width(row[i]) for row in cells) for i in range(len(head))]

    def line(row: list[str]) -> str:
        return "  ".join(c + " " * (w - width(c)) for c, w in zip(row, widths, strict=True)).rstrip()

    return "\n".join([line(cells[0]), "  ".join("-" * w for w in widths), *(line(r) for r in cells[1:])])


def _titled(title: str | None, body: str) -> str:
    return f"{plain(title)}\n{body}" if title else body


def _lead(block, lang: str) -> str:
    return plain(block.text)


def _paragraph(block, lang: str) -> str:
    return _titled(block.title, plain(block.text))


def _bullets(block, lang: str) -> str:
    return _titled(block.title, "\n".join(f"{i}. {plain(t)}" if block.ordered else f"- {plain(t)}" for i, t in enumerate(block.items, 1)))


def _table(block, lang: str) -> str:
    return _titled(block.title, table([c.label for c in block.columns], [[cell.text for cell in row] for row in block.rows]))


def _checklist(block, lang: str) -> str:
    parts = []
    for step in block.steps:
        text = plain(step.text) + (f" {plain(step.detail)}" if step.detail else "")
        parts.append("\n".join([text, *(f"    $ {c}" for c in step.commands)]))
    return _titled(block.title, "\n\n".join(parts))


def _recommendation(block, lang: str) -> str:
    rec = block.recommendation
    out = table([label(lang, "item"), label(lang, "value")], recommendation_rows(rec, lang))
    if rec.alternatives:
        out += f"\n\n{label(lang, 'alternatives')}\n" + table(*alternative_rows(rec, lang))
    return out


def _work(block, lang: str) -> str:
    lines = [plain(block.title), "=" * width(plain(block.title))]
    if block.inputs:
        lines += [table(*work_input_rows(block, lang)), ""]
    formulas = formula_lines(block, lang)
    if formulas:
        lines += [label(lang, "formulas"), *(f"- {plain(f)}" for f in formulas), ""]
    if block.assumptions:
        lines += [label(lang, "assumptions"), *(f"- {plain(a)}" for a in block.assumptions), ""]
    if block.sources:
        lines.append(label(lang, "formula_sources") + "; ".join(f"{s.title} <{s.url}>" for s in block.sources))
    return "\n".join(lines)


def _notice(block, lang: str) -> str:
    sep = "：" if lang == "zh" else ": "
    return f"{label(lang, block.kind)}{sep}{plain(block.text)}"


def _sources(block, lang: str) -> str:
    return "\n".join([plain(block.title), *(f"[{s.n}] {s.title} — {s.source} <{s.url}>" for s in block.items)])


_RENDER = {"lead": _lead, "paragraph": _paragraph, "bullets": _bullets, "table": _table, "checklist": _checklist,
           "recommendation": _recommendation, "work": _work, "notice": _notice, "sources": _sources}
