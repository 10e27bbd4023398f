"""Run generated questions through the assistant and report grounding and language failures.

    python -m evaluators.fuzz_run --n 400 --seed 1 [--data-dir /tmp/probe_data_fuzz] [--json out.json]

Classes reported: exceptions, ungrounded numbers (with the answer text around them), language
mismatches (answer language or detected prose language differs from the question's), English prose
in Chinese answers, and empty answers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from evaluators.assistant_eval import answer_language  # noqa: E402
from evaluators.fuzz_questions import FuzzItem, generate  # noqa: E402

DEFAULT_DATA_DIR = Path("/tmp/probe_data_fuzz")
CLASSES = ("exception", "ungrounded", "language", "english_prose", "empty")
# Four or more Latin words in a row, three of them lower-case words: English prose, not a product name.
PROSE_RUN = re.compile(r"[A-Za-z][A-Za-z'’]*(?:[ ,]+[A-Za-z][A-Za-z'’]*){3,}")


@dataclass
class Finding:
    kind: str
    item: str
    turn: int
    question: str
    intent: str = ""
    detail: str = ""


@dataclass
class Report:
    items: int = 0
    turns: int = 0
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        c = Counter(f.kind for f in self.findings)
        return {k: c.get(k, 0) for k in CLASSES}


def prose_lines(markdown: str) -> list[str]:
    """Lines a reader reads as prose: code, tables, links, formula and source lists left out."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    lines = []
    for line in text.splitlines():
        s = line.lstrip()
        if s.startswith(("|", "- [", "[", "- `", "#", "**来源", "**Sources")) or "http" in s:
            continue
        lines.append(re.sub(r"`[^`]*`|\[[^\]]*\]\([^)]*\)", " ", line))
    return lines


def english_prose(markdown: str) -> list[str]:
    """Runs of English words in a Chinese answer's prose."""
    found = []
    for line in prose_lines(markdown):
        for m in PROSE_RUN.finditer(line):
            words = re.findall(r"[A-Za-z][A-Za-z'’]*", m.group(0))
            if sum(1 for w in words if w.islower() and len(w) > 1) >= 3:
                found.append(m.group(0))
    return found


def around(answer: str, written: str, width: int = 70) -> str:
    i = answer.find(written)
    if i < 0:
        return written
    return answer[max(0, i - width) : i + len(written) + width].replace("\n", " ⏎ ")


def check_answer(item: FuzzItem, turn: int, question: str, a: Any) -> list[Finding]:
    out: list[Finding] = []
    base = {"item": item.id, "turn": turn, "question": question, "intent": str(a.intent)}
    if not (a.answer or "").strip():
        out.append(Finding("empty", detail="", **base))
        return out
    for written in a.grounding.ungrounded:
        out.append(Finding("ungrounded", detail=f"{written!r}: …{around(a.answer, written)}…", **base))
    prose = answer_language(a.answer)
    if a.language != item.lang or prose != item.lang:
        out.append(Finding("language", detail=f"answer.language={a.language} prose={prose}", **base))
    if item.lang == "zh":
        runs = english_prose(a.answer)
        if runs:
            out.append(Finding("english_prose", detail=" | ".join(runs[:3]), **base))
    return out


def build_runtime(data_dir: Path) -> Any:
    from service.config import Settings
    from service.runtime import Runtime

    rt = Runtime(Settings(data_dir=data_dir, environment="test", answer_memo_size=0))
    rt.open_index()
    return rt


def run(items: list[FuzzItem], runtime: Any, dump: list[dict] | None = None) -> Report:
    from service.assistant.answer import ChatRequest

    report = Report(items=len(items))
    start = time.perf_counter()
    for item in items:
        conv = None
        for turn, question in enumerate(item.turns):
            report.turns += 1
            try:
                a = runtime.assistant.answer(ChatRequest(message=question, conversation_id=conv))
            except Exception as exc:  # noqa: BLE001 - every exception is a finding
                tb = traceback.format_exception(exc)
                report.findings.append(Finding("exception", item.id, turn, question, detail="".join(tb[-3:]).strip()))
                break
            conv = a.conversation_id
            if dump is not None:
                dump.append(
                    {"item": item.id, "lang": item.lang, "topic": item.topic, "turn": turn, "question": question, "intent": str(a.intent), "answer": a.answer}
                )
            report.findings.extend(check_answer(item, turn, question, a))
    report.seconds = time.perf_counter() - start
    return report


def format_report(report: Report) -> str:
    lines = [f"fuzz: {report.items} items, {report.turns} turns, {report.seconds:.0f}s", json.dumps(report.counts())]
    for f in report.findings:
        lines.append(f"[{f.kind}] {f.item}#{f.turn} ({f.intent}) {f.question}\n    {f.detail}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evaluators.fuzz_run", description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--topic", action="append", help="only these topics (repeatable)")
    p.add_argument("--json", type=Path, help="write the findings as JSON here")
    p.add_argument("--dump", type=Path, help="write every answer as JSON lines here")
    args = p.parse_args(argv)
    items = [i for i in generate(args.n, args.seed) if not args.topic or i.topic in args.topic]
    dump: list[dict] | None = [] if args.dump else None
    report = run(items, build_runtime(args.data_dir), dump)
    if args.dump and dump is not None:
        args.dump.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in dump))
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps({"counts": report.counts(), "findings": [asdict(f) for f in report.findings]}, ensure_ascii=False, indent=1))
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
