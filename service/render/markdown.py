"""Blocks -> Markdown (GitHub flavour): `Answer.answer`, the SSE `delta` text and text-only clients.

Block text is already in the inline subset, which is Markdown; only structure is added here.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.contract import Block
from service.render.labels import NOTICE_ICONS, label
from service.render.rows import alternative_rows, formula_lines, recommendation_rows, work_input_rows


def render(blocks: Sequence[Block], language: str) -> str:
    return "".join(pieces(blocks, language))


def pieces(blocks: Sequence[Block], language: str) -> list[str]:
    """Block i's share of the rendering (separators included): they concatenate to `render()`, for streaming."""
    parts = [render_block(block, language).strip("\n") for block in blocks]
    out, started = [], False
    for part in parts:
        if not part.strip():
            out.append("")
            continue
        out.append(("\n\n" if started else "") + part)
        started = True
    if started:
        last = max(i for i, p in enumerate(out) if p)
        out[last] += "\n"
    return out


def render_block(block: Block, lang: str) -> str:
    return _RENDER[block.type](block, lang)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(_cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _titled(title: str | None, body: str) -> str:
    return f"**{title}**\n\n{body}" if title else body


def _lead(block, lang: str) -> str:
    return block.text


def _paragraph(block, lang: str) -> str:
    return _titled(block.title, block.text)


def _bullets(block, lang: str) -> str:
    items = [f"{i}. {item}" if block.ordered else f"- {item}" for i, item in enumerate(block.items, 1)]
    return _titled(block.title, "\n".join(items))


def _table(block, lang: str) -> str:
    return _titled(block.title, table([c.label for c in block.columns], [[cell.text for cell in row] for row in block.rows]))


def _checklist(block, lang: str) -> str:
    parts = []
    for step in block.steps:
        text = step.text + (f" {step.detail}" if step.detail else "")
        if step.commands:
            text += "\n\n```bash\n" + "\n".join(step.commands) + "\n```"
        parts.append(text)
    return _titled(block.title, "\n\n".join(parts))


def _recommendation(block, lang: str) -> str:
    rec = block.recommendation
    out = table([label(lang, "item"), label(lang, "value")], recommendation_rows(rec, lang))
    if rec.alternatives:
        out += f"\n\n**{label(lang, 'alternatives')}**\n\n" + table(*alternative_rows(rec, lang))
    return out


def _work(block, lang: str) -> str:
    lines = [f"### {block.title}"]
    if block.inputs:
        lines += ["", table(*work_input_rows(block, lang))]
    formulas = formula_lines(block, lang)
    if formulas:
        lines += ["", label(lang, "formulas"), *(f"- {f}" for f in formulas)]
    if block.assumptions:
        lines += ["", label(lang, "assumptions"), *(f"- {a}" for a in block.assumptions)]
    if block.sources:
        lines += ["", label(lang, "formula_sources") + "; ".join(f"[{s.title}]({s.url})" for s in block.sources)]
    return "\n".join(lines)


def _notice(block, lang: str) -> str:
    icon = NOTICE_ICONS[block.kind]
    return "> " + (f"{icon} " if icon else "") + block.text.replace("\n", "\n> ")


def _sources(block, lang: str) -> str:
    return "\n".join([f"**{block.title}**", *(f"[{s.n}] {s.title} — {s.source} <{s.url}>" for s in block.items)])


_RENDER = {"lead": _lead, "paragraph": _paragraph, "bullets": _bullets, "table": _table, "checklist": _checklist,
           "recommendation": _recommendation, "work": _work, "notice": _notice, "sources": _sources}
