"""What every intent handler gets (Context) and returns (Draft)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from service import budget
from service.contract import Block, Clarification, ToolCall
from service.assistant.slots import Slots
from service.assistant.understand import Understanding
from service.catalog import Catalog
from service.errors import InputError
from service.sizing import get_tool
from service.sizing.work import Work, relabel
from service.understanding.case.fields import stated_fields


MAX_QUERY_CHARS = 400


class Cancelled(Exception):  # noqa: N818 — a signal, not an error: the client stopped listening
    """Raised inside a handler when the streaming client disconnected: the rest of the work is skipped."""


class Searcher(Protocol):
    def search(self, query: str, *, k: int = 5, language: str | None = None, topics: list[str] | None = None) -> list: ...


@dataclass
class Draft:
    blocks: list[Block] = field(default_factory=list)  # lead first; no Markdown: the renderers add structure
    hits: list = field(default_factory=list)  # retrieval Hits, cited as [1], [2], ... in order
    works: list[tuple[str, Work]] = field(default_factory=list)  # (label, work) for the "how this was computed" work blocks
    recommendation: dict[str, Any] | None = None
    follow_ups: list[str] = field(default_factory=list)
    clarification: Clarification | None = None
    show_sources: bool = True


# Slots whose tool field has another name: a value the user stated keeps its "you" label in the work shown.
TOOL_FIELD_OF_SLOT = {"yearly_utilization": "utilization", "capex": "capex_total", "depreciation_years": "years"}


@dataclass
class Context:
    text: str
    understanding: Understanding
    catalog: Catalog
    index: Searcher
    tool_calls: list[ToolCall] = field(default_factory=list)
    # Streaming: told about each tool call as it finishes; set when the client has gone away.
    on_tool: Callable[[ToolCall], None] | None = None
    cancelled: threading.Event | None = None

    @property
    def lang(self) -> str:
        return self.understanding.language

    @property
    def slots(self) -> Slots:
        return self.understanding.slots

    def run(self, tool: str, payload: dict[str, Any]) -> BaseModel:
        """Call a sizing tool and record the call; InputError propagates with field names."""
        clean = {k: v for k, v in payload.items() if v is not None}
        self.check_cancelled()
        try:
            result = get_tool(tool)(clean, self.catalog)
        except InputError as exc:
            # Recorded so the refusal (and any figure in it) is traceable to the tool.
            self._add(ToolCall(tool=tool, input=clean, output={"error": exc.message("en"), "error_zh": exc.message("zh")}))
            raise
        # Values the assistant filled in (defaults, assumptions) are not the user's: relabel them.
        stated = set(self.slots.stated()) | {"task" if self.slots.task else "", "method" if self.slots.method else ""}
        stated |= {field for slot, field in TOOL_FIELD_OF_SLOT.items() if slot in stated}
        from_case = stated_fields(getattr(self.understanding, "case", None))
        work = relabel(result.work, stated | set(from_case), provenance="default", source="assumed by the assistant")
        if from_case:  # what the pasted command, config or log said: the user's, with the line it came from
            work = work.model_copy(update={"inputs": [i.model_copy(update={"provenance": "user", "source": from_case[i.name]})
                                                      if i.name in from_case and i.name in clean else i for i in work.inputs]})
        result = result.model_copy(update={"work": work})
        self._add(ToolCall(tool=tool, input=clean, output=result.model_dump(mode="json")))
        return result

    def try_run(self, tool: str, payload: dict[str, Any]) -> tuple[BaseModel | None, InputError | None]:
        try:
            return self.run(tool, payload), None
        except InputError as exc:
            return None, exc

    def record(self, tool: str, payload: dict[str, Any], output: dict[str, Any]) -> None:
        """A deterministic computation of the assistant itself (claim ratios, parsed diagnostics)."""
        self._add(ToolCall(tool=tool, input=payload, output=output))

    def _add(self, call: ToolCall) -> None:
        self.tool_calls.append(call)
        if self.on_tool is not None:
            self.on_tool(call)

    def check_cancelled(self) -> None:
        """Before each tool call and retrieval: stop if the client left (Cancelled) or the turn's CPU budget is spent
        (budget.OverBudget)."""
        if self.cancelled is not None and self.cancelled.is_set():
            raise Cancelled()
        budget.check(f"handler:{self.understanding.intent}")

    def asked(self) -> str:
        """The question in the user's own words: for a message that pastes a command or a log, the prose and what the
        case reader found in the paste (signatures, engine, launcher), not the paste's lines. Retrieval and the FAQ
        composer read this same text, so the encoder runs on it once."""
        case = getattr(self.understanding, "case", None)
        if case is None or not case.artefacts or not case.prose.strip():
            return self.text
        found = " ".join(dict.fromkeys([*(s.replace("_", " ") for s in case.signatures[:2]), *(str(case.get(n)) for n in ("engine", "launcher") if case.get(n))]))
        return f"{case.prose} {found}".strip()

    def retrieve(self, query: str | None = None, *, k: int = 3, topics: list[str] | None = None) -> list:
        # Pasted logs make poor queries: the question is in the first lines.
        if query is None:
            # A follow-up ("Slurm 上呢？") is searched together with the question it follows; a message that pastes a command or
            # a log is searched by the user's own words and what the case reader found in the paste, not by the log's lines.
            asked = self.asked()
            query = f"{self.understanding.context} {asked}" if self.understanding.context else asked
        text = query[:MAX_QUERY_CHARS]
        self.check_cancelled()
        try:
            return self.index.search(text, k=k, language=self.lang, topics=topics)
        except InputError:
            return []


def model_ref(ctx: Context) -> dict:
    """The workload's model as the sizing tools take it: the catalog id, or a parameter count when none was named."""
    return {"model": ctx.slots.model, "params_b": None if ctx.slots.model else ctx.slots.params_b}


def model_params(ctx: Context) -> float | None:
    """The workload's parameter count: the catalog model's, else the size the user gave."""
    s = ctx.slots
    if s.model in ctx.catalog.models:
        return ctx.catalog.models[s.model].params
    return s.params_b * 1e9 if s.params_b else None
