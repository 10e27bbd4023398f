"""`advisor ingest` and `advisor search`: build and query the knowledge index from a terminal.

Bad search input exits with code 2 and a field-named message; a malformed knowledge file or an
unavailable index prints one line and exits with code 1 (both via service.cli.errors).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from service.cli.errors import exit_on_input_error
from service.errors import InputError, Problem

MODES = ("hybrid", "dense", "bm25")


def usable_index_dir(path: Path) -> None:
    """A file where the index directory belongs is the user's to move: say so (exit 2), never a traceback, and never
    remove it (a rebuild's repair deletes only the index's own files)."""
    if path.exists() and not path.is_dir():
        from service.assistant.messages import say

        en, zh = say("fault.index.not_a_directory", "en"), say("fault.index.not_a_directory", "zh")
        raise InputError([Problem(str(path), en, zh)])


def register(app: typer.Typer) -> None:
    """Add the knowledge commands to the CLI."""
    app.command("ingest")(ingest_command)
    app.command("search")(search_command)


@exit_on_input_error
def ingest_command(
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Re-embed everything instead of reusing stored vectors; repairs a corrupt index.")
    ] = False,
) -> None:
    """Index the knowledge documents and spec cards (only changed chunks are embedded)."""
    from rich.console import Console

    from service.catalog import default_catalog
    from service.config import get_settings
    from service.retrieval import ingest

    settings = get_settings()
    usable_index_dir(settings.index_dir)
    report = ingest(settings, default_catalog(settings.knowledge_dir), progress=True, rebuild=rebuild)
    console = Console()
    if report.repaired:
        console.print(f"The index in {settings.index_dir} was corrupt: its Chroma files were removed and it was rebuilt.")
    if report.skipped:
        console.print(f"Nothing changed: {report.chunks} chunks already indexed in {report.collection} ({report.seconds:.1f} s).")
        return
    console.print(
        f"Indexed {report.documents} documents as {report.chunks} chunks (and {report.questions} section questions) in {report.collection}: "
        f"{report.added} added, {report.updated} updated, {report.unchanged} unchanged, {report.removed} removed; "
        f"{report.embedded} embedded in {report.seconds:.1f} s."
    )


@exit_on_input_error
def search_command(
    query: Annotated[str, typer.Argument(help="The question, in Chinese or English.")],
    k: Annotated[int, typer.Option("--k", help="How many results (1-50).")] = 5,
    lang: Annotated[str | None, typer.Option("--lang", help="Only results in this language: zh or en.")] = None,
    topic: Annotated[list[str] | None, typer.Option("--topic", help="Only results with this topic (repeatable).")] = None,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or bm25.")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON like GET /v1/knowledge/search.")] = False,
) -> None:
    """Search the knowledge base and spec cards."""
    from service.catalog import default_catalog
    from service.config import get_settings
    from service.retrieval import open_index, validate_query

    validate_query(query, k, lang, topics=topic)
    if mode not in MODES:
        raise InputError([Problem("mode", "must be hybrid, dense or bm25", "必须是 hybrid、dense 或 bm25", ", ".join(MODES))])
    settings = get_settings()
    usable_index_dir(settings.index_dir)
    index = open_index(settings, default_catalog(settings.knowledge_dir))
    hits = index.search(query, k=k, language=lang, topics=topic or None, mode=mode)  # type: ignore[arg-type]
    results = [hit.summary() for hit in hits]
    if as_json:
        typer.echo(json.dumps({"query": query, "results": results}, ensure_ascii=False, indent=2))
    else:
        _print_table(query, results)


def _print_table(query: str, results: list[dict[str, object]]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(f"Results for: {query}"), show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("document")
    table.add_column("snippet")
    table.add_column("source")
    for rank, result in enumerate(results, start=1):
        place = f"{result['heading'] or '(introduction)'} · {result['language']} · {result['id']}"
        where = f"{escape(str(result['title']))}\n[dim]{escape(place)}[/dim]"
        source = escape(f"{result['source']}\n{result['url']}")
        table.add_row(str(rank), f"{result['score']:.4f}", where, escape(str(result["snippet"])), source)
    Console().print(table)
