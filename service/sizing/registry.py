"""The sizing tools by name: one table that REST, the CLI, LangChain and the assistant all read.

A tool is a pure function `(request, catalog) -> result` with pydantic models on
both sides. Extensions add tools with `register()`, exactly as the built-ins do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from service.catalog import Catalog
from service.errors import InputError
from service.i18n import problems_from_errors
from service.sizing.base import SizingRequest, SizingResult


@dataclass(frozen=True)
class SizingTool:
    name: str
    request: type[SizingRequest]
    result: type[SizingResult]
    run: Callable[[SizingRequest, Catalog], SizingResult]
    summary_en: str
    summary_zh: str

    def __post_init__(self) -> None:
        # Every caller (REST, CLI, chat, LangChain) gets the finite-result guarantee, however it reaches `run`.
        from service.sizing.guard import guarded

        object.__setattr__(self, "run", guarded(self.run))

    def __call__(self, payload: dict | SizingRequest, catalog: Catalog) -> SizingResult:
        """Validate and run. Any bad input is an InputError naming the field (chat, LangChain and REST alike)."""
        if isinstance(payload, self.request):
            request = payload
        else:
            try:
                request = self.request.model_validate(payload)
            except ValidationError as exc:
                raise InputError(problems_from_errors(exc.errors(), strip=())) from None
        return self.run(request, catalog)


_TOOLS: dict[str, SizingTool] = {}


def register(tool: SizingTool) -> SizingTool:
    if tool.name in _TOOLS:
        raise ValueError(f"a sizing tool named {tool.name!r} is already registered")
    _TOOLS[tool.name] = tool
    return tool


def get_tool(name: str) -> SizingTool:
    _load_builtins()
    return _TOOLS[name]


def all_tools() -> list[SizingTool]:
    _load_builtins()
    return list(_TOOLS.values())


def _load_builtins() -> None:
    if not _TOOLS:
        import service.sizing.builtins  # noqa: F401  (registers on import)
