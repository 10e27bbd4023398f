"""`advisor eval`: every evaluation, a report with figures, and the quality gates (evaluators/run_all.py).

Exit code 1 names each metric below its threshold in evaluators/gates.yaml (or an evaluator that failed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def eval_command(
    fast: Annotated[bool, typer.Option("--fast", help="The CI subset (under a minute): no blind sets, held-out set or cross-validation.")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Report directory (default reports/eval-<date>).")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="An indexed data directory to copy and use.")] = None,
    gates: Annotated[Path | None, typer.Option("--gates", help="Thresholds file (default evaluators/gates.yaml).")] = None,
    blind_failures: Annotated[bool, typer.Option("--blind-failures", help="List the blind sets' failing questions (the lead only).")] = False,
    from_results: Annotated[Path | None, typer.Option("--from-results", help="Re-apply the gates and re-write the report from a results.json.")] = None,
) -> None:
    """Run the evaluations, write reports/eval-<date>/report.md with PNG figures, and apply the quality gates."""
    import os

    for name, value in (("ORT_DISABLE_TELEMETRY", "1"), ("ANONYMIZED_TELEMETRY", "False"), ("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1")):
        os.environ.setdefault(name, value)  # before Chroma / ONNX Runtime / Hugging Face are imported
    from evaluators.gates import GATES
    from evaluators.run_all import Options, main

    code = main(Options(fast=fast, out=out, data_dir=data_dir, gates_file=gates or GATES, blind_failures=blind_failures, from_results=from_results))
    raise typer.Exit(code)
