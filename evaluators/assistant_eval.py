"""Evaluate the answer pipeline on evaluators/datasets/conversations.jsonl.

Metrics (all deterministic): intent accuracy, slot F1, tool-call accuracy, fact
recall, numeric grounding, citation validity, language match, abstention on
out-of-scope turns, tier agreement and clarification. `python -m
evaluators.assistant_eval [--data-dir DIR] [--json reports/assistant.json]`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.jsonl import read_jsonl

DATASET = Path(__file__).parent / "datasets" / "conversations.jsonl"
SLOT_KEYS = {"model", "params_b", "task", "method", "tokens", "samples", "seq_len", "epochs", "gpu", "gpus", "deadline_hours", "budget",
             "currency", "precision", "data_sensitivity", "yearly_utilization", "concurrency", "context_len", "gpu_utilization"}
TARGETS = {"intent_accuracy": 0.95, "numeric_grounding": 1.0, "citation_validity": 1.0, "language_match": 1.0, "fact_recall": 0.9}
CJK = re.compile(r"[\u4e00-\u9fff]")


def load(path: Path = DATASET) -> list[dict[str, Any]]:
    return [row for _, row in read_jsonl(path)]


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and not isinstance(expected, bool):
        return abs(expected - actual) <= 0.01 * max(abs(expected), 1e-9)
    return expected == actual


def answer_language(markdown: str) -> str:
    """The language of the prose: code, tables, links and the sources list left out."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("|", "- [", "[", "- `", "#")) and "http" not in line)
    text = re.sub(r"https?://\S+|`[^`]*`", " ", text)
    cjk = len(CJK.findall(text))
    latin = len(re.findall(r"[A-Za-z]", text))
    return "zh" if cjk >= 0.2 * latin and cjk > 0 else "en"


@dataclass
class Tally:
    turns: int = 0
    intent_ok: int = 0
    slot_tp: int = 0
    slot_fp: int = 0
    slot_fn: int = 0
    tools_ok: int = 0
    facts_total: int = 0
    facts_hit: int = 0
    grounded_answers: int = 0
    citations_ok: int = 0
    language_ok: int = 0
    oos_total: int = 0
    oos_ok: int = 0
    tier_total: int = 0
    tier_ok: int = 0
    clarify_total: int = 0
    clarify_ok: int = 0
    forbidden_violations: int = 0
    latencies_ms: list[float] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        n = max(self.turns, 1)
        precision = self.slot_tp / max(self.slot_tp + self.slot_fp, 1)
        recall = self.slot_tp / max(self.slot_tp + self.slot_fn, 1)
        return {
            "turns": self.turns,
            "intent_accuracy": self.intent_ok / n,
            "slot_f1": 2 * precision * recall / max(precision + recall, 1e-9),
            "tool_call_accuracy": self.tools_ok / n,
            "fact_recall": self.facts_hit / max(self.facts_total, 1),
            "numeric_grounding": self.grounded_answers / n,
            "citation_validity": self.citations_ok / n,
            "language_match": self.language_ok / n,
            "abstention": self.oos_ok / max(self.oos_total, 1),
            "tier_agreement": self.tier_ok / max(self.tier_total, 1),
            "clarification": self.clarify_ok / max(self.clarify_total, 1),
            "forbidden_violations": self.forbidden_violations,
        }


def score_turn(turn: dict[str, Any], answer: Any, index: Any, tallies: list[Tally], failures: list[dict]) -> None:
    text = answer.answer
    problems: list[str] = []
    called = {c.tool for c in answer.tool_calls}
    checks = {
        "intent": answer.intent == turn["intent"],
        "tools": set(turn["tools"]) <= called and (not turn.get("out_of_scope") or not called),
        "grounded": not answer.grounding.ungrounded,
        "citations": _citations_valid(answer, index),
        "language": answer.language == turn["language"] and answer_language(text) == turn["language"],
    }
    expected_slots = {k: v for k, v in turn["slots"].items() if k in SLOT_KEYS}
    actual_slots = {k: v for k, v in answer.slots.items() if k in SLOT_KEYS}
    tp = sum(1 for k, v in expected_slots.items() if k in actual_slots and _same(v, actual_slots[k]))
    fp = sum(1 for k, v in actual_slots.items() if k not in expected_slots or not _same(expected_slots[k], v))
    fn = len(expected_slots) - tp
    facts = [bool(re.search(f, text, re.I)) for f in turn["facts"]]
    forbidden = [f for f in turn.get("forbidden", []) if re.search(f, text, re.I)]
    for t in tallies:
        t.turns += 1
        t.intent_ok += checks["intent"]
        t.slot_tp, t.slot_fp, t.slot_fn = t.slot_tp + tp, t.slot_fp + fp, t.slot_fn + fn
        t.tools_ok += checks["tools"]
        t.facts_total += len(facts)
        t.facts_hit += sum(facts)
        t.grounded_answers += checks["grounded"]
        t.citations_ok += checks["citations"]
        t.language_ok += checks["language"]
        t.forbidden_violations += len(forbidden)
        if turn.get("out_of_scope"):
            t.oos_total += 1
            t.oos_ok += answer.intent == "out_of_scope" and not called and answer.recommendation is None
        if turn.get("tier"):
            t.tier_total += 1
            t.tier_ok += bool(answer.recommendation) and answer.recommendation.get("tier") == turn["tier"]
        if turn.get("clarify"):
            t.clarify_total += 1
            t.clarify_ok += answer.clarification is not None
    problems = [k for k, ok in checks.items() if not ok]
    if fn or fp:
        problems.append(f"slots expected={expected_slots} got={actual_slots}")
    if not all(facts):
        problems.append(f"facts missing={[f for f, ok in zip(turn['facts'], facts) if not ok]}")
    if forbidden:
        problems.append(f"forbidden={forbidden}")
    if turn.get("tier") and (not answer.recommendation or answer.recommendation.get("tier") != turn["tier"]):
        problems.append(f"tier expected={turn['tier']} got={answer.recommendation.get('tier') if answer.recommendation else None}")
    if problems:
        failures.append({"message": turn["message"][:120], "intent": f"{turn['intent']}->{answer.intent}", "problems": problems,
                         "ungrounded": answer.grounding.ungrounded[:5]})


def _citations_valid(answer: Any, index: Any) -> bool:
    prose = re.sub(r"`[^`\n]*`", " ", re.sub(r"```.*?```", " ", answer.answer, flags=re.S))
    markers = {int(m) for m in re.findall(r"\[(\d+)\]", prose)}
    if any(m < 1 or m > len(answer.citations) for m in markers):
        return False
    from service.assistant.capabilities.diagnose import curated_source_ids

    curated = curated_source_ids()  # a curated table's documented source (an error's explanation, an engine's settings)
    return all(c.id in curated or index.get(c.id) is not None for c in answer.citations)


def evaluate(data_dir: Path, conversations: list[dict[str, Any]] | None = None, *,
             on_turn: Callable[[], None] | None = None) -> dict[str, Any]:
    """Metrics overall and per group, per-intent accuracy, failures and one row per turn (intent, latency).

    `on_turn` is called after every turn (the `advisor eval` progress bar)."""
    from service.assistant.answer import ChatRequest
    from service.config import Settings
    from service.runtime import Runtime

    runtime = Runtime(Settings(data_dir=data_dir, environment="test"))
    index = runtime.open_index()
    assistant = runtime.assistant
    overall = Tally()
    groups: dict[str, Tally] = defaultdict(Tally)
    failures: list[dict] = []
    rows: list[dict[str, Any]] = []
    try:
        for conv in conversations or load():
            conversation_id = None
            for turn in conv["turns"]:
                started = time.perf_counter()
                answer = assistant.answer(ChatRequest(message=turn["message"], conversation_id=conversation_id))
                elapsed_ms = (time.perf_counter() - started) * 1000
                overall.latencies_ms.append(elapsed_ms)
                conversation_id = answer.conversation_id
                score_turn(turn, answer, index, [overall, groups[conv["group"]]], failures)
                rows.append({"group": conv["group"], "expected_intent": turn["intent"], "intent": answer.intent, "latency_ms": elapsed_ms})
                if on_turn is not None:
                    on_turn()
    finally:
        runtime.close()
    return {"overall": overall.metrics(), "groups": {g: t.metrics() for g, t in sorted(groups.items())}, "failures": failures,
            "latency_ms_p50": sorted(overall.latencies_ms)[len(overall.latencies_ms) // 2] if overall.latencies_ms else None,
            "per_intent": per_intent(rows), "turns": rows,
            # Denominators of the conditional metrics: a rate over zero turns is not a measurement.
            "counts": {"abstention": overall.oos_total, "tier_agreement": overall.tier_total, "clarification": overall.clarify_total}}


def per_intent(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Accuracy by the labelled intent: of the turns labelled X, how many were read as X."""
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        by[row["expected_intent"]][0] += 1
        by[row["expected_intent"]][1] += row["intent"] == row["expected_intent"]
    return {intent: {"n": n, "accuracy": ok / n} for intent, (n, ok) in sorted(by.items())}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None, help="an index/data directory to reuse (default: a fresh temporary one)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--failures", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = evaluate(args.data_dir or Path(tmp))
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Assistant evaluation")
    table.add_column("metric")
    for name in ["overall", *report["groups"]]:
        table.add_column(name, justify="right")
    table.add_column("target", justify="right")
    for metric in report["overall"]:
        row = [metric, *(f"{m[metric]:.3f}" if isinstance(m[metric], float) else str(m[metric]) for m in [report["overall"], *report["groups"].values()])]
        table.add_row(*row, f">= {TARGETS[metric]}" if metric in TARGETS else "")
    console = Console()
    console.print(table)
    for failure in report["failures"][: args.failures]:
        console.print(f"[yellow]✗[/] {failure['message']}  [{failure['intent']}]  {'; '.join(map(str, failure['problems']))}  {failure['ungrounded']}")
    console.print(f"{len(report['failures'])} turn(s) with at least one problem; p50 {report['latency_ms_p50']:.1f} ms")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
