"""`advisor size <tool> --field value ...`: every sizing tool as a command, options from its schema.

Values go to the same pydantic model as the REST body, so both faces validate
and compute identically; `--json` prints exactly the REST response.
"""

from __future__ import annotations

import inspect
import typing
from functools import lru_cache

import typer
from pydantic import BaseModel, ValidationError

from service.cli.errors import exit_on_input_error
from service.errors import InputError
from service.i18n import problems_from_errors
from service.sizing import SizingTool, all_tools
from service.sizing.compute import Band

if typing.TYPE_CHECKING:
    from rich.console import Console

size_app = typer.Typer(help="Run a sizing calculator (see `advisor size TOOL --help`).", no_args_is_help=True)


@lru_cache(maxsize=1)
def _catalog():
    from service.catalog import default_catalog
    from service.config import get_settings

    return default_catalog(get_settings().knowledge_dir)


def _is_bool(annotation) -> bool:
    return bool in (annotation, *typing.get_args(annotation))


def _literal_values(annotation) -> tuple:
    """Allowed values of a Literal field, also inside `Literal[...] | None`."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(candidate) is typing.Literal:
            return typing.get_args(candidate)
    return ()


def _parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """One option per request field; values stay strings so pydantic validates them as it does REST bodies."""
    params = []
    for name, info in model.model_fields.items():
        flag = name.replace("_", "-")
        if _is_bool(info.annotation):
            option, annotation = typer.Option(None, f"--{flag}/--no-{flag}", help=info.description or ""), typing.Optional[bool]
        else:
            values = _literal_values(info.annotation)
            hint = f" [{'|'.join(map(str, values))}]" if values else ""
            option = typer.Option(None, f"--{flag}", help=f"{info.description or ''}{hint}", metavar="VALUE")
            annotation = typing.Optional[str]
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation))
    params.append(inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, annotation=bool,
                                    default=typer.Option(False, "--json", help="print the full result as JSON (same as the REST response)")))
    return params


def _command(tool: SizingTool) -> None:
    def run(**values) -> None:
        as_json = values.pop("as_json")
        payload = {k: v for k, v in values.items() if v is not None}
        try:
            request = tool.request.model_validate(payload)
        except ValidationError as exc:
            raise InputError(problems_from_errors(exc.errors(), strip=())) from None
        try:
            result = tool.run(request, _catalog())
        except ValidationError as exc:  # an inner request built from the input; same 422 as the REST face
            raise InputError(problems_from_errors(exc.errors(), strip=())) from None
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
        else:
            render(result)

    run.__signature__ = inspect.Signature(_parameters(tool.request))  # type: ignore[attr-defined]
    size_app.command(tool.name, help=f"{tool.summary_en}\n\n{tool.summary_zh}")(exit_on_input_error(run))


for _tool in all_tools():
    _command(_tool)


# -- rendering ----------------------------------------------------------------

def _fmt(value) -> str:
    if isinstance(value, Band):
        return f"{_num(value.low)} / {_num(value.typical)} / {_num(value.high)}  (low / typical / high)"
    if isinstance(value, float):
        return _num(value)
    return str(value)


def _num(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1e6 or abs(x) < 1e-3:
        return f"{x:.4g}"
    if abs(x) >= 100:
        return f"{x:,.0f}" if float(x).is_integer() or abs(x) >= 10_000 else f"{x:,.1f}"
    return f"{x:.4g}"


def render(result: BaseModel, console: Console | None = None) -> None:
    from rich.console import Console  # here: `advisor serve` registers these commands but never draws a table
    from rich.table import Table

    console = console or Console()
    table = Table(title=getattr(result, "tool", "result"), show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    for name, value in result:
        if name in ("work", "tool") or value is None or isinstance(value, list) and not value:
            continue
        if isinstance(value, BaseModel) and not isinstance(value, Band):
            for sub, sub_value in value:
                if not isinstance(sub_value, (BaseModel, list)) or isinstance(sub_value, Band):
                    table.add_row(f"{name}.{sub}", _fmt(sub_value))
        elif isinstance(value, list):
            table.add_row(name, f"{len(value)} item(s); see --json")
        else:
            table.add_row(name, _fmt(value))
    console.print(table)
    work = result.work
    inputs = Table(title="How this was computed: inputs", title_justify="left")
    for column in ("input", "value", "unit", "from"):
        inputs.add_column(column)
    for item in work.inputs:
        inputs.add_row(item.name, _fmt(item.value), item.unit, item.provenance + (f" ({item.source})" if item.source else ""))
    console.print(inputs)
    steps = Table(title="Formulas", title_justify="left")
    for column in ("step", "formula", "value", "unit"):
        steps.add_column(column)
    for step in work.steps:
        steps.add_row(step.name, step.formula, _num(step.value), step.unit)
    console.print(steps)
    for note in work.assumptions:
        console.print(f"[dim]assumption:[/] {note.en}")
    for note in work.warnings:
        console.print(f"[yellow]{note.severity}:[/] {note.en}")
    for source in work.sources:
        console.print(f"[dim]source:[/] {source.title} <{source.url}>")
