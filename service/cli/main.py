"""`advisor`: serve the API, size workloads, ingest and search the knowledge base, ask questions.

Bad input prints a field-named message and exits with code 2 (see `errors.exit_on_input_error`).
"""

from __future__ import annotations

import typer

from service.cli import ask, knowledge, sizing, validate
from service.cli import eval as eval_cli
from service.cli.errors import exit_on_settings_error

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
    workers: int = typer.Option(None, help="Worker processes (default from ADVISOR_WORKERS; 0 or unset: one per CPU core).", min=0, max=64),
) -> None:
    """Start the REST API (OpenAPI docs at /docs)."""
    from service.runtime import pause_gc_for_start, resume_gc_after_start

    pause_gc_for_start()  # until the start is done (service/runtime.py): the imports and the index's opening below
    import os
    import shutil
    import tempfile
    from pathlib import Path

    import uvicorn

    from service.config import get_settings
    from service.observability import metrics
    from service.observability.logging import configure_logging

    settings = get_settings()
    # One JSON formatter for the app's loggers and uvicorn's; uvicorn's own access log is replaced by
    # advisor.access (route templates, no query strings: no search text, no ?api_key=, no ids).
    log_config = configure_logging(settings.log_level, settings.log_format, log_content=settings.log_content)
    count = workers if workers is not None else settings.workers
    count = count or os.cpu_count() or 1
    if count > 1:
        resume_gc_after_start()  # this supervisor opens no index; each worker pauses its own (api/app.py)
    # Several workers are shared-nothing processes over the same data dir: uvicorn spawns them from an import
    # string, each builds its own app (and opens its own index; ingest.py's file lock lets only one ingest at a time).
    if count == 1:
        from service.runtime import start_loading_encoder

        start_loading_encoder(settings)  # while the app's modules are imported (service/runtime.py)
        from service.api.app import create_app

        target = create_app(settings)
    else:
        target = "service.api.app:create_app"  # imported by each worker only: the supervisor answers nothing
    own_metrics_dir = None
    if count > 1:
        os.environ["ADVISOR_OPEN_INDEX_BEFORE_SERVING"] = "true"  # read by each spawned worker's Settings (see api/app.py)
        # At shutdown multiprocessing's resource tracker prints a plain-text "leaked semaphore" warning for the workers'
        # spawn-context locks (already gone with their processes); it would be the one non-JSON line in the log.
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"),
                                                              "ignore::UserWarning:multiprocessing.resource_tracker"]))
        # /metrics over all workers: prometheus-client's multiprocess mode, in the operator's PROMETHEUS_MULTIPROC_DIR or a
        # fresh temp dir of ours; emptied now, before the spawned workers import prometheus_client and start writing there.
        own_metrics_dir = None if metrics.multiprocess_dir() else tempfile.mkdtemp(prefix="advisor-metrics-")
        os.environ[metrics.MULTIPROC_ENV] = str(metrics.prepare_multiprocess_dir(Path(metrics.multiprocess_dir() or own_metrics_dir)))
    try:
        # proxy_headers=False: uvicorn would believe X-Forwarded-For from 127.0.0.1; ADVISOR_TRUSTED_PROXY_HOPS alone decides
        # (service/api/middleware.py ForwardedClientMiddleware), so a local client cannot pick its own rate-limit address.
        uvicorn.run(target, factory=count > 1, workers=count if count > 1 else None, host=host or settings.host, port=port or settings.port,
                    log_level=settings.log_level, log_config=log_config, access_log=False, proxy_headers=False)
    finally:
        if own_metrics_dir:
            shutil.rmtree(own_metrics_dir, ignore_errors=True)


app.add_typer(sizing.size_app, name="size")
app.command("ask")(ask.ask_command)
app.command("eval")(eval_cli.eval_command)
app.command("validate")(validate.validate_command)
knowledge.register(app)


@exit_on_settings_error
def main() -> None:
    # typer raises SystemExit itself; a bad setting surfaces as a pydantic ValidationError from get_settings().
    app(standalone_mode=True)


if __name__ == "__main__":
    main()
