"""Render a tool's `work` as the "how this was computed" section."""

from __future__ import annotations

from service.assistant.compose.fmt import num, pick
from service.sizing.work import Work

PROVENANCE = {
    "en": {"user": "you", "catalog": "catalog", "default": "default", "derived": "derived"},
    "zh": {"user": "您提供", "catalog": "目录", "default": "默认", "derived": "推导"},
}
MAX_STEPS = 8


def _value(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if isinstance(value, float):
        return num(value, 4) if abs(value) < 1e15 else f"{value:.4g}"
    return str(value)


def how_computed(work: Work, lang: str, *, title_suffix: str = "") -> str:
    lines = [f"### {pick(lang, 'How this was computed', '计算过程')}{title_suffix}", ""]
    if work.inputs:
        lines.append(pick(lang, "| input | value | from |", "| 输入 | 取值 | 来源 |"))
        lines.append("|---|---|---|")
        for item in work.inputs:
            source = PROVENANCE[lang][item.provenance]
            if item.source and item.provenance in ("default", "derived") and lang == "en":
                source += f": {item.source}"  # the reasons are written in English
            unit = f" {item.unit}" if item.unit else ""
            lines.append(f"| {item.name} | {_value(item.value)}{unit} | {source} |")
        lines.append("")
    steps = work.steps[:MAX_STEPS]
    if steps:
        lines.append(pick(lang, "Formulas:", "公式："))
        for step in steps:
            unit = f" {step.unit}" if step.unit else ""
            lines.append(f"- `{step.name}`: {step.formula} = {_value(step.value)}{unit}")
        if len(work.steps) > MAX_STEPS:
            lines.append(pick(lang, f"- … {len(work.steps) - MAX_STEPS} more steps in the tool output", f"- ……其余 {len(work.steps) - MAX_STEPS} 步见工具输出"))
        lines.append("")
    if work.assumptions:
        lines.append(pick(lang, "Assumptions:", "假设："))
        lines.extend(f"- {note.text(lang)}" for note in work.assumptions)
        lines.append("")
    if work.sources:
        lines.append(pick(lang, "Formula sources: ", "公式来源：") + "; ".join(f"[{s.title}]({s.url})" for s in work.sources[:4]))
        lines.append("")
    return "\n".join(lines)


def warnings(work: Work, lang: str) -> str:
    if not work.warnings:
        return ""
    icon = {"critical": "⛔", "warning": "⚠️", "info": "ℹ️"}
    return "\n".join(f"> {icon[w.severity]} {w.text(lang)}" for w in work.warnings) + "\n"
