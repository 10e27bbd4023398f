"""Cut documents into chunks at ##/### headings, splitting long sections at paragraphs.

A chunk's embedded text starts with the document title and its heading path, so
a section that says "this" about its subject still lands near questions that
name the subject.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass

from service.retrieval.documents import KnowledgeDocument

# Sizes in "units": one CJK character or one Latin word each, roughly one token.
MAX_UNITS = 320
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z0-9]+")
HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.])\s+")


@dataclass(frozen=True)
class Chunk:
    id: str
    doc_id: str
    language: str
    title: str
    heading: str
    context: str  # heading path ("Parent / Child"), embedded with the text
    topics: tuple[str, ...]
    sources: tuple[dict[str, str], ...]
    text: str
    kind: str
    position: int  # order inside the document, for stable listings
    names: tuple[str, ...] = ()  # catalog names of a spec card's entry
    section: str = ""  # the enclosing `## ` heading ("" for the introduction): the unit `sections:` questions point to
    source: dict[str, str] | None = None  # the passage's own source (its section's), else the document's first

    @property
    def embed_text(self) -> str:
        """What the embedder and BM25 see: title, heading path, then the body."""
        return "\n".join(part for part in (self.title, self.context, self.text) if part)

    @property
    def embed_hash(self) -> str:
        """Identifies the vector: equal hashes may share one stored embedding."""
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()

    @property
    def record_hash(self) -> str:
        """Identifies the whole stored record, metadata included."""
        payload = json.dumps(
            [self.embed_hash, self.heading, self.topics, self.sources, self.kind, self.position, self.names, self.section, self.source]
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def units(text: str) -> int:
    return len(CJK.findall(text)) + len(LATIN_WORD.findall(text))


def slug(heading: str) -> str:
    """'Saving state' -> 'saving-state'; CJK headings keep their characters."""
    text = re.sub(r"[^\w]+", "-", heading.lower(), flags=re.UNICODE).strip("-_")
    return text or "section"


def chunk_document(doc: KnowledgeDocument) -> list[Chunk]:
    chunks: list[Chunk] = []
    used_ids: set[str] = set()
    for heading, context, section, body in _sections(doc.body):
        declared = doc.section(section) if section else None
        source = declared.source if declared else (doc.sources[0] if doc.sources else None)
        pieces = _split(body)
        base = slug(heading) if heading else "intro"
        for part, piece in enumerate(pieces, start=1):
            anchor = base if part == 1 else f"{base}~{part}"
            chunk_id = _unique(f"{doc.id}.{doc.language}#{anchor}", used_ids)
            chunks.append(
                Chunk(
                    id=chunk_id,
                    doc_id=doc.id,
                    language=doc.language,
                    title=doc.title,
                    heading=heading,
                    context=context,
                    topics=doc.topics,
                    sources=doc.sources,
                    text=piece,
                    kind=doc.kind,
                    position=len(chunks),
                    names=doc.names,
                    section=section,
                    source=source,
                )
            )
    return chunks


def _unique(candidate: str, used: set[str]) -> str:
    chunk_id, n = candidate, 2
    while chunk_id in used:
        chunk_id, n = f"{candidate}-{n}", n + 1
    used.add(chunk_id)
    return chunk_id


def _sections(body: str) -> list[tuple[str, str, str, str]]:
    """(heading, heading path, enclosing `## ` heading, text) per section; the leading '# Title' line is dropped."""
    sections: list[tuple[str, str, str, str]] = []
    heading, parent, section, lines = "", "", "", []
    in_code = False

    def close() -> None:
        text = "\n".join(lines).strip()
        if text:
            context = f"{parent} / {heading}" if parent and parent != heading else heading
            sections.append((heading, context, section, text))

    for line in body.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        match = None if in_code else HEADING.match(line)
        if match is None:
            lines.append(line)
            continue
        level, text = len(match.group(1)), match.group(2).strip()
        if level == 1:
            continue  # the document title, already in front matter
        close()
        lines = []
        if level == 2:
            heading, parent, section = text, "", text
        else:
            parent = heading if not parent else parent
            heading = text
    close()
    return sections


def _split(text: str) -> list[str]:
    """Split an over-long section into balanced pieces at paragraph, then sentence, boundaries."""
    total = units(text)
    if total <= MAX_UNITS:
        return [text]
    blocks = [piece for block in _paragraphs(text) for piece in _fit(block)]
    target = total / math.ceil(total / MAX_UNITS)
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for block in blocks:
        block_units = units(block)
        if current and (size >= target or size + block_units > MAX_UNITS):
            pieces.append("\n\n".join(current))
            current, size = [], 0
        current.append(block)
        size += block_units
    if current:
        pieces.append("\n\n".join(current))
    return pieces


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks; a fenced code block stays one block."""
    blocks: list[str] = []
    current: list[str] = []
    in_code = False
    for line in text.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        if not line.strip() and not in_code:
            if current:
                blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _fit(block: str) -> list[str]:
    """Break one block that alone exceeds the limit: at lines (lists, tables, code), then sentences."""
    if units(block) <= MAX_UNITS:
        return [block]
    pieces: list[str] = []
    current = ""
    for line in block.splitlines():
        parts = _sentences(line) if units(line) > MAX_UNITS else [line]
        for index, part in enumerate(parts):
            if current and units(current) + units(part) > MAX_UNITS:
                pieces.append(current)
                current = ""
            if not current:
                current = part
            elif index == 0:
                current += "\n" + part
            else:  # a sentence continuing the same line
                current += part if CJK.search(current[-1]) or current[-1] in "。！？；" else " " + part
    if current:
        pieces.append(current)
    return pieces


def _sentences(line: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(line) if s and s.strip()]
