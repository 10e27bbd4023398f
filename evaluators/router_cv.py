"""k-fold cross-validated intent accuracy of the understander on its own exemplars.

Each fold's exemplars are hidden from the router (they cannot vote for themselves) and read back
as questions, through the whole understander: neighbours, cue cascade and structured evidence.
The plain router (nearest-exemplar votes alone) is reported beside it.
`python -m evaluators.router_cv [--folds 5] [--json out.json]`
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

FOLDS = 5
SEED = 7


def cross_validate(folds: int = FOLDS, seed: int = SEED) -> dict:
    from service.assistant.slots import extract_slots
    from service.catalog import default_catalog
    from service.understanding import RoutedUnderstander
    from service.understanding.evidence_weights import neighbour_votes as _votes

    catalog = default_catalog()
    understander = RoutedUnderstander(catalog)
    exemplars = understander.registry.exemplars
    matrix = understander.router.matrix
    fold_of = np.random.default_rng(seed).permutation(len(exemplars)) % folds
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # intent -> [total, understander right, router right]
    by_language: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    mistakes = []
    for fold in range(folds):
        hidden = fold_of == fold
        for i in np.flatnonzero(hidden):
            exemplar = exemplars[i]
            und = understander.read(
                exemplar.text, extract_slots(exemplar.text, catalog), exemplar.language, vector=matrix[i], exclude=hidden
            )
            sims = np.where(hidden, -np.inf, matrix @ matrix[i])
            order = np.argsort(-sims)[: understander._k]
            votes = _votes([(exemplars[j], float(sims[j])) for j in order])
            row = tally[exemplar.intent]
            row[0] += 1
            row[1] += und.intent == exemplar.intent
            row[2] += max(votes, key=votes.get) == exemplar.intent
            by_language[exemplar.language][0] += 1
            by_language[exemplar.language][1] += und.intent == exemplar.intent
            if und.intent != exemplar.intent:
                mistakes.append({"text": exemplar.text, "expected": exemplar.intent, "got": und.intent})
    total = sum(r[0] for r in tally.values())
    return {
        "folds": folds,
        "exemplars": total,
        "overall": sum(r[1] for r in tally.values()) / total,
        "router_only": sum(r[2] for r in tally.values()) / total,
        "per_intent": {k: {"n": r[0], "accuracy": r[1] / r[0], "router_only": r[2] / r[0]} for k, r in sorted(tally.items())},
        "per_language": {k: r[1] / r[0] for k, r in sorted(by_language.items())},
        "mistakes": mistakes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=FOLDS)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--mistakes", action="store_true", help="list every misread exemplar")
    args = parser.parse_args(argv)
    report = cross_validate(args.folds)
    print(f"{args.folds}-fold cross-validated intent accuracy on {report['exemplars']} exemplars")
    print(f"{'intent':<16} {'n':>4} {'understander':>13} {'router only':>12}")
    for intent, row in report["per_intent"].items():
        print(f"{intent:<16} {row['n']:>4} {row['accuracy']:>13.3f} {row['router_only']:>12.3f}")
    print(f"{'overall':<16} {report['exemplars']:>4} {report['overall']:>13.3f} {report['router_only']:>12.3f}")
    print("per language: " + ", ".join(f"{k} {v:.3f}" for k, v in report["per_language"].items()))
    if args.mistakes:
        for m in report["mistakes"]:
            print(f"  {m['expected']:>15} -> {m['got']:<15} {m['text']}")
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
