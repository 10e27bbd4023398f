"""Score the advisor on real questions (evaluators/datasets/real/): run, keyword-check, pack for a grader, aggregate grades.

A real question is graded 0/1/2 against its thread's accepted answer by a grader who sees the question, the
accepted answer's key points, the rubric and our answer, but not the code. The keyword groups (`must`) are a
cheap check beside it, never the headline: `score` reports how often the two agree.

    python -m evaluators.real_eval run --set dev --out DIR            # answers + keyword check -> DIR/answers.jsonl, DIR/packet.md
    python -m evaluators.real_eval run --set sealed_real_1 --out DIR  # the same for a sealed set (DIR outside the repository)
    python -m evaluators.real_eval score --answers DIR/answers.jsonl --grades DIR/grades.jsonl [--record NAME --label start]

`grades.jsonl`: one line per graded turn, {"id", "turn": 1, "grade": 0|1|2, "reason"}. `--record` writes
evaluators/results/<NAME>.<label>.json with the metrics and per-id grades (no question text, so a sealed
set stays sealed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from evaluators.assistant_eval import answer_language
from evaluators.blind_eval import CATEGORY_INTENTS, judge_turn
from evaluators.real_sets import dev_items, unseal

RESULTS_DIR = Path(__file__).parent / "results"
# Issue 25's targets for the sealed set at the end of a round.
SEALED_TARGETS = {"share_graded_2": ("min", 0.70), "share_graded_0": ("max", 0.10), "mean_grade": ("min", 1.6),
                  "language_match": ("min", 1.0)}


GENERIC_RUBRIC = {"2": "an expert would accept it: answers what was asked, correctly, with the points the writer expected",
                  "1": "partly useful: some right points, but misses the main one, buries it or hedges",
                  "0": "misses the question, is wrong, refuses or asks a needless question"}


def blind_items(name: str) -> list[dict[str, Any]]:
    """A synthetic blind set as real-set items, for the same 0/1/2 grading: it has no thread, so the grader judges as an expert,
    with the writer's expected points (its keyword groups) as the key points."""
    from evaluators.blind_eval import BLIND_DIR

    items = []
    for line in (BLIND_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        expected = [" / ".join(group) for turn in item["turns"] for group in turn.get("must", [])]
        items.append({"id": item["id"], "lang": item["lang"], "category": item["category"], "source": "synthetic",
                      "turns": [{"user": t["user"], "expect": t.get("expect", "answer"), "must": t.get("must", []), "ranges": t.get("ranges", [])}
                                for t in item["turns"]],
                      "accepted_answer": "(a synthetic question written by someone imagining users: no thread; judge as an expert would; "
                                         + ("it expects a refusal or a clarifying question" if item["turns"][0].get("expect") != "answer" else
                                            "the writer expected the points below") + ")",
                      "key_points": expected or ["(none listed)"], "must": item["turns"][0].get("must", []), "rubric": GENERIC_RUBRIC})
    return items


def load(set_name: str) -> list[dict[str, Any]]:
    if set_name == "dev":
        return dev_items()
    if set_name.startswith("blind_set_"):
        return blind_items(set_name)
    return unseal(set_name)


def visible_and_folded(answer: Any) -> tuple[str, str, list[str]]:
    """What the reader sees first, the work folded behind it, and the sources — each as Markdown."""
    from service.render import markdown

    lang = answer.language
    shown = [b for b in answer.blocks if b.type not in ("work", "sources")]
    folded = [b for b in answer.blocks if b.type == "work"]
    sources = [f"[{i}] {c.title} — {c.source}" for i, c in enumerate(answer.citations, 1)]
    return markdown.render(shown, lang), markdown.render(folded, lang) if folded else "", sources


def run(set_name: str, out: Path, data_dir: Path) -> list[dict[str, Any]]:
    from service.assistant.answer import ChatRequest
    from service.config import Settings
    from service.runtime import Runtime

    runtime = Runtime(Settings(data_dir=data_dir, environment="test"))
    runtime.open_index()
    rows: list[dict[str, Any]] = []
    try:
        for item in load(set_name):
            conversation_id = None
            for position, turn in enumerate(item["turns"], 1):
                answer = runtime.assistant.answer(ChatRequest(message=turn["user"], conversation_id=conversation_id))
                conversation_id = answer.conversation_id
                keyword_pass, problems = judge_turn({"expect": turn.get("expect", "answer"), "must": item["must"] if position == 1 else turn.get("must", []),
                                                     "ranges": turn.get("ranges", [])}, answer)
                shown, folded, sources = visible_and_folded(answer)
                rows.append({"id": item["id"], "turn": position, "lang": item["lang"], "category": item["category"], "intent": answer.intent,
                             "keyword_pass": keyword_pass, "keyword_problems": problems,
                             "language_ok": answer_language(answer.answer) == item["lang"] and answer.language == item["lang"],
                             "grounded": not answer.grounding.ungrounded, "answer_shown": shown, "answer_folded": folded, "sources": sources,
                             "intent_ok": answer.intent in CATEGORY_INTENTS.get(item["category"], {item["category"]})})
    finally:
        runtime.close()
    out.mkdir(parents=True, exist_ok=True)
    (out / "answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    (out / "packet.md").write_text(packet(load(set_name), rows), encoding="utf-8")
    return rows


def packet(items: list[dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    """One Markdown file a grader reads: per thread the question, the accepted answer, the rubric and our answer."""
    answers = defaultdict(list)
    for row in rows:
        answers[row["id"]].append(row)
    parts = []
    for item in items:
        parts.append(f"\n\n======== {item['id']} ({item['lang']}, {item['category']}) ========\n")
        for row, turn in zip(answers[item["id"]], item["turns"], strict=True):
            parts.append(f"\n---- USER (turn {row['turn']}) ----\n{turn['user']}\n")
            parts.append(f"\n---- OUR ANSWER (turn {row['turn']}): shown ----\n{row['answer_shown']}\n")
            if row["answer_folded"]:
                parts.append(f"\n---- OUR ANSWER (turn {row['turn']}): work, folded behind a 'how this was computed' toggle ----\n{row['answer_folded']}\n")
            if row["sources"]:
                parts.append("\n---- OUR ANSWER: sources ----\n" + "\n".join(row["sources"]) + "\n")
        parts.append(f"\n---- ACCEPTED ANSWER (from the thread) ----\n{item['accepted_answer']}\n")
        parts.append("\n---- KEY POINTS ----\n" + "\n".join(f"- {p}" for p in item["key_points"]) + "\n")
        parts.append("\n---- RUBRIC ----\n" + "\n".join(f"{g}: {item['rubric'][g]}" for g in ("2", "1", "0")) + "\n")
    return "".join(parts)


def score(rows: list[dict[str, Any]], grades: list[dict[str, Any]]) -> dict[str, Any]:
    graded = {(g["id"], int(g.get("turn", 1))): int(g["grade"]) for g in grades}
    missing = [(r["id"], r["turn"]) for r in rows if (r["id"], r["turn"]) not in graded]
    if missing:
        raise ValueError(f"{len(missing)} answers have no grade, e.g. {missing[:3]}")
    n = len(rows)
    values = [graded[(r["id"], r["turn"])] for r in rows]
    counts = Counter(values)
    agree = sum((graded[(r["id"], r["turn"])] == 2) == r["keyword_pass"] for r in rows)
    by_lang: dict[str, list[int]] = defaultdict(list)
    by_category: dict[str, list[int]] = defaultdict(list)
    for row, value in zip(rows, values, strict=True):
        by_lang[row["lang"]].append(value)
        by_category[row["category"]].append(value)
    metrics = {
        "turns": n,
        "share_graded_2": counts[2] / n,
        "share_graded_1": counts[1] / n,
        "share_graded_0": counts[0] / n,
        "mean_grade": sum(values) / n,
        "keyword_pass_rate": sum(r["keyword_pass"] for r in rows) / n,
        "keyword_grade_agreement": agree / n,  # keyword pass <=> graded 2
        "language_match": sum(r["language_ok"] for r in rows) / n,
        "numeric_grounding": sum(r["grounded"] for r in rows) / n,
        "intent_match": sum(r["intent_ok"] for r in rows) / n,
    }
    return {"metrics": metrics,
            "by_language": {k: {"n": len(v), "mean_grade": sum(v) / len(v), "share_graded_2": v.count(2) / len(v)} for k, v in sorted(by_lang.items())},
            "by_category": {k: {"n": len(v), "mean_grade": sum(v) / len(v), "share_graded_2": v.count(2) / len(v)} for k, v in sorted(by_category.items())},
            "grades": [{"id": r["id"], "turn": r["turn"], "grade": graded[(r["id"], r["turn"])], "keyword_pass": r["keyword_pass"]} for r in rows]}


def missed_targets(metrics: dict[str, float]) -> list[str]:
    missed = []
    for metric, (kind, bound) in SEALED_TARGETS.items():
        value = metrics[metric]
        if (value < bound) if kind == "min" else (value > bound):
            missed.append(f"{metric} {value:.3f} ({'>=' if kind == 'min' else '<='} {bound:g})")
    return missed


def code_version() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    running = sub.add_parser("run")
    running.add_argument("--set", default="dev")
    running.add_argument("--out", type=Path, required=True)
    running.add_argument("--data-dir", type=Path, default=None)
    scoring = sub.add_parser("score")
    scoring.add_argument("--answers", type=Path, required=True)
    scoring.add_argument("--grades", type=Path, required=True)
    scoring.add_argument("--record", default=None, help="write evaluators/results/<NAME>.<label>.json")
    scoring.add_argument("--label", default="run")
    scoring.add_argument("--grader", default="a helper session that has not seen the code")
    args = parser.parse_args(argv)
    if args.command == "run":
        with tempfile.TemporaryDirectory() as tmp:
            rows = run(args.set, args.out, args.data_dir or Path(tmp))
        passed = sum(r["keyword_pass"] for r in rows)
        print(f"{len(rows)} answers -> {args.out}/answers.jsonl, {args.out}/packet.md; keyword pass {passed}/{len(rows)}; "
              f"language {sum(r['language_ok'] for r in rows)}/{len(rows)}")
        return 0
    report = score(read_jsonl(args.answers), read_jsonl(args.grades))
    for key, value in report["metrics"].items():
        print(f"  {key:26s} {value:.3f}" if isinstance(value, float) else f"  {key:26s} {value}")
    for key, row in report["by_language"].items():
        print(f"  lang {key:4s} n={row['n']:3d} mean={row['mean_grade']:.2f} graded2={row['share_graded_2']:.2f}")
    for key, row in report["by_category"].items():
        print(f"  {key:16s} n={row['n']:3d} mean={row['mean_grade']:.2f} graded2={row['share_graded_2']:.2f}")
    if args.record:
        record = {"set": args.record, "label": args.label, "code": code_version(), "grader": args.grader, **report}
        RESULTS_DIR.mkdir(exist_ok=True)
        target = RESULTS_DIR / f"{args.record}.{args.label}.json"
        target.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"recorded -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
