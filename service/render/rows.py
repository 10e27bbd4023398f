"""The rows a renderer shows for the structured blocks (recommendation, work), shared so every format carries the same figures."""

from __future__ import annotations

from service.contract import Recommendation, WorkBlock
from service.render.fmt import duration, duration_band, gib, money, money_band, num
from service.render.labels import label, tier_name


def recommendation_rows(rec: Recommendation, lang: str) -> list[tuple[str, str]]:
    node = label(lang, "node")
    rows = [(label(lang, "configuration"), f"{rec.gpus} × {rec.gpu_name}, {rec.nodes} {label(lang, 'nodes')}, {rec.cpu}, {num(rec.ram_gb_per_node)} GB RAM/{node}")]
    if rec.strategy:
        rows.append((label(lang, "serving" if rec.task == "inference" else "strategy"), rec.strategy))
    if rec.interconnect:
        rows.append((label(lang, "interconnect"), rec.interconnect))
    if rec.hours:
        rows.append((label(lang, "time"), duration_band(rec.hours, lang)))
    if rec.cost:
        rows.append((label(lang, "cost"), money_band(rec.cost, rec.currency, lang)))
    rows += [
        (label(lang, "memory"), f"{gib(rec.per_gpu_memory_gib)} / {gib(rec.gpu_memory_gib)}"),
        (label(lang, "storage"), rec.storage),
        (label(lang, "network"), rec.network),
        (label(lang, "deployment"), f"{label(lang, 'deploy_' + rec.deployment.replace('-', '_'))}: {rec.deployment_reason}"),
    ]
    return rows


def alternative_rows(rec: Recommendation, lang: str) -> tuple[list[str], list[list[str]]]:
    head = [label(lang, "option"), label(lang, "alt_configuration"), label(lang, "alt_time"), label(lang, "alt_cost")]
    rows = []
    for alt in rec.alternatives:
        time = duration(alt.hours.typical, lang) if alt.hours else "—"
        cost = money(alt.cost.typical, rec.currency) if alt.cost else (f"{money(alt.cost_per_hour, rec.currency)}/h" if alt.cost_per_hour else "—")
        rows.append([alt.label_text, f"{alt.gpus} × {alt.gpu_name} ({tier_name(lang, alt.tier)})", time, cost])
    return head, rows


def work_input_rows(work: WorkBlock, lang: str) -> tuple[list[str], list[list[str]]]:
    head = [label(lang, "input"), label(lang, "input_value"), label(lang, "from")]
    rows = []
    for item in work.inputs:
        source = item.provenance_text
        if item.source and item.provenance in ("default", "derived") and lang == "en":
            source += f": {item.source}"  # the reasons are written in English
        rows.append([item.name, f"{item.value} {item.unit}" if item.unit else item.value, source])
    return head, rows


def formula_lines(work: WorkBlock, lang: str) -> list[str]:
    """Inline text, one per formula (the step name as code)."""
    lines = [f"`{f.name}`: {f.formula} = {f.value}{' ' + f.unit if f.unit else ''}" for f in work.formulas]
    if work.more_formulas:
        lines.append(label(lang, "more_steps", n=work.more_formulas))
    return lines
