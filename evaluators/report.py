"""report.md and its figures, from the results of one `advisor eval` run (see run_all.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from evaluators import plots
from evaluators.gates import Verdict

MAX_FAILURES_PER_SOURCE = 40


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.4g}"
    return f"{value:.{digits}f}"


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(head: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines + [""]


def write(results: dict[str, Any], verdicts: list[Verdict], ungated: list[str], out: Path) -> Path:
    lines = [f"# Evaluation report ({results['profile']} run, {results['date']})", ""]
    if results["profile"] == "fast":
        lines += ["A fast run: sizing, every 4th retrieval question and 30 conversations spread over the set; no held-out set, blind sets or "
                  "cross-validation. Its figures are for CI and are gated by the `fast` section of evaluators/gates.yaml.", ""]
    lines += _gates(verdicts, ungated)
    # A section is written when its evaluation ran (a results.json may hold only some, e.g. with --from-results).
    if "sizing" in results:
        lines += _sizing(results, out)
    if "validate" in results:
        lines += _validate(results["validate"])
    if "retrieval" in results:
        lines += _retrieval(results, out)
    if "assistant" in results:
        lines += _conversations(results, out)
    if "baselines" in results:
        lines += _baselines(results)
    lines += _blind(results)
    lines += _router(results)
    if "stages" in results and "assistant" in results:
        lines += _latency(results, out)
    lines += _failing(results)
    if results.get("not_run") or results.get("errors"):
        lines += ["## Not run", ""] + [f"- {item}" for item in results.get("not_run", [])]
        lines += [f"- **failed**: {item}" for item in results.get("errors", [])] + [""]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _gates(verdicts: list[Verdict], ungated: list[str]) -> list[str]:
    failing = [v for v in verdicts if not v.passed]
    lines = ["## Gates", "", f"**{'FAIL' if failing else 'PASS'}**: {sum(v.measured for v in verdicts)} gated metrics measured, "
             f"{len(failing)} below threshold (thresholds: evaluators/gates.yaml).", ""]
    order = sorted(verdicts, key=lambda v: (v.passed, not v.measured, v.gate.metric))
    rows = [(f"`{v.gate.metric}`", fmt(v.value), v.gate.describe(), "pass" if v.passed and v.measured else
             ("**FAIL**" if not v.passed else "not measured")) for v in order]
    lines += table(("metric", "value", "threshold", "status"), rows)
    if ungated:
        lines += ["Measured but not gated (add a threshold): " + ", ".join(f"`{m}`" for m in ungated), ""]
    return lines


def _validate(v: dict[str, Any]) -> list[str]:
    """`advisor validate` on the held-out half: the error tables' headline figures and every miss by name."""
    s = v["summary"]
    lines = ["## advisor validate (held-out half)", "", "| check | n | median | p90 | worst |", "|---|---:|---:|---:|---:|"]
    for name, key in (("step time, layout given", "step_time"), ("step time, llm-analysis", "step_time_llm_analysis"),
                      ("training memory", "memory"), ("KV capacity", "kv_capacity")):
        row = s.get(key)
        if row:
            lines.append(f"| {name} | {row['n']} | {row['median']:.1%} | {row['p90']:.1%} | {row['worst']:.1%} |")
    lines += ["", f"Time-to-train band: {s['band_coverage_reported']:.0%} of published runs inside; {s['band_coverage']:.0%} of held-out step runs.", ""]
    lines += [f"- {line}" for line in v["shortfalls"]] + [""]
    return lines


def _sizing(results: dict[str, Any], out: Path) -> list[str]:
    s = results["sizing"]["summary"]
    la = results.get("baselines", {}).get("llm_analysis", {"rows": [], "available": True, "not_expressible": [], "summary": {}})
    lines = ["## Sizing accuracy vs published runs", "",
             f"{s['passed']} of {s['cases']} cases pass (" + ", ".join(f"{k} {v['passed']}/{v['cases']}" for k, v in s["by_kind"].items()) + ").", ""]
    rows = la["rows"]
    if rows:
        plots.sizing_cost(rows, out / "sizing_cost.png")
        lines += ["![predicted vs published training cost](sizing_cost.png)", "",
                  "Training cost of published runs, as GPU-hours (days and seconds per iteration times the GPUs used); "
                  "ratio = predicted / published. llm-analysis 0.2.2 runs at its default flops efficiency 1.0 and at our typical MFU, "
                  "ZeRO-3 data parallel, micro-batch 1, in the first layout that fits by its own memory accounting.", ""]
        lines += table(("case", "published GPU-h", "advisor GPU-h", "advisor ratio", "llm-analysis eff 1.0", "llm-analysis at our MFU",
                        "our MFU", "llm-analysis layout"),
                       [(r["id"], fmt(r["published_gpu_hours"]), fmt(r["ours_gpu_hours"]), fmt(r["ours_ratio"]),
                         fmt(r.get("llm_analysis_eff1_ratio")), fmt(r.get("llm_analysis_our_mfu_ratio")), fmt(r["mfu"], 2),
                         r.get("llm_analysis_layout", "cannot express")) for r in rows])
        summary = la["summary"]
        named = {"ours_median_factor": "advisor, every case", "ours_on_expressed_median_factor": "advisor, cases llm-analysis expresses",
                 "llm_analysis_eff1_median_factor": "llm-analysis, efficiency 1.0", "llm_analysis_our_mfu_median_factor": "llm-analysis, our MFU"}
        lines += ["Median factor off the published figure (max(ratio, 1/ratio)):", ""]
        lines += table(("estimator", "median factor"), [(label, fmt(summary[key])) for key, label in named.items() if key in summary])
    if not la["available"]:
        lines += ["llm-analysis is not installed (`pip install --no-deps llm-analysis==0.2.2`): its columns are empty.", ""]
    if la["not_expressible"]:
        lines += ["Cases llm-analysis cannot express:", ""] + [f"- `{c['id']}`: {c['reason']}" for c in la["not_expressible"]] + [""]
    return lines


def _retrieval(results: dict[str, Any], out: Path) -> list[str]:
    from evaluators.retrieval_eval import MODES

    groups = results["retrieval"]["groups"]
    plots.retrieval(groups, MODES, out / "retrieval.png")
    lines = ["## Retrieval", "", f"{results['retrieval']['questions']} labelled questions; recall@5 / MRR by language group.", "",
             "![retrieval by language group](retrieval.png)", ""]
    rows = [(g, row["n"], *(f"{fmt(row[m]['recall@5'])} / {fmt(row[m]['mrr'])}" for m in MODES)) for g, row in groups.items()]
    return lines + table(("group", "n", *MODES), rows)


def _metric_rows(sections: dict[str, dict[str, Any]]) -> list[tuple]:
    names = [k for k in next(iter(sections.values())) if k != "turns"]
    return [(name, *(fmt(s.get(name)) for s in sections.values())) for name in names]


def _measured(section: dict[str, Any]) -> dict[str, Any]:
    """The overall metrics, with rates over zero turns (e.g. abstention when no turn was out of scope) blanked."""
    counts = section.get("counts", {})
    return {k: (None if counts.get(k, 1) == 0 else v) for k, v in section["overall"].items()}


def _conversations(results: dict[str, Any], out: Path) -> list[str]:
    a = results["assistant"]
    sections = {f"conversations ({a['overall']['turns']} turns)": _measured(a)}
    if results.get("heldout"):
        sections[f"held-out ({results['heldout']['overall']['turns']} turns)"] = _measured(results["heldout"])
    lines = ["## Conversations", "", f"{a['conversations']} conversations from evaluators/datasets/conversations.jsonl"
             + (" and the held-out set" if results.get("heldout") else "") + ".", ""]
    lines += table(("metric", *sections), _metric_rows(sections))
    plots.intents(a["per_intent"], out / "intents.png")
    lines += ["![per-intent accuracy](intents.png)", ""]
    lines += table(("intent", "turns", "accuracy"), [(k, v["n"], fmt(v["accuracy"])) for k, v in a["per_intent"].items()])
    return lines


def _baselines(results: dict[str, Any]) -> list[str]:
    naive = results["baselines"].get("naive_rag")
    if not naive:
        return []
    lines = ["## Baseline: naive dense-only LangChain RAG", "",
             "The same index and embedding model; the top 3 dense chunks joined, no tools and no composition "
             "(the baseline bench/bench_chat.py times). Fact recall uses the conversation set's regular expressions.", ""]
    return lines + table(("pipeline", "turns", "fact recall"), [("advisor", naive["turns"], fmt(naive["advisor_fact_recall"])),
                                                               ("naive dense RAG", naive["turns"], fmt(naive["fact_recall"]))])


def _blind(results: dict[str, Any]) -> list[str]:
    if not results.get("blind"):
        return []
    lines = ["## Blind sets", "", "Aggregate metrics only: the questions and per-question failures stay blind to the people tuning the product.", ""]
    for entry in results["blind"]:
        lines += [f"### {entry['set']}", ""]
        lines += table(("metric", "value"), [(k, fmt(v)) for k, v in entry["metrics"].items()])
        lines += table(("category", "n", "intent accuracy", "first-turn pass"),
                       [(c, v["n"], fmt(v["intent_accuracy"]), fmt(v["first_turn_pass"])) for c, v in entry["categories"].items()])
        lines += [f"{entry['failure_count']} turn(s) with at least one problem.", ""]
    return lines


def _router(results: dict[str, Any]) -> list[str]:
    cv = results.get("router_cv")
    lines = []
    if cv:
        lines += ["## Router k-fold cross-validation", "", f"{cv.get('folds')}-fold over {cv.get('exemplars')} exemplars: understander "
                  f"{fmt(cv.get('overall'))}, router alone {fmt(cv.get('router_only'))}; {cv.get('mistakes', 0)} misread exemplars.", ""]
        if cv.get("per_intent"):
            lines += table(("intent", "n", "understander", "router only"),
                           [(k, v["n"], fmt(v["accuracy"]), fmt(v["router_only"])) for k, v in cv["per_intent"].items()])
    if results.get("parity"):
        lines += ["## Channel parity", ""] + table(("metric", "value"), [(k.removeprefix("parity."), fmt(v)) for k, v in
                                                                         results["metrics"].items() if k.startswith("parity.")])
    return lines


def _latency(results: dict[str, Any], out: Path) -> list[str]:
    stages = results["stages"]
    total = results["assistant"]["latency_ms"]
    plots.latency(stages["ms"], total, out / "latency.png")
    rows = [(name, p["n"], fmt(p["p50"], 2), fmt(p["p95"], 2), fmt(p["max"], 2)) for name, p in stages["percentiles"].items()]
    t = results["assistant"]["latency"]
    rows.append(("whole turn (assistant.answer, incl. persisting)", t["n"], fmt(t["p50"], 2), fmt(t["p95"], 2), fmt(t["max"], 2)))
    return ["## Latency per stage", "",
            "The pipeline logs only a turn's total, so the stages are timed from outside by calling the same public pieces on each "
            "conversation's first question: understand (+ follow-up merge), retrieve (time inside index searches), tools (the rest of "
            "the intent handler: sizing tools and its logic), compose (work blocks, Markdown, numeric grounding). The whole-turn row is "
            "the conversation evaluation's measured `answer()` time. Informational: no gate is set on time (see `make bench`).", "",
            "![latency per stage](latency.png)", ""] + table(("stage", "n", "p50 ms", "p95 ms", "max ms"), rows)


def _failing(results: dict[str, Any]) -> list[str]:
    rows: list[tuple] = []
    rows += [("sizing", f["id"], "; ".join(f["why"])) for f in results.get("sizing", {}).get("failing", [])]
    misses = results.get("retrieval", {}).get("misses", [])
    rows += [("retrieval", m["id"], f"[{m['group']}] {m['query'][:90]} — relevant {m['relevant']}, hybrid top 5 {m['top5']}")
             for m in misses[:MAX_FAILURES_PER_SOURCE]]
    for name in ("assistant", "heldout"):
        section = results.get(name)
        if section:
            rows += [(name if name == "heldout" else "conversations", f"{f['intent']}", f"{f['message'][:90]} — {'; '.join(map(str, f['problems']))}")
                     for f in section["failures"][:MAX_FAILURES_PER_SOURCE]]
    for entry in results.get("blind", []):
        if entry.get("failures"):
            rows += [(f"blind {entry['set']}", f"{f['id']}#{f['turn']}", f"{f['question'][:90]} — {'; '.join(f['problems'])}")
                     for f in entry["failures"][:MAX_FAILURES_PER_SOURCE]]
        elif entry["failure_count"]:
            rows.append((f"blind {entry['set']}", f"{entry['failure_count']} turns", "kept blind (run with --blind-failures to list them)"))
    lines = ["## Failing cases", ""]
    if not rows:
        return lines + ["None.", ""]
    counts = {name: len(results[name]["failures"]) for name in ("assistant", "heldout") if results.get(name)}
    lines += [f"At most {MAX_FAILURES_PER_SOURCE} per source (totals: " + ", ".join(f"{k} {v}" for k, v in counts.items())
              + f", retrieval misses {len(misses)}).", ""]
    return lines + table(("source", "case", "problem"), rows)
