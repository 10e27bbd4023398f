"""`advisor validate`: the sizing tools' error tables on the held-out half, beside llm-analysis (evaluators/validate.py)."""

from __future__ import annotations

from typing import Annotated

import typer

def validate_command(
    split: Annotated[str, typer.Option("--split", help="heldout (the default, what the targets are judged on) or dev.")] = "heldout",
) -> None:
    """Print the error tables: step time, time-to-train band, training memory, KV capacity."""

    if split not in ("heldout", "dev"):
        typer.echo("--split: must be heldout or dev (--split：必须是 heldout 或 dev)", err=True)
        raise typer.Exit(2)
    from evaluators import validate
    from service.catalog import default_catalog

    validate.print_report(validate.run(default_catalog(), split))
