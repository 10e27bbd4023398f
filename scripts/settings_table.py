"""Print the README's configuration table (Markdown) from the Settings class, so the two cannot drift apart.

    .venv/bin/python scripts/settings_table.py

tests/scripts/test_settings_table.py checks that README.md holds exactly this output.
"""

from __future__ import annotations

import sys
import typing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import AliasChoices, SecretStr  # noqa: E402
from pydantic_core import PydanticUndefined  # noqa: E402

from service.config import Settings  # noqa: E402

BEGIN, END = "<!-- settings-table:begin -->", "<!-- settings-table:end -->"


def variable_names(name: str, field) -> list[str]:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    return [f"ADVISOR_{name.upper()}"]


def describe_type(annotation) -> str:
    """Allowed values in words: a Literal's choices, secrets marked, Optional as 'or empty'."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in args)
    if origin is typing.Annotated:
        return describe_type(args[0])
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        parts = [describe_type(a) for a in args if a is not type(None)]
        return " or ".join(parts) + (" (optional)" if type(None) in args else "")
    if origin is list:
        return f"list of {describe_type(args[0])}" if args else "list"
    if annotation is SecretStr:
        return "secret text"
    return getattr(annotation, "__name__", str(annotation))


def bounds(field) -> str:
    out = []
    for meta in field.metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(meta, attr, None)
            if value is not None:
                out.append(f"{sign} {value:g}" if isinstance(value, float) else f"{sign} {value}")
    return ", ".join(out)


def default_text(field) -> str:
    if field.default_factory is not None:
        value = field.default_factory()
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None or value == []:
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def table() -> str:
    rows = ["| Variable | Default | Allowed |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        allowed = describe_type(field.annotation)
        if b := bounds(field):
            allowed += f", {b}"
        rows.append(f"| {' or '.join(f'`{v}`' for v in variable_names(name, field))} | {default_text(field)} | {allowed} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table())
