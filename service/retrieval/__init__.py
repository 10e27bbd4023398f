"""The knowledge base: ingest documents and spec cards into Chroma, search them with dense + BM25.

    open_index(settings, catalog) -> KnowledgeIndex   open the active index (ingest first if none)
    ingest(settings, catalog, progress=..., rebuild=...) -> IngestReport
    KnowledgeIndex.search(query, k=, language=, topics=, mode=) -> list[Hit]
    validate_query(query, k, language, topics=) raises InputError
    KnowledgeRetriever: the same search as a LangChain retriever

See docs/retrieval.md for the design and the measured retrieval quality.
"""

from typing import TYPE_CHECKING, Any

from service.retrieval.index import KnowledgeIndex, open_index
from service.retrieval.ingest import ingest
from service.retrieval.models import Hit, IngestReport, SearchMode
from service.retrieval.validation import validate_query

if TYPE_CHECKING:
    from service.retrieval.retriever import KnowledgeRetriever

__all__ = [
    "Hit",
    "IngestReport",
    "KnowledgeIndex",
    "KnowledgeRetriever",
    "SearchMode",
    "ingest",
    "open_index",
    "validate_query",
]


def __getattr__(name: str) -> Any:
    """KnowledgeRetriever on first use: a serving process does not need LangChain's retriever classes (half a second)."""
    if name == "KnowledgeRetriever":
        from service.retrieval.retriever import KnowledgeRetriever

        return KnowledgeRetriever
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
