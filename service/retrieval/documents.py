"""Read knowledge documents (knowledge/docs/<language>/<id>.md) and check their front matter.

Every problem is reported as a KnowledgeFileError naming the file and the line,
before anything touches the index, so a bad file never reaches users.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from service import yaml_files
from service.errors import KnowledgeFileError

LANGUAGES = ("en", "zh")

# The topic vocabulary of knowledge/FORMAT.md; the search filter accepts the same names.
TOPICS = (
    "evaluation-dimensions", "tiers", "cloud-vs-onprem", "preflight", "reliability",
    "utilization", "memory", "multi-tenancy", "environment", "parallelism", "precision",
    "peft", "spot", "storage", "networking", "gpu-health", "inference", "cost", "claims",
    "hardware", "monitoring",
)  # fmt: skip

REQUIRED = ("id", "title", "language", "topics", "sources")
OPTIONAL = ("last_reviewed", "sections")
# Each section entry declares the questions it answers; they are indexed as extra vectors (see ingest.py).
MIN_SECTION_QUESTIONS = 3
SECTION_KEYS = ("heading", "source", "questions")
H2 = re.compile(r"^##\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
DOC_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
URL = re.compile(r"^https?://\S+$")


@dataclass(frozen=True)
class Section:
    """A `sections:` entry: one `## ` heading, the source its passage comes from, the questions it answers."""

    heading: str
    source: dict[str, str]
    questions: tuple[str, ...]


@dataclass(frozen=True)
class KnowledgeDocument:
    """One document in one language: validated front matter plus the Markdown body."""

    id: str
    language: str
    title: str
    topics: tuple[str, ...]
    sources: tuple[dict[str, str], ...]
    body: str
    path: str = ""
    last_reviewed: dt.date | None = None
    kind: str = "doc"  # "doc" for written documents, "card" for generated spec cards
    names: tuple[str, ...] = ()  # a card's catalog names and aliases, normalized, for name matching
    sections: tuple[Section, ...] = ()  # declared per `## ` heading; documents without them still load

    def section(self, heading: str) -> Section | None:
        return next((s for s in self.sections if s.heading == heading), None)


def load_documents(knowledge_dir: Path) -> list[KnowledgeDocument]:
    """Every document under knowledge_dir/docs, sorted by language then id."""
    docs_dir = knowledge_dir / "docs"
    if not docs_dir.is_dir():
        return []
    documents: list[KnowledgeDocument] = []
    for path in sorted(docs_dir.rglob("*.md")):
        relative = path.relative_to(docs_dir)
        if len(relative.parts) != 2 or relative.parts[0] not in LANGUAGES:
            raise KnowledgeFileError(str(path), None, "documents belong in docs/en/<id>.md or docs/zh/<id>.md")
        documents.append(parse_document(path))
    return documents


def parse_document(path: Path) -> KnowledgeDocument:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise KnowledgeFileError(str(path), None, f"not UTF-8 text ({exc.reason})") from None
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise KnowledgeFileError(str(path), 1, "the file must start with front matter: a line '---'")
    closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if closing is None:
        raise KnowledgeFileError(str(path), 1, "the front matter is never closed with a line '---'")
    front = _parse_front_matter(path, "\n".join(lines[1:closing]), closing + 1)
    body = "\n".join(lines[closing + 1 :]).strip()
    if not body:
        raise KnowledgeFileError(str(path), closing + 1, "the document has no body after the front matter")
    sections = _check_sections(front, h2_headings(body))
    return KnowledgeDocument(
        id=front["id"],
        language=front["language"],
        title=front["title"],
        topics=tuple(front["topics"]),
        sources=tuple(front["sources"]),
        body=body,
        path=str(path),
        last_reviewed=front.get("last_reviewed"),
        sections=sections,
    )


def h2_headings(body: str) -> list[str]:
    """The `## ` headings of a Markdown body, outside code fences, in order."""
    headings: list[str] = []
    in_code = False
    for line in body.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code and (match := H2.match(line)):
            headings.append(match.group(1).strip())
    return headings


def _check_sections(front: dict[str, Any], headings: list[str]) -> tuple[Section, ...]:
    """Validate `sections:` against the body's `## ` headings and the `sources:` list."""
    entries, fail = front.get("sections"), front["_fail"]
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise fail("sections", "sections must be a list of {heading, source, questions} entries")
    sources: list[dict[str, str]] = front["sources"]
    seen: set[str] = set()
    out: list[Section] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise fail("sections", "each section entry needs 'heading', 'source' and 'questions'", index)
        unknown = [str(key) for key in entry if key not in SECTION_KEYS]
        if unknown:
            raise fail("sections", f"unknown section field '{unknown[0]}'; allowed: {', '.join(SECTION_KEYS)}", index)
        heading = entry.get("heading")
        if not isinstance(heading, str) or not heading.strip():
            raise fail("sections", "section field 'heading' must be the text of a '## ' heading in this file", index)
        heading = heading.strip()
        if heading not in headings:
            raise fail("sections", f"section field 'heading': no '## {heading}' heading in this file", index)
        if heading in seen:
            raise fail("sections", f"section field 'heading': '{heading}' is declared twice", index)
        seen.add(heading)
        source = entry.get("source")
        if isinstance(source, bool) or not isinstance(source, int) or not 1 <= source <= len(sources):
            raise fail("sections", f"section field 'source' must be a number from 1 to {len(sources)} (an entry of sources:)", index)
        questions = entry.get("questions")
        if not isinstance(questions, list) or not all(isinstance(q, str) and q.strip() for q in questions):
            raise fail("sections", "section field 'questions' must be a list of question texts", index)
        clean = tuple(dict.fromkeys(q.strip() for q in questions))
        if len(clean) < MIN_SECTION_QUESTIONS:
            raise fail(
                "sections",
                f"section field 'questions' needs at least {MIN_SECTION_QUESTIONS} different questions, found {len(clean)}",
                index,
            )
        out.append(Section(heading=heading, source=sources[source - 1], questions=clean))
    return tuple(out)


class _FrontMatter:
    """Front matter values plus the file line each key and list item sits on."""

    def __init__(self, path: Path, text: str, closing_line: int) -> None:
        self.path, self.closing_line = path, closing_line
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            self.values = yaml_files.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            # +2: the YAML text starts on the file's second line, marks are 0-based.
            line = mark.line + 2 if mark is not None else 1
            reason = getattr(exc, "problem", None) or str(exc)
            raise KnowledgeFileError(str(path), line, f"front matter is not valid YAML: {reason}") from None
        if not isinstance(self.values, dict) or not isinstance(node, yaml.MappingNode):
            raise KnowledgeFileError(str(path), 2, "front matter must be a YAML mapping of key: value lines")
        self.key_lines: dict[str, int] = {}
        self.item_lines: dict[str, list[int]] = {}
        for key_node, value_node in node.value:
            self.key_lines[str(key_node.value)] = key_node.start_mark.line + 2
            if isinstance(value_node, yaml.SequenceNode):
                self.item_lines[str(key_node.value)] = [item.start_mark.line + 2 for item in value_node.value]

    def fail(self, key: str, reason: str, item: int | None = None) -> KnowledgeFileError:
        line = self.key_lines.get(key, self.closing_line)
        if item is not None and item < len(self.item_lines.get(key, [])):
            line = self.item_lines[key][item]
        return KnowledgeFileError(str(self.path), line, reason)


def _parse_front_matter(path: Path, text: str, closing_line: int) -> dict[str, Any]:
    front = _FrontMatter(path, text, closing_line)
    values = front.values
    for key in values:
        if key not in REQUIRED and key not in OPTIONAL:
            raise front.fail(str(key), f"unknown front matter field '{key}'; allowed: {', '.join(REQUIRED + OPTIONAL)}")
    for key in REQUIRED:
        if values.get(key) in (None, "", []):
            raise front.fail(key, f"missing required field '{key}'")

    doc_id, title, language = values["id"], values["title"], values["language"]
    if not isinstance(doc_id, str) or not DOC_ID.match(doc_id):
        raise front.fail("id", f"id '{doc_id}' must be lowercase letters, digits and single dashes")
    if doc_id != path.stem:
        raise front.fail("id", f"id '{doc_id}' must match the file name '{path.stem}.md'")
    if not isinstance(title, str) or not title.strip():
        raise front.fail("title", "title must be text")
    if language not in LANGUAGES:
        raise front.fail("language", f"unknown language '{language}'; expected one of: {', '.join(LANGUAGES)}")
    if language != path.parent.name:
        raise front.fail("language", f"language '{language}' does not match the folder docs/{path.parent.name}/")

    topics = values["topics"]
    if not isinstance(topics, list):
        raise front.fail("topics", "topics must be a list, e.g. [memory, precision]")
    for index, topic in enumerate(topics):
        if topic not in TOPICS:
            raise front.fail("topics", f"unknown topic '{topic}'; known topics: {', '.join(TOPICS)}", index)

    sources = values["sources"]
    if not isinstance(sources, list):
        raise front.fail("sources", "sources must be a list of {title, url} entries")
    clean_sources = []
    for index, source in enumerate(sources):
        if not isinstance(source, dict) or not isinstance(source.get("title"), str) or not source["title"].strip():
            raise front.fail("sources", "each source needs a 'title'", index)
        if not isinstance(source.get("url"), str) or not URL.match(source["url"]):
            raise front.fail("sources", "each source needs a 'url' starting with http:// or https://", index)
        clean_sources.append({"title": source["title"].strip(), "url": source["url"].strip()})

    reviewed = values.get("last_reviewed")
    if reviewed is not None and not isinstance(reviewed, dt.date):
        raise front.fail("last_reviewed", "last_reviewed must be a date written as YYYY-MM-DD")
    return {
        "id": doc_id,
        "title": title.strip(),
        "language": language,
        "topics": list(dict.fromkeys(topics)),
        "sources": clean_sources,
        "last_reviewed": reviewed,
        "sections": values.get("sections"),
        "_fail": front.fail,  # section checks need the body's headings, read after the front matter
    }
