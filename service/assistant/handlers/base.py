"""What every intent handler gets (Context) and returns (Draft)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from service.assistant.answer import Clarification, ToolCall
from service.assistant.slots import Slots
from service.assistant.understand import Understanding
from service.catalog import Catalog
from service.errors import InputError
from service.sizing import get_tool
from service.sizing.work import Work, relabel


MAX_QUERY_CHARS = 400


class Searcher(Protocol):
    def search(self, query: str, *, k: int = 5, language: str | None = None, topics: list[str] | None = None) -> list: ...


@dataclass
class Draft:
    body: str = ""
    hits: list = field(default_factory=list)  # retrieval Hits, cited as [1], [2], ... in order
    works: list[tuple[str, Work]] = field(default_factory=list)  # (label, work) for "how this was computed"
    recommendation: dict[str, Any] | None = None
    follow_ups: list[str] = field(default_factory=list)
    clarification: Clarification | None = None
    show_sources: bool = True


@dataclass
class Context:
    text: str
    understanding: Understanding
    catalog: Catalog
    index: Searcher
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def lang(self) -> str:
        return self.understanding.language

    @property
    def slots(self) -> Slots:
        return self.understanding.slots

    def t(self, en: str, zh: str) -> str:
        return zh if self.lang == "zh" else en

    def run(self, tool: str, payload: dict[str, Any]) -> BaseModel:
        """Call a sizing tool and record the call; InputError propagates with field names."""
        clean = {k: v for k, v in payload.items() if v is not None}
        try:
            result = get_tool(tool)(clean, self.catalog)
        except InputError as exc:
            # Recorded so the refusal (and any figure in it) is traceable to the tool.
            self.tool_calls.append(ToolCall(tool=tool, input=clean, output={"error": exc.message("en"), "error_zh": exc.message("zh")}))
            raise
        # Values the assistant filled in (defaults, assumptions) are not the user's: relabel them.
        stated = set(self.slots.stated()) | {"task" if self.slots.task else "", "method" if self.slots.method else ""}
        result = result.model_copy(update={"work": relabel(result.work, stated, provenance="default", source="assumed by the assistant")})
        self.tool_calls.append(ToolCall(tool=tool, input=clean, output=result.model_dump(mode="json")))
        return result

    def try_run(self, tool: str, payload: dict[str, Any]) -> tuple[BaseModel | None, InputError | None]:
        try:
            return self.run(tool, payload), None
        except InputError as exc:
            return None, exc

    def record(self, tool: str, payload: dict[str, Any], output: dict[str, Any]) -> None:
        """A deterministic computation of the assistant itself (claim ratios, parsed diagnostics)."""
        self.tool_calls.append(ToolCall(tool=tool, input=payload, output=output))

    def retrieve(self, query: str | None = None, *, k: int = 3, topics: list[str] | None = None) -> list:
        # Pasted logs make poor queries: the question is in the first lines.
        if query is None:
            # A follow-up ("Slurm 上呢？") is searched together with the question it follows.
            query = f"{self.understanding.context} {self.text}" if self.understanding.context else self.text
        text = query[:MAX_QUERY_CHARS]
        try:
            return self.index.search(text, k=k, language=self.lang, topics=topics)
        except InputError:
            return []
