"""The questions a section declares (`sections:` front matter), as extra index records pointing at its chunks.

Users ask "where do I start when GPUs sit at half utilisation"; a section is
written as an explanation. A question written for the section lands much
nearer the user's words than the explanation does, so each declared question
is embedded (and BM25-indexed) on its own and a hit on it returns the
section's chunk(s): every piece of a section split by chunking.py.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from service.retrieval.chunking import Chunk
from service.retrieval.documents import KnowledgeDocument

# The `kind` metadata value that tells question records from chunks in a collection.
QUESTION_KIND = "question"


@dataclass(frozen=True)
class QuestionRecord:
    id: str
    doc_id: str
    language: str
    topics: tuple[str, ...]
    heading: str  # the `## ` heading of the section it belongs to
    text: str
    targets: tuple[str, ...]  # chunk ids of the section, in reading order

    @property
    def embed_text(self) -> str:
        # The question alone: it is already phrased the way users ask.
        return self.text

    @property
    def embed_hash(self) -> str:
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()

    @property
    def record_hash(self) -> str:
        payload = json.dumps([self.embed_hash, self.heading, self.topics, self.targets], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def question_records(documents: Sequence[KnowledgeDocument], chunks: Sequence[Chunk]) -> list[QuestionRecord]:
    """One record per declared question, targeting the chunks of its section."""
    by_section: dict[tuple[str, str, str], list[str]] = {}
    for chunk in chunks:
        if chunk.section:
            by_section.setdefault((chunk.doc_id, chunk.language, chunk.section), []).append(chunk.id)
    records: list[QuestionRecord] = []
    for doc in documents:
        for section in doc.sections:
            targets = by_section.get((doc.id, doc.language, section.heading))
            if not targets:
                continue  # a heading with no text under it has no chunk to point to
            for number, question in enumerate(section.questions, start=1):
                records.append(
                    QuestionRecord(
                        id=f"{targets[0]}?q{number}",
                        doc_id=doc.id,
                        language=doc.language,
                        topics=doc.topics,
                        heading=section.heading,
                        text=question,
                        targets=tuple(targets),
                    )
                )
    return records


def question_metadata(record: QuestionRecord) -> dict[str, object]:
    """Stored beside the vector: the same language/topics fields as chunks, so one `where` filters both."""
    return {
        "doc_id": record.doc_id,
        "language": record.language,
        "topics": list(record.topics),
        "heading": record.heading,
        "kind": QUESTION_KIND,
        "targets": json.dumps(list(record.targets), ensure_ascii=False),
        "embed_hash": record.embed_hash,
        "record_hash": record.record_hash,
    }
