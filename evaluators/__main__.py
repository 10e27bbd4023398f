"""`python -m evaluators` (and `make eval`): every evaluation, one report, quality gates (see run_all.py).

    python -m evaluators [--fast] [--out DIR] [--data-dir DIR] [--gates FILE] [--blind-failures] [--from-results FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# Before anything imports Chroma, ONNX Runtime or Hugging Face: no telemetry, no downloads.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def parser() -> argparse.ArgumentParser:
    from evaluators.gates import GATES

    p = argparse.ArgumentParser(prog="python -m evaluators", description=__doc__.splitlines()[0])
    p.add_argument("--fast", action="store_true", help="the CI subset (under a minute): no blind sets, held-out set or cross-validation")
    p.add_argument("--out", type=Path, help="report directory (default reports/eval-<date>)")
    p.add_argument("--data-dir", type=Path, help="an indexed data directory to copy and use (default: ingest into <data_dir>/eval-index)")
    p.add_argument("--gates", type=Path, default=GATES, help="thresholds file (default evaluators/gates.yaml)")
    p.add_argument("--blind-failures", action="store_true", help="list the blind sets' failing questions in the report (the lead only)")
    p.add_argument("--from-results", type=Path, help="re-apply the gates and re-write the report from a results.json")
    return p


def main(argv: list[str] | None = None) -> int:
    from evaluators.run_all import Options
    from evaluators.run_all import main as run_main

    args = parser().parse_args(argv)
    return run_main(Options(fast=args.fast, out=args.out, data_dir=args.data_dir, gates_file=args.gates, blind_failures=args.blind_failures,
                            from_results=args.from_results))


if __name__ == "__main__":
    sys.exit(main())
