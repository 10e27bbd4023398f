"""No question can make a reader backtrack for long.

The readers chain optional gaps (`\\s*(?:张|块)?\\s*(?:卡)?\\s*`): over a run of n blanks such a chain
tries about n^k splits: one load reader took 9.6 s on a number and 400 spaces, growing as n^4 (about a day at
the 4,000-character limit). The pipeline collapses every whitespace run to one character before any reader sees the text,
and regexploit (a static ReDoS finder) checks that every pattern the service compiles is super-linear
only over whitespace, the one thing the collapse removes.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from regexploit.ast.sre import SreOpParser
from regexploit.languages.python_node_visitor import PythonNodeVisitor
from regexploit.redos import find

import service
from service.assistant import cues
from service.assistant.handlers.diagnostics import signatures
from service.assistant.pipeline import collapse_whitespace
from service.assistant.slot_amounts import MAX_BLANK_RUN, blank_out
from service.contract import ChatRequest
from service.understanding.registry import load_registry
from service.understanding.rule_cues import load_rule_cues

SERVICE = Path(service.__file__).parent
BLANKS = frozenset(" \t\n\r\x0b\x0c\xa0\u3000")
# Questions that walk the readers' branches (sizing, serving, prices, budgets, ownership, claims).
WARM_UP = (
    "我们有 8 张 H100，全参训 7B 要多久？",
    "serve Llama 3 70B for 300 concurrent users with 4k prompts and 500-token answers at 20 tokens/s",
    "H100 每卡每小时 2.5 美元，按 3 年折旧，利用率 60% 时自建划算吗",
    "预算 50 万，想做 13B 的 LoRA 微调，学生团队",
    "vendor says 1,000+ GPUs scale at 95% efficiency and 3,000 samples/s per node",
    "a 10-hour video dataset, 8k context, average 2k tokens per sample, QPS 12",
    "NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12, vendor err 129",
    "AutoDL 上租 4090 一个月大概多少钱",
)


def test_whitespace_runs_become_one_character() -> None:
    assert collapse_whitespace("  8 \t\u3000 张   H100 ") == "8 张 H100"
    assert collapse_whitespace("Traceback:\n\n   File x\r\n  line 3") == "Traceback:\nFile x\nline 3"
    assert collapse_whitespace("\xa0\n ") == ""


@pytest.mark.parametrize(("message", "count"), [
    ("我们有 8" + " " * 3900 + "张 H100，训练 7B 要多久？", 8),
    ("We have 16" + " " * 3900 + "x A100 80GB, how long to fine-tune a 13B model?", 16),
])
def test_a_long_blank_run_is_read_as_one_gap(advisor, message: str, count: int) -> None:
    # Before the collapse, a number followed by this many blanks kept the slot and load readers busy far past any timeout.
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == []
    assert answer.slots.get("gpus") == count, answer.slots


def test_masked_names_cannot_rebuild_a_long_blank_run(advisor) -> None:
    # The slot readers blank out each catalog name in place; hundreds of names in a row once rebuilt the run of
    # blanks the collapse had removed (each of these ran past 10 s). Runs are capped (slot_amounts.blank_out).
    answer = advisor.answer(ChatRequest(message="8 张 " + "H100 " * 700 + "训练 7B 要多久"))
    assert answer.grounding.ungrounded == [] and answer.slots.get("gpu") == "h100-sxm"
    blanked = blank_out("x" * 100, 10, 90)
    assert " " * (MAX_BLANK_RUN + 1) not in blanked and len(blanked) == 100 and blanked.count(" ") == MAX_BLANK_RUN


def _patterns_in(value: object, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)
    elif depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 3 and hasattr(value, "__dict__") and type(value).__module__.startswith("service."):
        yield from _patterns_in(vars(value), depth + 1)


def _service_patterns(advisor, monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, int], str]:
    """Every pattern the service compiles: module globals, the cue and vocabulary files, literals in
    the source (inline re.search calls), and whatever a round of questions compiles at run time."""
    found: dict[tuple[str, int], str] = {}

    def note(pattern: str, flags: int, where: str) -> None:
        found.setdefault((pattern, int(flags)), where)

    for module in pkgutil.walk_packages(service.__path__, "service."):
        if module.name.endswith("migrations.env"):
            continue  # alembic's env.py runs only under alembic
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            for pattern in _patterns_in(value):
                note(pattern.pattern, pattern.flags, f"{module.name}.{name}")
    for cue_file in (SERVICE / "assistant").glob("*_cues.yaml"):
        for name, pattern in cues.patterns(cue_file.name).items():
            note(pattern.pattern, pattern.flags, f"{cue_file.name}:{name}")
    for pattern in [*_patterns_in(vars(load_registry())), *_patterns_in(vars(load_rule_cues()))]:
        note(pattern.pattern, pattern.flags, "understanding data")
    for signature in signatures():
        note(signature.pattern.pattern, signature.pattern.flags, f"diagnostic_signatures.yaml:{signature.name}")
    for source in SERVICE.rglob("*.py"):
        visitor = PythonNodeVisitor()
        visitor.visit(ast.parse(source.read_bytes()))
        for literal in visitor.patterns:
            note(literal.pattern, literal.flags, f"{source.relative_to(SERVICE)}:{literal.lineno}")
    compile_ = re._compile

    def recording(pattern, flags):
        if isinstance(pattern, str):
            note(pattern, flags, "compiled while answering")
        return compile_(pattern, flags)

    monkeypatch.setattr(re, "_compile", recording)
    for question in WARM_UP:
        advisor.answer(ChatRequest(message=question))
    monkeypatch.setattr(re, "_compile", compile_)
    return found


def test_every_super_linear_pattern_backtracks_only_over_whitespace(advisor, monkeypatch) -> None:
    patterns = _service_patterns(advisor, monkeypatch)
    assert len(patterns) > 500  # the collection really saw the readers
    outside_whitespace, over_whitespace = [], 0
    for (pattern, flags), where in patterns.items():
        repeats = _super_linear_repeats(pattern, flags)
        over_whitespace += sum(map(_only_blanks, repeats))
        outside_whitespace += [f"{where}: {pattern[:120]} repeats {c}" for c in repeats if not _only_blanks(c)]
    assert not outside_whitespace, "\n".join(outside_whitespace)
    assert over_whitespace > 0  # the finder runs: today's readers do chain \s* gaps


def test_the_check_tells_a_blank_chain_from_a_digit_chain() -> None:
    assert all(map(_only_blanks, _super_linear_repeats(r"(\d+)\s*(?:张)?\s*(?:卡)?\s*(?:gpu)", re.I)))
    digit_chain = _super_linear_repeats(r"(\d+)[\d,]*\d*\s*(?:卡)", 0)
    assert digit_chain and not any(map(_only_blanks, digit_chain))
    assert _super_linear_repeats(r"(\d+)\s*卡", 0) == []


def _super_linear_repeats(pattern: str, flags: int) -> list:
    """The repeated characters of every cubic-or-worse backtracking path regexploit finds (quadratic
    ones stay bounded by the 4,000-character message limit)."""
    try:
        parsed = SreOpParser().parse_sre(pattern, flags)
    except (re.error, ValueError, TypeError):
        return []  # a literal that is not a regex (the visitor sees every string passed to re)
    return [redos.repeated_character for redos in find(parsed) if redos.starriness > 2]


# Letters, digits, punctuation, CJK and full-width forms: a repeated character class that matches none
# of these matches only blanks.
PROBES = [c for c in (*range(0x21, 0x2000), *range(0x3001, 0x3040), *range(0x4E00, 0x4F00), *range(0xFF01, 0xFF5F))
          if not chr(c).isspace()]


@cache
def _only_blanks(character) -> bool:
    return not any(character.matches(c) for c in PROBES)
