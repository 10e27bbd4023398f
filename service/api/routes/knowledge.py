"""GET and POST /v1/knowledge/search: hybrid search over the knowledge base and the spec cards.

POST takes the same fields as a JSON body, for questions too long for a URL
(HTTP clients and servers refuse URLs past a few dozen KB before the app sees them).
Error messages follow Accept-Language here: `lang` is the search's language
filter, so it only picks the message language when it is zh or en anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

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


# Routes declare the request before the index on purpose: bad input is refused before the index is required.
SearchRequestDep = Annotated[SearchRequest, Depends(search_request)]
KnowledgeIndexDep = Annotated[KnowledgeIndex, Depends(get_knowledge_index)]


class SearchBody(BaseModel):
    q: str = Field(description="the question, in Chinese or English (at most 2,000 characters)")
    k: int = Field(default=5, description="how many results, 1 to 50")
    lang: str | None = Field(default=None, description="only results in this language: zh or en")
    topic: list[str] | None = Field(default=None, description="only results with any of these topics")


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


def search_body(body: SearchBody) -> SearchRequest:
    validate_query(body.q, body.k, body.lang, topics=body.topic)
    return SearchRequest(q=body.q, k=body.k, lang=body.lang, topics=body.topic or [])


SearchBodyDep = Annotated[SearchRequest, Depends(search_body)]


@router.get("/knowledge/search")
def search_knowledge(request: SearchRequestDep, index: KnowledgeIndexDep) -> SearchResponse:
    """The best-matching sections of the knowledge base and spec cards, with their sources."""
    return _search(index, request)


@router.post("/knowledge/search")
def search_knowledge_long(request: SearchBodyDep, index: KnowledgeIndexDep) -> SearchResponse:
    """The same search with the question in a JSON body."""
    return _search(index, request)


def _search(index: KnowledgeIndex, request: SearchRequest) -> SearchResponse:
    hits = index.search(request.q, k=request.k, language=request.lang, topics=request.topics or None)
    return SearchResponse(query=request.q, results=[SearchResult(**hit.summary()) for hit in hits])
