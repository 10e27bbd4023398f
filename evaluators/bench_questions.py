"""Questions for the speed benchmarks and the cost-shape tests: many, varied, and new to the process that answers them.

A benchmark that warms on the questions it times measures a lookup. These are drawn, in both languages and across
every category, from three pools, mixed in equal parts:

- people's questions: the first turns of the blind sets (written by helpers who never saw the code), not the
  real-question set the lead keeps apart;
- templated questions (evaluators/fuzz_questions.py): catalog models and GPUs with random counts, budgets and lengths;
- pasted artefacts (evaluators/pasted_questions.py): nccl-tests tables, topologies, Xid lines, OOMs, launch commands.

`question_sets(sizes, seed)` returns disjoint lists of distinct questions, e.g. a warm-up set and a measured set.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from evaluators import fuzz_questions
from evaluators.pasted_questions import pasted

BLIND_DIR = Path(__file__).resolve().parent / "datasets" / "blind"


def blind_questions() -> list[str]:
    """The first turn of every blind-set item, in file order."""
    out = []
    for path in sorted(BLIND_DIR.glob("blind_set_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["turns"][0]["user"])
    return out


def mixed_questions(n: int, seed: int = 26) -> list[str]:
    """n distinct questions, a third from each pool, interleaved, fully determined by seed."""
    r = random.Random(seed)
    people = blind_questions()
    r.shuffle(people)
    templated = [item.turns[0] for item in fuzz_questions.generate(2 * n, seed=seed)]
    r.shuffle(templated)
    out: list[str] = []
    seen: set[str] = set()
    pools = [iter(people), iter(templated)]
    turn = 0
    while len(out) < n:
        kind = turn % 3
        turn += 1
        if kind == 2:
            text = pasted(r, "zh" if r.random() < 0.5 else "en")
        else:
            text = next(pools[kind], None)
            if text is None:  # a pool ran out: the others fill in
                pools[kind] = iter(())
                text = pasted(r, "zh" if r.random() < 0.5 else "en")
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def question_sets(sizes: tuple[int, ...], seed: int = 26) -> list[list[str]]:
    """Disjoint lists of the given sizes (no question in two of them)."""
    every = mixed_questions(sum(sizes), seed)
    sets, start = [], 0
    for size in sizes:
        sets.append(every[start : start + size])
        start += size
    return sets
