"""`advisor eval` / `python -m evaluators` / `make eval`: every evaluation, one report, quality gates.

Runs sizing accuracy against published runs, retrieval (dense / BM25 / hybrid), the conversation
set and the held-out set, every blind set, the router's k-fold cross-validation and channel parity
(when those evaluators exist), the per-stage latency pass and the two baselines; writes
<out>/report.md, PNG figures and results.json; then applies evaluators/gates.yaml and exits 1
naming every metric below its threshold. `--fast` (CI, under a minute) runs sizing, a sample of
the retrieval questions and 30 conversations, with no blind sets, held-out set or cross-validation.

Blind sets stay blind: only their aggregate metrics enter the report unless --blind-failures.
"""

from __future__ import annotations

import datetime as dt
import importlib
import importlib.util
import json
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators import gates as gating

FAST_CONVERSATIONS = 30  # spread evenly over the conversation set
FAST_RETRIEVAL_EVERY = 4  # every 4th labelled question (deterministic, spans all groups)
PARITY_MODULES = ("evaluators.parity_eval", "evaluators.channel_parity", "evaluators.parity")


@dataclass
class Options:
    fast: bool = False
    out: Path | None = None
    data_dir: Path | None = None  # an indexed data directory to copy from (never written)
    gates_file: Path = gating.GATES
    blind_failures: bool = False
    from_results: Path | None = None


def default_out(now: dt.datetime | None = None) -> Path:
    return Path("reports") / f"eval-{(now or dt.datetime.now(dt.UTC)).date().isoformat()}"


class _ProgressIndex:
    """The index, advancing a progress bar on every search (retrieval_eval searches 3 times per question)."""

    def __init__(self, index: Any, advance) -> None:
        self._index, self._advance = index, advance

    def search(self, *args: Any, **kwargs: Any):
        try:
            return self._index.search(*args, **kwargs)
        finally:
            self._advance()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


@contextmanager
def _working_copy(source: Path | None):
    """A private copy of an indexed data directory: the evaluations write conversations into it."""
    from service.catalog import default_catalog
    from service.config import get_settings
    from service.retrieval import ingest

    if source is None:
        settings = get_settings()
        source = settings.data_dir / "eval-index" / settings.embedding_backend
        eval_settings = settings.model_copy(update={"data_dir": source, "chroma_url": None})
        ingest(eval_settings, default_catalog(eval_settings.knowledge_dir))  # incremental: today's documents
    with tempfile.TemporaryDirectory(prefix="advisor-eval-") as tmp:
        target = Path(tmp) / "data"
        shutil.copytree(source, target)
        yield target


def run(options: Options, progress: Any) -> dict[str, Any]:
    """Every evaluation; `progress` is a rich Progress (or anything with add_task / advance / update)."""
    from evaluators import assistant_eval, baselines, retrieval_eval, sizing_eval, stage_timing
    from service.catalog import default_catalog

    catalog = default_catalog()
    results: dict[str, Any] = {"profile": "fast" if options.fast else "full", "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                               "metrics": {}, "errors": [], "not_run": []}
    metrics = results["metrics"]

    # Sizing: every case, fast or not (deterministic arithmetic, well under a second).
    cases = sizing_eval.load_cases()
    task = progress.add_task("sizing vs published runs", total=len(cases))
    outcomes = []
    for case in cases:
        outcomes.append(sizing_eval.evaluate_case(case, catalog))
        progress.advance(task)
    summary = sizing_eval.summary(outcomes)
    metrics["sizing.pass_rate"] = summary["passed"] / summary["cases"]
    for kind, row in summary["by_kind"].items():
        metrics[f"sizing.{kind}.pass_rate"] = row["passed"] / row["cases"]
    results["sizing"] = {"summary": summary, "failing": [{"id": o.id, "check": o.check, "estimate": o.shown, "published": o.published,
                                                          "ratio": o.ratio, "why": o.why} for o in outcomes if not o.passed]}
    task = progress.add_task("llm-analysis baseline", total=1)
    comparison = baselines.compare_with_llm_analysis(cases, catalog)
    progress.advance(task)
    results["baselines"] = {"llm_analysis": comparison}
    rows = comparison["rows"]
    metrics["sizing.training_cost_within_2x"] = sum(0.5 <= r["ours_ratio"] <= 2 for r in rows) / max(len(rows), 1)
    if "ours_median_factor" in comparison["summary"]:
        metrics["sizing.training_cost_median_factor"] = comparison["summary"]["ours_median_factor"]

    # `advisor validate`: the step-time, band, memory and KV-capacity error tables on the held-out half.
    from evaluators import validate

    task = progress.add_task("advisor validate (held-out half)", total=1)
    check = validate.run(catalog)
    progress.advance(task)
    metrics.update(validate.metrics(check))
    results["validate"] = {"summary": check["summary"], "shortfalls": check["shortfalls"], "by_source": check["by_source"],
                           "by_generation": check["by_generation"]}

    conversations = assistant_eval.load()
    if options.fast:  # spread over the file, so every group and the out-of-scope turns are in the sample
        conversations = conversations[:: max(1, len(conversations) // FAST_CONVERSATIONS)][:FAST_CONVERSATIONS]
    with _working_copy(options.data_dir) as data_dir:
        # Conversations first: each evaluation builds (and closes) its own runtime over the copy.
        task = progress.add_task("conversations", total=sum(len(c["turns"]) for c in conversations))
        report = assistant_eval.evaluate(data_dir, conversations, on_turn=lambda: progress.advance(task))
        results["assistant"] = _assistant_section(report, len(conversations))
        metrics.update(_assistant_metrics("assistant", report))
        if options.fast:
            results["not_run"].append("held-out conversations (full run only)")
        else:
            heldout = assistant_eval.load(assistant_eval.DATASET.with_name("conversations.heldout.jsonl"))
            task = progress.add_task("held-out conversations", total=sum(len(c["turns"]) for c in heldout))
            report = assistant_eval.evaluate(data_dir, heldout, on_turn=lambda: progress.advance(task))
            results["heldout"] = _assistant_section(report, len(heldout))
            metrics.update(_assistant_metrics("heldout", report))
        _blind(options, data_dir, results, progress)

        from service.config import Settings
        from service.runtime import Runtime

        runtime = Runtime(Settings(data_dir=data_dir, environment="test"))
        try:
            index = runtime.open_index()
            questions = retrieval_eval.load_questions()
            if options.fast:
                questions = questions[::FAST_RETRIEVAL_EVERY]
            task = progress.add_task("retrieval (dense / BM25 / hybrid)", total=len(questions) * len(retrieval_eval.MODES))
            retrieval = retrieval_eval.evaluate(_ProgressIndex(index, lambda: progress.advance(task)), questions)
            results["retrieval"] = {"groups": retrieval["groups"], "misses": retrieval["misses"], "questions": len(questions)}
            for group, row in retrieval["groups"].items():
                for mode in retrieval_eval.MODES:
                    for metric in ("recall@5", "mrr"):
                        metrics[f"retrieval.{group}.{mode}.{metric}"] = row[mode][metric]

            messages = [c["turns"][0]["message"] for c in conversations]
            task = progress.add_task("latency per stage", total=len(messages))
            try:
                stages = stage_timing.time_stages(messages, runtime.catalog, index, runtime.assistant.understander,
                                                  on_message=lambda: progress.advance(task))
                results["stages"] = {"ms": stages, "percentiles": {k: stage_timing.percentiles(v) for k, v in stages.items()}}
            except Exception as exc:  # the pipeline's pieces changed under the timer: report it, keep the rest of the run
                results["errors"].append(f"latency per stage: {type(exc).__name__}: {exc}")

            turns = [t for c in conversations for t in c["turns"]]
            task = progress.add_task("naive dense LangChain RAG", total=len(turns))
            naive = baselines.naive_rag_fact_recall(index, turns, on_turn=lambda: progress.advance(task))
            results["baselines"]["naive_rag"] = {**naive, "advisor_fact_recall": results["assistant"]["overall"]["fact_recall"]}
        finally:
            runtime.close()

    _router_cv(options, results, progress)
    _parity(results, progress)
    return results


def _assistant_metrics(prefix: str, report: dict[str, Any]) -> dict[str, float]:
    counts = report.get("counts", {})
    return {f"{prefix}.{k}": float(v) for k, v in report["overall"].items() if k != "turns" and counts.get(k, 1) > 0}


def _assistant_section(report: dict[str, Any], conversations: int) -> dict[str, Any]:
    latencies = [row["latency_ms"] for row in report["turns"]]
    from evaluators.stage_timing import percentiles

    return {"conversations": conversations, "overall": report["overall"], "groups": report["groups"], "per_intent": report["per_intent"],
            "failures": report["failures"], "latency_ms": latencies, "latency": percentiles(latencies), "counts": report.get("counts", {})}


def _blind(options: Options, data_dir: Path, results: dict[str, Any], progress: Any) -> None:
    from evaluators import blind_eval

    results["blind"] = []
    if options.fast:
        results["not_run"].append("blind sets (full run only)")
        return
    for path in blind_eval.sets():
        task = progress.add_task(f"blind set {path.stem}", total=1)
        try:
            report = blind_eval.evaluate(path, data_dir)
        except Exception as exc:  # one broken set is reported, the others still run
            results["errors"].append(f"blind set {path.stem}: {type(exc).__name__}: {exc}")
            continue
        finally:
            progress.advance(task)
        entry = {"set": report["set"], "metrics": report["metrics"], "categories": report["categories"], "failure_count": len(report["failures"])}
        if options.blind_failures:
            entry["failures"] = report["failures"]
        results["blind"].append(entry)
        results["metrics"].update({f"blind.{report['set']}.{k}": float(v) for k, v in report["metrics"].items() if k != "turns"})


def _router_cv(options: Options, results: dict[str, Any], progress: Any) -> None:
    if options.fast:
        results["not_run"].append("router k-fold cross-validation (full run only)")
        return
    if importlib.util.find_spec("evaluators.router_cv") is None:
        results["not_run"].append("router k-fold cross-validation (evaluators/router_cv.py not present)")
        return
    task = progress.add_task("router k-fold cross-validation", total=1)
    try:
        report = importlib.import_module("evaluators.router_cv").cross_validate()
    except Exception as exc:
        results["errors"].append(f"router_cv: {type(exc).__name__}: {exc}")
        return
    finally:
        progress.advance(task)
    results["router_cv"] = {k: report[k] for k in ("folds", "exemplars", "overall", "router_only", "per_intent", "per_language") if k in report}
    results["router_cv"]["mistakes"] = len(report.get("mistakes", []))
    for key in ("overall", "router_only"):
        if isinstance(report.get(key), (int, float)):
            results["metrics"][f"router_cv.{key}"] = float(report[key])


def _parity(results: dict[str, Any], progress: Any) -> None:
    """Channel parity, when an evaluator for it exists: its `evaluate()` or `run()` returning numeric metrics."""
    name = next((m for m in PARITY_MODULES if importlib.util.find_spec(m) is not None), None)
    if name is None:
        results["not_run"].append("channel parity (no parity evaluator yet)")
        return
    module = importlib.import_module(name)
    entry = getattr(module, "evaluate", None) or getattr(module, "run", None)
    if entry is None:
        results["not_run"].append(f"channel parity ({name} has no evaluate() or run())")
        return
    task = progress.add_task("channel parity", total=1)
    try:
        report = entry()
    except Exception as exc:
        results["errors"].append(f"{name}: {type(exc).__name__}: {exc}")
        return
    finally:
        progress.advance(task)
    numbers = report.get("metrics", report.get("overall", report)) if isinstance(report, dict) else {}
    results["parity"] = report if isinstance(report, dict) else {"result": repr(report)}
    results["metrics"].update({f"parity.{k}": float(v) for k, v in numbers.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})


def finish(results: dict[str, Any], out: Path, gates_file: Path = gating.GATES) -> tuple[list[gating.Verdict], Path]:
    """Apply the gates, write report.md, the figures and results.json; (verdicts, report path)."""
    from evaluators import report as reporting

    gate_list = gating.load_gates(results["profile"], gates_file)
    verdicts = gating.apply_gates(results["metrics"], gate_list)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    path = reporting.write(results, verdicts, gating.ungated(results["metrics"], gate_list), out)
    return verdicts, path


def _bad_input(options: Options) -> str | None:
    """A message naming the option at fault, checked before any evaluation runs (exit code 2)."""
    if options.data_dir is not None and not options.data_dir.is_dir():
        return f"--data-dir: {options.data_dir} is not a directory"
    try:
        for profile in gating.PROFILES:
            gating.load_gates(profile, options.gates_file)
    except FileNotFoundError:
        return f"--gates: {options.gates_file} does not exist"
    except (ValueError, AttributeError) as exc:
        return f"--gates: {exc}"
    if options.from_results is not None:
        try:
            results = json.loads(options.from_results.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return f"--from-results: {options.from_results} does not exist"
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return f"--from-results: not a results.json ({exc})"
        if not isinstance(results, dict) or results.get("profile") not in gating.PROFILES or not isinstance(results.get("metrics"), dict):
            return "--from-results: a results.json needs 'profile' (full or fast) and 'metrics'"
    return None


def main(options: Options) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    problem = _bad_input(options)
    if problem:
        console.print(f"[red]{problem}[/]")
        return 2
    if options.from_results is not None:
        results = json.loads(options.from_results.read_text(encoding="utf-8"))
    else:
        columns = (SpinnerColumn(), TextColumn("{task.description:<36}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            results = run(options, progress)
    out = options.out or default_out()
    verdicts, path = finish(results, out, options.gates_file)
    measured = [v for v in verdicts if v.measured]
    console.print(f"report: {path}  ({len(measured)} gated metrics measured, {results['profile']} profile)")
    for error in results.get("errors", []):
        console.print(f"[red]evaluator failed:[/] {error}")
    failures = gating.failed(verdicts)
    for v in failures:
        console.print(f"[red]GATE FAILED[/] {v.gate.metric} = {v.value:.4g}, threshold {v.gate.describe()}")
    if not failures and not results.get("errors"):
        console.print("[green]all gates pass[/]")
    return 1 if failures or results.get("errors") else 0
