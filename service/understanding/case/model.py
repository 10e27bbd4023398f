"""The case a message states: the user's own prose, the artefacts they pasted, the facts read from those, and the act.

A `Fact` always carries the line it came from, so an answer (and `advisor ask --explain`) can show where each
value was read. Facts are typed by name (`data/facts.yaml` lists every name, its meaning and the tool field it
feeds); the value is a plain JSON scalar.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ArtefactKind = Literal["command", "json", "yaml", "log", "tool_output", "code", "env"]
Act = Literal["quantity", "yes_no", "cause", "choice", "procedure", "consequence", "explain", "none"]
Scalar = str | int | float | bool


class Artefact(BaseModel):
    """A pasted piece of text that is not the user's sentence: a command, a config, a log, a tool's output."""

    model_config = ConfigDict(frozen=True)

    kind: ArtefactKind
    text: str
    first_line: int = Field(description="1-based line of the message where it starts")
    fenced: bool = False


class Fact(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    value: Scalar
    line: int = Field(description="1-based line of the message it was read from")
    quote: str = Field(description="that line, trimmed")
    parser: str = Field(description="which reader found it: launch, deepspeed_json, pytorch_oom, nvidia_smi, ...")


class Part(BaseModel):
    """One question of a multi-part message, with its act."""

    text: str
    act: Act


class Case(BaseModel):
    prose: str = Field(description="the user's own words, artefacts removed")
    artefacts: list[Artefact] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    act: Act = "none"
    parts: list[Part] = Field(default_factory=list)
    signatures: list[str] = Field(default_factory=list, description="error signatures found, most specific first")
    subject: str | None = Field(default=None, description="what the case is about, for the capability table (subject.py)")

    def get(self, name: str, default: Scalar | None = None) -> Scalar | None:
        """The first value read for `name` (readers append the most specific first)."""
        for fact in self.facts:
            if fact.name == name:
                return fact.value
        return default

    def fact(self, name: str) -> Fact | None:
        return next((f for f in self.facts if f.name == name), None)

    def all(self, name: str) -> list[Fact]:
        return [f for f in self.facts if f.name == name]

    def mentions(self, kind: str) -> list[str]:
        """What the prose names of one kind ("option", "family"), in order: `mentions("option")` -> ["zero3", "offload"]."""
        prefix = f"{kind}:"
        return list(dict.fromkeys(str(f.value)[len(prefix):] for f in self.facts if f.name == "mention" and str(f.value).startswith(prefix)))

    def has(self, *names: str) -> bool:
        return any(self.fact(n) is not None for n in names)

    @property
    def pasted(self) -> bool:
        return bool(self.artefacts)

    def kinds(self) -> set[str]:
        return {a.kind for a in self.artefacts}
