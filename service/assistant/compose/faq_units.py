"""The quotable units of a retrieved section: its sentences and whole list items (a table row as one statement, a
short command block with the sentence that announces it), without headings, code, pointers to other documents or
intros left dangling. Split from faq_answer.py, which scores and picks among them; all functions are pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_CHARS = 12

LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
CLAUSE_END = re.compile(r"\s*[;；,，]\s*$")  # a list item ending like this continues the sentence that announced the list
LOWER_START = re.compile(r"^[a-z]")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING_LINE = re.compile(r"^\s*#{1,6}\s")
TABLE_LINE = re.compile(r"^\s*\|")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
CJK = re.compile(r"[\u3400-\u9fff]")
COMMENT = re.compile(r"\s+#\s.*$")  # a shell comment after a command
MAX_COMMANDS, MAX_COMMAND_CHARS = 3, 100
# Whole sentences: a semicolon joins two halves of one point, so it does not end a sentence here; nor does the
# full stop of an abbreviation ("Narayanan et al. (2021) show …" is one sentence, not "Narayanan et al." and a fragment).
SENTENCE_SPLIT = re.compile(
    r"(?<=[。！？])"
    r"|(?<=[.!?])(?<!\bet al\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bcf\.)(?<!\bFig\.)(?<!\bNo\.)(?<!\bSec\.)(?<!\bapprox\.)"
    r"\s+(?=[A-Z0-9\u4e00-\u9fff*`\"(（])"
)
# Pointers to other documents mean nothing in an answer: "具体命令见“…”一文。" is dropped, "(see the … document)" cut.
REFERENCE_ONLY = re.compile(
    r"^(?:see |for details see |具体.{0,12}见|详见|参见|见“)|\b(?:the|this) [\w -]{0,40}document (?:gives|lists|has|describes)\b|见.{0,24}一文",
    re.I,
)
REFERENCE_ASIDE = re.compile(r"\s*[(（](?:see|见|参见|详见)[^()（）]{0,80}[)）]", re.I)
# An intro that only announces what follows: a colon at the end, or "three situations." / "以下几种情况。".
ANNOUNCES = re.compile(
    r"[:：]\s*$"
    r"|\b(?:the following|as follows|(?:two|three|four|five|six|several|a few|these|the)\s+(?:main\s+)?"
    r"(?:situations|cases|ways|reasons|things|steps|options|kinds|types|parts|factors|rules|levels|signs|causes|checks|questions)\.?)\s*$"
    r"|(?:以下|如下|下面|下列|[两二三四五六七几]种(?:情况|方式|做法|办法|原因|选择|场景|类型)|[两二三四五六七几]个(?:方面|步骤|原因|问题))[。.]?\s*$",
    re.I,
)


@dataclass
class Unit:
    """One quotable piece of a hit: a prose sentence or a whole list item."""

    text: str
    hit: int  # index into the hits
    position: int  # order inside its hit
    is_item: bool
    relevance: float = 0.0
    base: float = 0.0  # relevance of the text itself (and what it inherits), before section heading and rank
    intro: str = ""  # for a list item: the sentence that announced its list
    rank_in_list: int = 0
    clause: bool = False  # a list item that only completes its intro's sentence: shown after the intro
    hidden: bool = False  # an announcing intro: scored (its list inherits from it), never quoted alone


def units(text: str, hit: int = 0) -> list[Unit]:
    """Sentences and whole list items of a chunk, without headings, tables, code or dangling intros."""
    out: list[Unit] = []
    paragraph: list[str] = []
    in_code = False
    intro: list[str] = [""]  # the last announcing sentence, inherited by the list that follows it
    rank = [0]
    table_header: list[str] | None = None

    def flush() -> None:
        prose = " ".join(paragraph).strip()
        paragraph.clear()
        for sentence in SENTENCE_SPLIT.split(prose):
            if ANNOUNCES.search(sentence.strip()):
                intro[0], rank[0] = sentence.strip(), 0
                out.append(Unit(text=sentence.strip(), hit=hit, position=-1, is_item=False, hidden=True))
                continue
            _add(out, sentence, hit, is_item=False)

    lines = text.splitlines()
    code: list[str] = []
    for number, line in enumerate(lines):
        if FENCE.match(line):
            in_code = not in_code
            flush()
            if not in_code:
                _add_commands(out, code, hit)
            code = []
            continue
        if in_code:
            code.append(line)
            continue
        if TABLE_LINE.match(line) and not in_code:
            flush()
            if table_header is None:
                table_header = _cells(line)
            elif not TABLE_RULE.match(line):
                if _add(out, _row_text(table_header, _cells(line)), hit, is_item=True) and intro[0]:
                    out[-1].intro, out[-1].rank_in_list = intro[0], rank[0]
                    rank[0] += 1
            continue
        table_header = None
        if in_code or HEADING_LINE.match(line) or not line.strip():
            flush()
            continue
        if LIST_ITEM.match(line):
            flush()
            item = LIST_ITEM.sub("", line, count=1)
            # Continuation lines of the item (indented, not a new item) belong to it.
            for follow in lines[number + 1 :]:
                if not follow.strip() or LIST_ITEM.match(follow) or not follow.startswith((" ", "\t")):
                    break
                item += " " + follow.strip()
            # "- a job bound by communication;" continues the sentence that announced the list (so does the list's last
            # item after such clauses, "- short jobs, where compile time is not repaid."): shown after that sentence.
            clause = bool(intro[0]) and bool(CLAUSE_END.search(item) or (rank[0] and out and out[-1].clause and LOWER_START.match(item)))
            if _add(out, CLAUSE_END.sub("。" if CJK.search(item) else ".", item) if clause else item, hit, is_item=True) and intro[0]:
                out[-1].intro, out[-1].rank_in_list, out[-1].clause = intro[0], rank[0], clause
                rank[0] += 1
            continue
        if line.startswith((" ", "\t")) and out and out[-1].is_item and not paragraph:
            continue  # already joined to its list item
        intro[0] = ""  # prose after a list ends it
        paragraph.append(line.strip())
    flush()
    return out


def _add_commands(out: list[Unit], code: list[str], hit: int) -> None:
    """A short command block announced by the sentence before it ("第一步看随时间的变化规律：") becomes one point:
    the intro with its commands inline, so the intro is not left dangling and the commands are not lost."""
    commands = [COMMENT.sub("", c).strip() for c in code if c.strip() and not c.lstrip().startswith("#")]
    if not out or not out[-1].hidden or not commands or len(commands) > MAX_COMMANDS:
        return
    if any(len(c) > MAX_COMMAND_CHARS or "`" in c for c in commands):
        return
    intro = out[-1].text
    separator = "；" if CJK.search(intro) else "; "
    _add(out, f"{intro} " + separator.join(f"`{c}`" for c in commands), hit, is_item=False, allow_colon=True)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _row_text(header: list[str], cells: list[str]) -> str:
    """A table row as one statement in the document's words: "Xid 79：GPU 从总线上掉线；摘除节点…"."""
    cells = [c for c in cells if c]
    if not cells:
        return ""
    chinese = bool(CJK.search(" ".join(cells)))
    label = f"{header[0]} {cells[0]}" if header and header[0] and len(cells[0]) <= 12 else cells[0]
    colon, join = ("：", "；") if chinese else (": ", "; ")
    return label + (colon + join.join(cells[1:]) if len(cells) > 1 else "")


def _add(out: list[Unit], text: str, hit: int, *, is_item: bool, allow_colon: bool = False) -> bool:
    text = REFERENCE_ASIDE.sub("", text.strip())
    if REFERENCE_ONLY.search(text):
        return False
    if text.count("**") % 2:
        text = text.replace("**", "")  # a bold span cut by the sentence split
    if text.count("`") % 2:
        text = text.replace("`", "")
    if len(text) < MIN_CHARS or (ANNOUNCES.search(text) and not allow_colon):
        return False
    out.append(Unit(text=text, hit=hit, position=len([u for u in out if u.hit == hit and not u.hidden]), is_item=is_item))
    return True
