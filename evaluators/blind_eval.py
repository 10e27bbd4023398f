"""Score the pipeline on blind sets: questions written by people who never saw the code,
the knowledge base or the other datasets (evaluators/datasets/blind/*.jsonl).

Each line is a conversation: `{"id", "lang", "category", "turns": [{"user", "expect":
answer|clarify|refuse, "must": [[alternatives...], ...], "ranges": [{"label", "min", "max",
"unit"}]}]}`. A turn passes as an expert answer when it does what `expect` says and, for
answers, contains one alternative of every `must` group (case-insensitive) and a number in
every range. The writers' categories are product-level; CATEGORY_INTENTS maps them to the
intents that answer them.

`python -m evaluators.blind_eval [--set blind_set_1] [--json out.json] [--failures 30]`
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from evaluators.assistant_eval import answer_language
from evaluators.jsonl import read_jsonl

BLIND_DIR = Path(__file__).parent / "datasets" / "blind"
CATEGORY_INTENTS: dict[str, set[str]] = {
    "faq": {"faq"},
    "spec": {"spec", "faq"},
    "sizing": {"sizing"},
    "recommend": {"recommend", "sizing"},
    "fit": {"sizing", "recommend"},
    # Serving plans are computed (sizing/recommend); latency-tuning questions (TTFT, speculative decoding) are knowledge.
    "inference": {"sizing", "recommend", "faq"},
    "compare": {"compare"},
    "cloud_vs_onprem": {"cloud_vs_onprem"},
    "claim_check": {"claim_check"},
    "diagnostics": {"diagnostics"},
    # "What busbw should all_reduce_perf reach" is the nccl-expected tool's exact answer (issue 7: exact tools first).
    "preflight": {"preflight", "sizing"},
    "smalltalk": {"smalltalk"},
    "out_of_scope": {"out_of_scope"},
}
SCALES_EN = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
SCALES_ZH = {"万亿": 1e12, "亿": 1e8, "万": 1e4, "千": 1e3}
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(万亿|亿|万|千|[kKMBT](?![a-zA-Z])))?")
SOURCES_HEAD = re.compile(r"^\*\*(?:Sources|来源)\*\*\s*$", re.M)


# Issue 7's targets for the headline, the newest blind set on its first run: at least for rates, at most for counts.
HEADLINE_TARGETS: dict[str, tuple[str, float]] = {
    "expert_pass_rate": ("min", 0.85),
    "intent_accuracy": ("min", 0.92),
    "in_scope_refusals": ("max", 0),
    "unneeded_clarifications": ("max", 0),
    "numeric_grounding": ("min", 1.0),
    "citation_validity": ("min", 1.0),
    "language_match": ("min", 1.0),
}


def sets() -> list[Path]:
    """Every blind set, oldest first (by the number in its name, so set 10 comes after set 9)."""
    return sorted(BLIND_DIR.glob("*.jsonl"), key=lambda p: (int(re.sub(r"\D", "", p.stem) or 0), p.stem))


def headline() -> Path:
    """The newest blind set: its first run is the headline."""
    return sets()[-1]


def missed_targets(metrics: dict[str, float]) -> list[str]:
    """The headline targets these metrics miss, each as 'metric value (target)'."""
    missed = []
    for metric, (kind, bound) in HEADLINE_TARGETS.items():
        value = metrics[metric]
        if (value < bound) if kind == "min" else (value > bound):
            missed.append(f"{metric} {value:g} ({'>=' if kind == 'min' else '<='} {bound:g})")
    return missed


def answer_text(markdown: str) -> str:
    """What the reader is told: the answer without its trailing sources list."""
    match = SOURCES_HEAD.search(markdown)
    return markdown[: match.start()] if match else markdown


UNITS: dict[str, tuple[str, float]] = {  # spelling -> (family, size in the family's base unit)
    "b": ("bytes", 1), "kb": ("bytes", 1e3), "mb": ("bytes", 1e6), "gb": ("bytes", 1e9), "tb": ("bytes", 1e12), "pb": ("bytes", 1e15),
    "kib": ("bytes", 2**10), "mib": ("bytes", 2**20), "gib": ("bytes", 2**30), "tib": ("bytes", 2**40),
    "gb/s": ("rate", 1e9), "tb/s": ("rate", 1e12), "mb/s": ("rate", 1e6), "gbps": ("rate", 1e9 / 8), "gb/s-bits": ("rate", 1e9 / 8),
    "gbit/s": ("rate", 1e9 / 8), "gb/s (bits)": ("rate", 1e9 / 8),
    "minutes": ("time", 60), "minute": ("time", 60), "min": ("time", 60), "分钟": ("time", 60),
    "hours": ("time", 3600), "hour": ("time", 3600), "h": ("time", 3600), "小时": ("time", 3600),
    "days": ("time", 86400), "day": ("time", 86400), "天": ("time", 86400),
    "weeks": ("time", 604800), "week": ("time", 604800), "周": ("time", 604800),
    "months": ("time", 2592000), "month": ("time", 2592000), "个月": ("time", 2592000),
    "years": ("time", 31536000), "year": ("time", 31536000), "年": ("time", 31536000),
}
UNIT_AFTER = re.compile(r"\s*(TiB|GiB|MiB|KiB|TB/s|GB/s|MB/s|Gb/s|Gbps|PB|TB|GB|MB|minutes?|min|hours?|h\b|days?|weeks?|months?|years?|"
                        r"分钟|小时|天|周|个月|年)", re.I)


def numbers_in(text: str, unit: str | None) -> list[float]:
    """Every number in the text, plus those followed by a unit converted to `unit` when both are of one family."""
    found = numbers(text)
    target = UNITS.get((unit or "").strip().lower())
    if target is None:
        return found
    for match in NUMBER.finditer(text):
        after = UNIT_AFTER.match(text, match.end())
        if not after:
            continue
        spelled = after.group(1)
        source = UNITS.get("gbps" if spelled == "Gb/s" else spelled.lower())
        if source is None or source[0] != target[0]:
            continue
        value = float(match.group(1).replace(",", ""))
        if match.group(2):
            value *= SCALES_ZH.get(match.group(2)) or SCALES_EN[match.group(2)]
        found.append(value * source[1] / target[1])
    return found


def numbers(text: str) -> list[float]:
    found: list[float] = []
    for raw, suffix in NUMBER.findall(text):
        value = float(raw.replace(",", ""))
        found.append(value)
        if suffix:
            found.append(value * (SCALES_ZH.get(suffix) or SCALES_EN[suffix]))
    return found


def judge_turn(turn: dict[str, Any], answer: Any) -> tuple[bool, list[str]]:
    """(expert pass, problems) for one turn."""
    expect = turn.get("expect", "answer")
    text = answer_text(answer.answer)
    problems: list[str] = []
    if expect == "refuse":
        if answer.intent != "out_of_scope" or answer.tool_calls or answer.recommendation:
            problems.append(f"expected a scope notice, got {answer.intent}")
        return not problems, problems
    if answer.intent == "out_of_scope":
        problems.append("refused an in-scope question")
    if expect == "clarify":
        if answer.clarification is None:
            problems.append("expected a clarifying question")
        return not problems, problems
    if answer.clarification is not None:
        problems.append(f"asked an unneeded clarification: {answer.clarification.question[:80]}")
    lowered = text.lower()
    for group in turn.get("must", []):
        if not any(alt.lower() in lowered for alt in group):
            problems.append(f"missing one of {group}")
    for rng in turn.get("ranges", []):
        if not any(rng["min"] <= v <= rng["max"] for v in numbers_in(text, rng.get("unit"))):
            problems.append(f"no number in [{rng['min']}, {rng['max']}] {rng.get('unit', '')} for {rng.get('label', '')}")
    return not problems, problems


def _citations_valid(answer: Any) -> bool:
    prose = re.sub(r"`[^`\n]*`", " ", re.sub(r"```.*?```", " ", answer.answer, flags=re.S))
    return all(1 <= int(m) <= len(answer.citations) for m in re.findall(r"\[(\d+)\]", prose))


def evaluate(path: Path, data_dir: Path) -> dict[str, Any]:
    from service.assistant.answer import ChatRequest
    from service.config import Settings
    from service.runtime import Runtime

    runtime = Runtime(Settings(data_dir=data_dir, environment="test"))
    runtime.open_index()
    assistant = runtime.assistant
    counts: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    failures: list[dict[str, Any]] = []
    try:
        for _, item in read_jsonl(path):
            conversation_id = None
            for position, turn in enumerate(item["turns"]):
                answer = assistant.answer(ChatRequest(message=turn["user"], conversation_id=conversation_id))
                conversation_id = answer.conversation_id
                passed, problems = judge_turn(turn, answer)
                expect = turn.get("expect", "answer")
                counts["turns"] += 1
                counts["expert_pass"] += passed
                counts["grounded"] += not answer.grounding.ungrounded
                counts["citations_valid"] += _citations_valid(answer)
                counts["language_match"] += answer.language == item["lang"] and (
                    expect == "refuse" or answer_language(answer.answer) == item["lang"])
                counts["in_scope"] += expect != "refuse"
                counts["in_scope_refusals"] += expect != "refuse" and answer.intent == "out_of_scope"
                counts["answer_expected"] += expect == "answer"
                counts["unneeded_clarifications"] += expect == "answer" and answer.clarification is not None
                if position == 0:
                    intent_ok = answer.intent in CATEGORY_INTENTS.get(item["category"], {item["category"]})
                    counts["first_turns"] += 1
                    counts["intent_ok"] += intent_ok
                    by_category[item["category"]]["n"] += 1
                    by_category[item["category"]]["intent_ok"] += intent_ok
                    by_category[item["category"]]["pass"] += passed
                    if not intent_ok:
                        problems = [f"intent {item['category']}->{answer.intent}", *problems]
                if problems:
                    failures.append({"id": item["id"], "turn": position + 1, "question": turn["user"][:140], "intent": answer.intent,
                                     "problems": problems})
    finally:
        runtime.close()
    n = max(counts["turns"], 1)
    metrics = {
        "turns": counts["turns"],
        "expert_pass_rate": counts["expert_pass"] / n,
        "intent_accuracy": counts["intent_ok"] / max(counts["first_turns"], 1),
        "in_scope_refusals": counts["in_scope_refusals"],
        "unneeded_clarifications": counts["unneeded_clarifications"],
        "numeric_grounding": counts["grounded"] / n,
        "citation_validity": counts["citations_valid"] / n,
        "language_match": counts["language_match"] / n,
    }
    categories = {c: {"n": v["n"], "intent_accuracy": v["intent_ok"] / v["n"], "first_turn_pass": v["pass"] / v["n"]}
                  for c, v in sorted(by_category.items())}
    return {"set": path.stem, "metrics": metrics, "categories": categories, "failures": failures}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", default=None, help="a set's name (file stem); default: every set")
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--failures", type=int, default=30)
    args = parser.parse_args(argv)
    paths = [BLIND_DIR / f"{name}.jsonl" for name in args.set] if args.set else sets()
    reports = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            report = evaluate(path, args.data_dir or Path(tmp))
            reports.append(report)
            print(f"\n== {report['set']} ==")
            for key, value in report["metrics"].items():
                print(f"  {key:26s} {value:.3f}" if isinstance(value, float) else f"  {key:26s} {value}")
            for category, row in report["categories"].items():
                print(f"  {category:18s} n={row['n']:3d} intent={row['intent_accuracy']:.2f} pass={row['first_turn_pass']:.2f}")
            for failure in report["failures"][: args.failures]:
                print(f"  ✗ {failure['id']}#{failure['turn']} [{failure['intent']}] {failure['question']} :: {'; '.join(failure['problems'])}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(reports, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
