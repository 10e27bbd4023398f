"""`advisor`: serve the API, size workloads, ingest and search the knowledge base, ask questions.

Bad input prints a field-named message and exits with code 2 (see `errors.exit_on_input_error`).
"""

from __future__ import annotations

import typer

from service.cli import ask, knowledge, sizing

app = typer.Typer(
    name="advisor",
    help="GPU Deployment Advisor: sizing tools and a cited knowledge base for AI-training infrastructure.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def serve(
    host: str = typer.Option(None, help="Interface to bind (default from ADVISOR_HOST, 127.0.0.1)."),
    port: int = typer.Option(None, help="Port (default from ADVISOR_PORT, 8000).", min=1, max=65535),
) -> None:
    """Start the REST API (OpenAPI docs at /docs)."""
    import uvicorn

    from service.api.app import create_app
    from service.config import get_settings

    settings = get_settings()
    uvicorn.run(create_app(settings), host=host or settings.host, port=port or settings.port, log_level=settings.log_level)


app.add_typer(sizing.size_app, name="size")
app.command("ask")(ask.ask_command)
knowledge.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
