"""The sizing calculators as LangChain StructuredTools, for tool-calling chat models.

Built from the registry: each tool's args_schema IS the calculator's request model, so
a model's tool call is validated exactly like a REST body. Refusals come back as
field-named text (the model can correct itself) instead of raising.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import StructuredTool, ToolException
from pydantic import ValidationError

from service.catalog import Catalog
from service.errors import InputError
from service.i18n import problems_from_errors
from service.sizing import SizingTool, all_tools


def _validation_message(error: ValidationError) -> str:
    return "; ".join(f"{p.field}: {p.en}" for p in problems_from_errors(error.errors(), strip=()))


def as_structured_tool(tool: SizingTool, catalog: Catalog) -> StructuredTool:
    def run(**arguments: Any) -> dict[str, Any]:
        try:
            return tool(arguments, catalog).model_dump(mode="json")
        except InputError as exc:
            raise ToolException(exc.message("en")) from None

    return StructuredTool.from_function(
        func=run,
        name=tool.name,
        description=f"{tool.summary_en} Returns the result with its work: inputs and their provenance, formulas, assumptions, sources.",
        args_schema=tool.request,
        handle_tool_error=True,
        handle_validation_error=_validation_message,
    )


def sizing_tools(catalog: Catalog) -> list[StructuredTool]:
    """One StructuredTool per registered calculator."""
    return [as_structured_tool(tool, catalog) for tool in all_tools()]
