"""The registry of artefact readers: a reader takes one artefact and returns the facts it reads, each with its line.

A new artefact format is one module with one `@reader(...)` function; `read_artefacts` runs every reader whose
kinds include the artefact's kind. Readers never raise on bad input: a config that does not parse gives no facts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from service.understanding.case.model import Artefact, Fact

ReaderFn = Callable[[Artefact], list[Fact]]


@dataclass(frozen=True)
class Reader:
    name: str
    kinds: frozenset[str]
    read: ReaderFn


READERS: list[Reader] = []


def reader(name: str, kinds: Iterable[str]) -> Callable[[ReaderFn], ReaderFn]:
    def register(fn: ReaderFn) -> ReaderFn:
        READERS.append(Reader(name=name, kinds=frozenset(kinds), read=fn))
        return fn

    return register


QUOTE_CHARS = 100


def line_of(artefact: Artefact, needle: str) -> tuple[int, str]:
    """(message line, the words around `needle` on it) for the first artefact line containing `needle`, else the
    artefact's first line. A long line (a one-line launch command) is quoted around the needle, not whole."""
    lines = artefact.text.splitlines()
    for offset, text in enumerate(lines):
        at = text.find(needle) if needle else -1
        if at >= 0:
            return artefact.first_line + offset, _window(text, at, len(needle))
    return artefact.first_line, (lines[0].strip()[:QUOTE_CHARS] if lines else "")


def _window(text: str, at: int, length: int) -> str:
    text = text.rstrip(" \\")
    if len(text.strip()) <= QUOTE_CHARS:
        return text.strip()
    start = max(0, at - 10)
    end = min(len(text), max(at + length + 40, start + 60))
    return ("…" if start > 0 else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def read_artefacts(artefacts: list[Artefact]) -> list[Fact]:
    from service.understanding.case import read_commands, read_configs, read_errors, read_python, read_tools  # noqa: F401 — they register readers

    facts: list[Fact] = []
    for artefact in artefacts:
        for entry in READERS:
            if artefact.kind in entry.kinds:
                try:
                    facts.extend(entry.read(artefact))
                except (ValueError, TypeError, KeyError, IndexError, RecursionError):
                    continue  # a reader that cannot read this artefact gives nothing; the others still read it
    # Two readers of one artefact (a Python snippet is read as code and as words) may read the same fact off the same line.
    unique = {(f.name, repr(f.value), f.line): f for f in reversed(facts)}
    return [f for f in facts if unique[(f.name, repr(f.value), f.line)] is f]
