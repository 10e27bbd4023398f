"""A tool's `work` as typed blocks: the "how this was computed" WorkBlock and its warnings as notices."""

from __future__ import annotations

from service.assistant.compose.fmt import num, pick
from service.contract import Link, NoticeBlock, WorkBlock, WorkFormula, WorkInput
from service.sizing.work import Work

PROVENANCE = {
    "en": {"user": "you", "catalog": "catalog", "default": "default", "derived": "derived"},
    "zh": {"user": "您提供", "catalog": "目录", "default": "默认", "derived": "推导"},
}
MAX_STEPS = 8
MAX_SOURCES = 4
SEVERITY_TO_KIND = {"critical": "error", "warning": "warning", "info": "info"}


def value_text(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if isinstance(value, float):
        return num(value, 4) if abs(value) < 1e15 else f"{value:.4g}"
    return str(value)


def work_block(work: Work, lang: str, *, tool: str, title_suffix: str = "") -> WorkBlock:
    return WorkBlock(
        title=pick(lang, "How this was computed", "计算过程") + title_suffix,
        tool=tool,
        inputs=[WorkInput(name=i.name, value=value_text(i.value), unit=i.unit or None, provenance=i.provenance,
                          provenance_text=PROVENANCE[lang][i.provenance], source=i.source) for i in work.inputs],
        formulas=[WorkFormula(name=s.name, formula=s.formula, value=value_text(s.value), unit=s.unit or None) for s in work.steps[:MAX_STEPS]],
        more_formulas=max(0, len(work.steps) - MAX_STEPS),
        assumptions=[note.text(lang) for note in work.assumptions],
        sources=[Link(title=s.title, url=s.url) for s in work.sources[:MAX_SOURCES]],
    )


def warnings(work: Work, lang: str) -> list[NoticeBlock]:
    return [NoticeBlock(kind=SEVERITY_TO_KIND[w.severity], text=w.text(lang)) for w in work.warnings]


def assumptions(notes: list[str]) -> list[NoticeBlock]:
    """What the assistant assumed on the user's behalf (a default GPU, a task)."""
    return [NoticeBlock(kind="assumption", text=n) for n in notes if n]
