"""LangChain retriever over KnowledgeIndex.search, for pipelines built from LangChain parts."""

from __future__ import annotations

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from service.retrieval.embeddings import register_langchain
from service.retrieval.index import KnowledgeIndex
from service.retrieval.models import SearchMode
from service.retrieval.validation import validate_query

register_langchain()  # the index's encoders, as LangChain Embeddings for the same pipelines


class KnowledgeRetriever(BaseRetriever):
    """Documents whose page_content is the chunk text and whose metadata holds every Hit field."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: KnowledgeIndex
    k: int = Field(default=5, ge=1, le=50)
    language: str | None = None
    topics: list[str] | None = None
    mode: SearchMode = "hybrid"

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        validate_query(query, self.k, self.language, topics=self.topics)
        hits = self.index.search(query, k=self.k, language=self.language, topics=self.topics, mode=self.mode)
        return [Document(page_content=hit.text, metadata=hit.model_dump(), id=hit.id) for hit in hits]
