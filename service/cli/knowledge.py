"""`advisor ingest` and `advisor search` (implemented with the retrieval package)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the knowledge commands to the CLI."""
