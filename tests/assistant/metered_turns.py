"""Answer messages with every service pattern metered: how many characters the readers were handed, per turn.

    python -m tests.assistant.metered_turns DATA_DIR < messages.jsonl > work.jsonl

Run in a process of its own (tests/assistant/test_bounded_work.py starts it) because the meter has to be in place
before the service is imported: `re._compile` is wrapped so that every pattern compiled from a service module (at
import, from a data file or inline in `re.search(...)`) is a thin proxy that adds the length of each string it is
applied to (from `pos`, for finditer once) to the turn's count. Each input line is {"message": ...} (with "warm_up":
true: answered first, not measured); each output line
{"scanned": characters handed to service patterns, "applications": pattern calls, "text": what understanding read}.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


class Meter:
    scanned = 0
    applications = 0


class MeteredPattern:
    """A compiled pattern that counts what it is applied to; everything else is the pattern's own."""

    __slots__ = ("_pattern",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._pattern = pattern

    def __getattr__(self, name: str):
        return getattr(self._pattern, name)


def _note(string, pos: int = 0, endpos: int | None = None, *_: object) -> None:
    Meter.applications += 1
    Meter.scanned += max(0, (len(string) if endpos is None else min(endpos, len(string))) - pos)


def _metered(name: str, string_at: int, positions: bool):
    """The pattern's method `name`, counting its string argument (at `string_at`, followed by pos and endpos when
    `positions`) first."""
    def method(self: MeteredPattern, *args, **kwargs):
        _note(*args[string_at : string_at + (3 if positions else 1)])
        return getattr(self._pattern, name)(*args, **kwargs)

    method.__name__ = name
    return method


for _name in ("search", "match", "fullmatch", "finditer", "findall"):
    setattr(MeteredPattern, _name, _metered(_name, 0, positions=True))
setattr(MeteredPattern, "split", _metered("split", 0, positions=False))
for _name in ("sub", "subn"):
    setattr(MeteredPattern, _name, _metered(_name, 1, positions=False))


def install() -> None:
    compile_ = re._compile

    def metered(pattern, flags):
        if isinstance(pattern, MeteredPattern):
            return pattern
        compiled = compile_(pattern, flags)
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__") == "re":
            frame = frame.f_back
        caller = frame.f_globals.get("__name__", "") if frame is not None else ""
        return MeteredPattern(compiled) if caller.startswith("service.") else compiled

    re._compile = metered


def main(data_dir: str) -> int:
    install()
    from service.config import Settings
    from service.contract import ChatRequest
    from service.runtime import Runtime

    runtime = Runtime(Settings(data_dir=Path(data_dir), environment="test", api_keys=[], llm_provider="none", answer_memo_size=0,
                               turn_budget_s=600))
    runtime.open_index()
    advisor = runtime.advisor
    understander = runtime.assistant.understander
    understand = understander.understand
    seen: list[str] = []

    def reading(text, **kwargs):
        seen.append(text)
        return understand(text, **kwargs)

    understander.understand = reading
    lines = [json.loads(line) for line in sys.stdin]
    for item in lines:
        if item.get("warm_up"):
            advisor.answer(ChatRequest(message=item["message"]))  # first calls load and compile: no message's work
    for item in (i for i in lines if not i.get("warm_up")):
        message = item["message"]
        seen.clear()
        Meter.scanned = Meter.applications = 0
        answer = advisor.answer(ChatRequest(message=message))
        print(json.dumps({"scanned": Meter.scanned, "applications": Meter.applications, "text": seen[0] if seen else "",
                          "ungrounded": answer.grounding.ungrounded, "answered": bool(answer.answer.strip())}, ensure_ascii=False), flush=True)
    runtime.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
