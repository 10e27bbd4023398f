"""GET /v1/knowledge/search: hybrid search over the knowledge base and the spec cards.

Error messages follow Accept-Language here: `lang` is the search's language
filter, so it only picks the message language when it is zh or en anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel

from service.api.deps import RuntimeDep
from service.retrieval import KnowledgeIndex, validate_query
from service.retrieval.models import Language

router = APIRouter(tags=["knowledge"])


def get_knowledge_index(runtime: RuntimeDep) -> KnowledgeIndex:
    """The open index; RetrievalError (HTTP 503) while it is still being prepared."""
    return runtime.index


@dataclass(frozen=True)
class SearchRequest:
    q: str
    k: int
    lang: str | None
    topics: list[str]


def search_request(
    q: Annotated[str, Query(description="the question, in Chinese or English (at most 2,000 characters)")],
    k: Annotated[int, Query(description="how many results, 1 to 50")] = 5,
    lang: Annotated[str | None, Query(description="only results in this language: zh or en")] = None,
    topic: Annotated[list[str] | None, Query(description="only results with any of these topics (repeatable)")] = None,
) -> SearchRequest:
    # Validated before the index is touched: a 100 KB question is refused, never embedded.
    validate_query(q, k, lang, topics=topic)
    return SearchRequest(q=q, k=k, lang=lang, topics=topic or [])


# Declared in this order on purpose: the request is validated before the index is required.
SearchRequestDep = Annotated[SearchRequest, Depends(search_request)]
KnowledgeIndexDep = Annotated[KnowledgeIndex, Depends(get_knowledge_index)]


class SearchResult(BaseModel):
    id: str
    doc_id: str
    title: str
    heading: str
    language: Language
    source: str
    url: str
    score: float
    snippet: str


class SearchResponse(BaseModel):
    query: str
    results: list[SearchResult]


@router.get("/knowledge/search")
def search_knowledge(request: SearchRequestDep, index: KnowledgeIndexDep) -> SearchResponse:
    """The best-matching sections of the knowledge base and spec cards, with their sources."""
    hits = index.search(request.q, k=request.k, language=request.lang, topics=request.topics or None)
    return SearchResponse(query=request.q, results=[SearchResult(**hit.summary()) for hit in hits])
