"""Both embedders behind LangChain's Embeddings interface; switching embedders rebuilds the index."""

from __future__ import annotations

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from service.config import Settings
from service.retrieval import ingest, open_index
from service.retrieval.embeddings import SentenceTransformerEmbeddings, UseMultilingualEmbeddings, embedder_identity, register_langchain
from tests.retrieval.conftest import small_catalog


def test_use_multilingual_aligns_chinese_and_english() -> None:
    register_langchain()  # what the LangChain adapters call (retriever.py): the server's start does not import LangChain
    embedder = UseMultilingualEmbeddings()
    assert isinstance(embedder, Embeddings)
    vectors = np.array(embedder.embed_documents(["显存带宽是多少", "What is the memory bandwidth", "断点续训的流程"]))
    assert vectors.shape == (3, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3, "a translation is closer than another topic"
    assert np.allclose(embedder.embed_query("显存带宽是多少"), vectors[0], atol=1e-5)
    assert embedder.identity == embedder_identity(Settings()) and embedder.identity.startswith("use-multilingual:")


@pytest.mark.slow
def test_sentence_transformers_backend_and_switching_forces_a_rebuild(small_settings: Settings) -> None:
    register_langchain()
    embedder = SentenceTransformerEmbeddings()
    assert isinstance(embedder, Embeddings)
    [vector] = embedder.embed_documents(["checkpoint the optimizer state"])
    assert len(vector) == 384 and abs(np.linalg.norm(vector) - 1) < 1e-5
    assert embedder.identity.startswith("sentence-transformers:") and embedder.identity.endswith("model")

    first = ingest(small_settings, small_catalog())
    minilm = small_settings.model_copy(update={"embedding_backend": "sentence-transformers"})
    switched = ingest(minilm, small_catalog())
    assert switched.full_rebuild and switched.embedded == first.chunks + first.questions, "no vector of the old embedder is reused"
    assert switched.embedder == embedder.identity
    index = open_index(minilm, small_catalog())
    assert index.info["embedder"] == embedder.identity
    assert index.search("Young formula for the checkpoint interval", k=1, language="en")[0].id == "checkpoints.en#choosing-the-interval"

    # Opening with the other embedder configured rebuilds instead of mixing vectors.
    back = open_index(small_settings, small_catalog())
    assert back.info["embedder"].startswith("use-multilingual:")


def test_use_multilingual_keeps_each_texts_vector_and_runs_the_model_once_per_text() -> None:
    embedder = UseMultilingualEmbeddings()
    runs = []
    real_run = embedder._session.run
    embedder._session = type("Counting", (), {"run": lambda self, *a, **k: runs.append(1) or real_run(*a, **k)})()
    first = embedder.encode(["检查点多久存一次", "checkpoint interval"])
    again = embedder.encode(["checkpoint interval", "检查点多久存一次", "checkpoint interval"])
    assert len(runs) == 2, "a text seen before is not run through the model again"
    assert np.array_equal(again[1], first[0]) and np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[1])
    again[0] *= 0  # callers get their own rows: writing to one never changes what later callers get
    assert np.array_equal(embedder.encode(["checkpoint interval"])[0], first[1])
