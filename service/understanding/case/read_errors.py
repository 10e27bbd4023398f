"""Error signatures in pasted logs and error lines (data/signatures.yaml): which errors, with their numbers.

Each line is matched on its own (bounded length), so reading is linear in the message. A signature found yields a
`signature` fact; its named groups yield number facts (memory converted to GiB). `rank_signatures` orders what was
found by specificity and drops those a more telling one excludes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from service import yaml_files
from service.understanding.case.model import Artefact, Fact
from service.understanding.case.readers import reader

DATA = Path(__file__).parent / "data" / "signatures.yaml"
MAX_LINE = 2000
TO_GIB = {"gib": 1.0, "gb": 1.0, "mib": 1 / 1024, "mb": 1 / 1024, "kib": 1 / 1024**2, "kb": 1 / 1024**2, "bytes": 1 / 1024**3}


@dataclass(frozen=True)
class Signature:
    id: str
    family: str
    specificity: int
    patterns: tuple[re.Pattern[str], ...]
    facts: dict[str, str]
    excludes: tuple[str, ...]


@cache
def signatures() -> dict[str, Signature]:
    data = yaml_files.safe_load(DATA.read_text(encoding="utf-8"))["signatures"]
    return {sid: Signature(id=sid, family=entry["family"], specificity=int(entry["specificity"]),
                           patterns=tuple(re.compile(p, re.IGNORECASE | re.ASCII) for p in entry["patterns"]), facts=dict(entry.get("facts") or {}),
                           excludes=tuple(entry.get("excludes") or ())) for sid, entry in data.items()}


def _value(match: re.Match[str], group: str) -> float | str | None:
    raw = match.group(group)
    if raw is None:
        return None
    unit = match.groupdict().get(f"{group}_unit")
    cleaned = raw.replace(",", "")
    try:
        number = float(cleaned)
    except ValueError:
        return raw.strip()[:200]
    if unit is not None:
        return round(number * TO_GIB.get(unit.lower(), 1.0), 3)
    return int(number) if number == int(number) else number


def signature_facts(text: str, first_line: int, parser: str) -> list[Fact]:
    facts: list[Fact] = []
    seen: set[tuple[str, str]] = set()
    table = signatures()
    lines = text.splitlines()
    for offset, line in enumerate(lines):
        head = line[:MAX_LINE]
        # A long error line a terminal or an editor wrapped ("... stored in KV cache (" / "3984). Try ...") is read joined too.
        joined = head + (lines[offset + 1][:MAX_LINE].lstrip() if offset + 1 < len(lines) else "")
        for signature in table.values():
            for pattern in signature.patterns:
                match = pattern.search(head) or (pattern.search(joined) if joined != head else None)
                if match is None:
                    continue
                quote = line.strip()[:200]
                if ("signature", signature.id) not in seen:
                    seen.add(("signature", signature.id))
                    facts.append(Fact(name="signature", value=signature.id, line=first_line + offset, quote=quote, parser=parser))
                for group, name in signature.facts.items():
                    if group in match.groupdict():
                        value = _value(match, group)
                        if value is not None and (name, str(value)) not in seen:
                            seen.add((name, str(value)))
                            facts.append(Fact(name=name, value=value, line=first_line + offset, quote=quote, parser=parser))
    return facts


@reader("error_signatures", kinds=("log", "code", "tool_output", "command", "json", "yaml", "env"))
def read_error_lines(artefact: Artefact) -> list[Fact]:
    return signature_facts(artefact.text, artefact.first_line, parser="error_log")


def rank_signatures(found: list[str]) -> list[str]:
    """The signatures found, most specific first, without those a found one excludes."""
    table = signatures()
    known = [s for s in dict.fromkeys(found) if s in table]
    excluded = {e for s in known for e in table[s].excludes}
    return sorted((s for s in known if s not in excluded), key=lambda s: -table[s].specificity)


def family(signature: str) -> str:
    entry = signatures().get(signature)
    return entry.family if entry else "unknown"
