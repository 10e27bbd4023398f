"""Extractive answers from retrieved chunks: the sentences that best match the question, each cited.

This is the embedded default's "writer" for knowledge questions: it never
invents text, so every sentence (and number) is a cited passage.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path


from service import yaml_files
from service.assistant.understand import INJECTION
from service.contract import Block, BulletsBlock, ChecklistBlock, ChecklistStep
from service import budget

CODE = re.compile(r"```[a-zA-Z]*\n.*?```", re.S)
FENCE = re.compile(r"^```[a-zA-Z]*\n|```$")
CJK = re.compile(r"[\u4e00-\u9fff]")
STOP_EN = set("the a an of to in on for and or is are be with what how why do does my our we i it this that when which can should".split())
# Question kinds and the sentences that answer them are vocabulary: faq_cues.yaml (en and zh), compiled once.
CUES = Path(__file__).with_name("faq_cues.yaml")


@budget.loader
def _cues() -> dict[str, dict[str, list[str]]]:
    return yaml_files.safe_load(CUES.read_text(encoding="utf-8"))


def _alternatives(name: str) -> str:
    return "|".join(fragment for language in ("en", "zh") for fragment in _cues()[name].get(language, []))


def _cue(name: str) -> re.Pattern[str]:
    return re.compile(_alternatives(name), re.I)


REMEDY_ASK = _cue("remedy_ask")
ADVICE = _cue("advice")
SOLUTION_HEADING = re.compile(r"优化|解决|排查|办法|做法|手段|建议|修复|预防|fix|optimi[sz]|mitigat|how to|what to do|remed|prevent|diagnos|checklist", re.I)
# "Is X worth it?" (WORTH_ASK) is answered by VERDICT sentences; "A or B?" (DIFFERENCE_ASK) by sentences naming both SIDES.
WORTH_ASK = _cue("worth_ask")
VERDICT = _cue("verdict")
DIFFERENCE_ASK = _cue("difference_ask")
# "Is our value low?" (JUDGE_ASK) is answered by BENCHMARK sentences: the typical or published range.
JUDGE_ASK = _cue("judge_ask")
BENCHMARK = _cue("benchmark")
# "What is X?" (DEFINE_ASK) is answered by DEFINITION sentences, not by a formula or a figure about X.
DEFINE_ASK = _cue("define_ask")
DEFINITION = _cue("definition")
# "Which is cheaper?" (PRICE_ASK) is answered by PRICE sentences: prices, cost per GPU-hour, quotes.
PRICE_ASK = _cue("price_ask")
PRICE = _cue("price")
SIDES = re.compile(rf"([A-Za-z][A-Za-z0-9_.+-]*)\s*(?:{_alternatives('sides_connective')})\s*([A-Za-z][A-Za-z0-9_.+-]*)", re.I)
COMMAND_ASK = re.compile(
    r"命令|怎么测|如何测|怎么查|如何查|怎么检查|如何检查|怎么跑|command|how (?:do|can) (?:i|we) (?:test|check|run|measure)|which tool|用什么工具|checklist|清单",
    re.I,
)


@dataclass
class Passage:
    text: str
    citation: int  # 1-based index into the answer's citations
    score: float
    order: int
    is_code: bool = False


CODE_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")


def terms(text: str) -> set[str]:
    """Latin words and CJK bigrams: enough overlap signal without a tokenizer."""
    lowered = text.lower()
    words = {w for w in CODE_WORD.findall(lowered) if w not in STOP_EN and len(w) > 1}
    cjk = "".join(CJK.findall(lowered))
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def units(chunk_text: str) -> list[tuple[str, bool]]:
    """Split a chunk into sentences/bullets and code blocks, in order."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in CODE.finditer(chunk_text):
        out.extend((s, False) for s in _sentences(chunk_text[pos : m.start()]))
        out.append((m.group(0).strip(), True))
        pos = m.end()
    out.extend((s, False) for s in _sentences(chunk_text[pos:]))
    return out


LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+(?=[A-Z\u4e00-\u9fff])")


def _sentences(text: str) -> list[str]:
    pieces: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("|---"):
            continue
        line = LIST_MARKER.sub("", line)
        for sentence in SENTENCE_END.split(line):
            sentence = sentence.strip()
            if len(sentence) >= 8:
                pieces.append(sentence)
    return pieces


def select(question: str, chunks: list[str], *, max_points: int = 5, want_code: bool | None = None, headings: list[str] | None = None) -> list[Passage]:
    """The best sentences across chunks; chunk i is citation i+1. The first chunk is favoured.

    A "what do I do" question favours advice sentences and sections about fixes.
    """
    q = terms(question)
    want_code = bool(COMMAND_ASK.search(question)) if want_code is None else want_code
    remedy = bool(REMEDY_ASK.search(question))
    headings = headings or [""] * len(chunks)
    passages: list[Passage] = []
    order = 0
    for index, chunk in enumerate(chunks):
        for position, (text, is_code) in enumerate(units(chunk)):
            if INJECTION.search(text):
                continue  # a document that gives orders is not quoted
            overlap = len(q & terms(text))
            score = overlap / math.sqrt(len(terms(text)) + 4) + (0.6 if index == 0 else 0.2 / index) + (0.3 if position == 0 else 0.0)
            if remedy:
                score += (0.35 if ADVICE.search(text) else 0.0) + (0.3 if SOLUTION_HEADING.search(headings[index]) else 0.0)
            if is_code:
                score = score + 0.5 if want_code else -1.0
            passages.append(Passage(text=text, citation=index + 1, score=score, order=order, is_code=is_code))
            order += 1
    best = sorted((p for p in passages if p.score > 0), key=lambda p: -p.score)
    chosen: list[Passage] = []
    codes = 0
    for passage in best:
        if passage.is_code:
            if codes >= 2:
                continue
            codes += 1
        chosen.append(passage)
        if len(chosen) - codes >= max_points:
            break
    # Keep the strongest point first, the rest in reading order.
    if not chosen:
        return []
    head, rest = chosen[0], sorted(chosen[1:], key=lambda p: p.order)
    return [head, *rest]


def blocks(passages: list[Passage], *, title: str | None = None) -> list[Block]:
    """Passages as blocks: runs of sentences become bullets ending in their [n]; quoted code becomes a cited command step."""
    out: list[Block] = []
    for p in passages:
        if p.is_code:
            commands = [line for line in FENCE.sub("", p.text).strip("\n").splitlines()]
            out.append(ChecklistBlock(steps=[ChecklistStep(text=f"[{p.citation}]", commands=commands)]))
        elif out and isinstance(out[-1], BulletsBlock):
            out[-1].items.append(f"{p.text} [{p.citation}]")
        else:
            out.append(BulletsBlock(items=[f"{p.text} [{p.citation}]"]))
    if out and title:
        out[0].title = title
    return out


def cite(passages: list[Passage], hits: list, *, title: str | None = None) -> tuple[list[Block], list]:
    """Blocks for the passages citing [1..n] over only the hits they use (in first-use order of rank)."""
    if not passages:
        return [], []
    used = sorted({p.citation for p in passages})
    renumber = {old: new + 1 for new, old in enumerate(used)}
    for p in passages:
        p.citation = renumber[p.citation]
    return blocks(passages, title=title), [hits[i - 1] for i in used]
