"""What the user's prose names: a change they ask about and the kind of trouble they suspect (data/mentions.yaml).

Patterns are compiled with re.ASCII so that `\b` sits between a Chinese character and a Latin word ("实际vllm部署")."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from service import yaml_files
from service.understanding.case.model import Fact

DATA = Path(__file__).parent / "data" / "mentions.yaml"


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    data = yaml_files.safe_load(DATA.read_text(encoding="utf-8"))
    return [(f"{kind}:{name}", re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE | re.ASCII))
            for kind, entries in data.items() for name, patterns in entries.items()]


def mention_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(`<kind>:<name>`, its compiled alternation), for readers that need where in a line a mention sits."""
    return _patterns()


def mention_facts(line: str, line_no: int) -> list[Fact]:
    head = line[:2000]
    return [Fact(name="mention", value=value, line=line_no, quote=line.strip()[:200], parser="prose")
            for value, pattern in _patterns() if pattern.search(head)]
