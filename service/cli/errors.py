"""How CLI commands report failures: bad input as a field-named message and exit code 2; broken
catalogs, knowledge files or indexes as one line and exit code 1."""

from __future__ import annotations

import functools
import locale
import os
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from pydantic import ValidationError

from service.errors import CatalogError, InputError, KnowledgeFileError, RetrievalError

P = ParamSpec("P")
R = TypeVar("R")


def cli_language() -> str:
    """zh when the user's locale is Chinese. The variables first (POSIX order), since a zh_CN locale that is not installed
    (most containers) leaves Python's own locale at C although the user asked for Chinese."""
    named = next((os.environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if os.environ.get(name)), "")
    lang = (named or locale.getlocale()[0] or "").lower()
    return "zh" if lang.startswith("zh") else "en"


def exit_on_input_error(func: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            typer.echo(f"error: {exc.message(cli_language())}", err=True)
            raise typer.Exit(2) from None
        except CatalogError as exc:
            typer.echo(f"catalog error: {exc}", err=True)
            raise typer.Exit(1) from None
        except KnowledgeFileError as exc:
            typer.echo(f"knowledge file error: {exc}", err=True)
            raise typer.Exit(1) from None
        except RetrievalError as exc:
            typer.echo(f"index error: {exc}", err=True)
            raise typer.Exit(1) from None

    return wrapper


def settings_error_lines(exc: ValidationError) -> list[str]:
    """One line per bad setting, naming the variable and the rule, never the value (it may be a secret)."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False, include_context=False):
        field = ".".join(str(p) for p in error.get("loc", ()))
        variable = f"ADVISOR_{field.upper()}" if field else "settings"
        message = error.get("msg", "is invalid").removeprefix("Value error, ")
        lines.append(f"configuration error: {message}" if message.startswith("ADVISOR_") else f"configuration error: {variable}: {message}")
    return lines


def exit_on_settings_error(func: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ValidationError as exc:
            if exc.title != "Settings":
                raise
            for line in settings_error_lines(exc):
                typer.echo(line, err=True)
            raise SystemExit(2) from None

    return wrapper
