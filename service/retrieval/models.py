"""The values the retrieval package hands out: search hits and ingest reports."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Language = Literal["en", "zh"]
SearchMode = Literal["hybrid", "dense", "bm25"]


class Hit(BaseModel):
    """One retrieved chunk with everything needed to quote and cite it."""

    id: str = Field(description="chunk id, stable while the chunk's content is unchanged")
    doc_id: str = Field(description="front-matter id, the same in both languages")
    language: Language
    title: str = Field(description="document title")
    heading: str = Field(description="section heading; empty for the introduction")
    topics: list[str]
    source: str = Field(description="title of the passage's own source (its section's), else the document's first")
    url: str = Field(description="URL of the passage's own source")
    sources: list[dict[str, str]] = Field(description="every source as {title, url}")
    score: float = Field(description="higher is better; fused rank score in hybrid mode")
    snippet: str = Field(description="at most 240 characters around the best-matching part")
    text: str = Field(description="the full chunk text, without front matter")
    kind: str = Field(default="doc", description="doc: a written document; card: a spec card generated from the catalog")

    def summary(self) -> dict[str, object]:
        """The fields the REST API and `advisor search --json` show for each result."""
        return {name: getattr(self, name) for name in SUMMARY_FIELDS}


# The order the faces print them in.
SUMMARY_FIELDS = ("id", "doc_id", "title", "heading", "language", "source", "url", "score", "snippet")


class IngestReport(BaseModel):
    """What one ingest run did."""

    added: int = Field(0, description="chunks whose id is new")
    updated: int = Field(0, description="chunks whose id existed but whose content changed")
    unchanged: int = Field(0, description="chunks identical to the previous index")
    removed: int = Field(0, description="chunks of the previous index that no longer exist")
    embedded: int = Field(0, description="chunks and questions sent to the embedder (the rest reused stored vectors)")
    chunks: int = Field(0, description="chunks in the index after this run")
    questions: int = Field(0, description="section questions indexed beside the chunks (each points to its section's chunks)")
    documents: int = Field(0, description="documents and spec cards read")
    seconds: float = 0.0
    skipped: bool = Field(False, description="nothing changed, so no new collection was built")
    full_rebuild: bool = Field(False, description="no stored vector could be reused (first build, --rebuild or a new embedder)")
    repaired: bool = Field(False, description="the embedded store was corrupt; --rebuild removed its files and built a new one")
    collection: str = ""
    embedder: str = ""
