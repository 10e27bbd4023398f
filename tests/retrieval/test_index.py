"""Search: BM25 finds Chinese words, dense bridges languages, hybrid keeps both; filters; hits; concurrency."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from service.config import Settings
from service.errors import RetrievalError
from service.retrieval import KnowledgeIndex, KnowledgeRetriever, ingest, open_index
from service.retrieval.store import ChromaStore
from tests.retrieval.conftest import small_catalog, write_small_knowledge


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeIndex:
    root = tmp_path_factory.mktemp("small-index")
    settings = Settings(data_dir=root / "data", knowledge_dir=write_small_knowledge(root / "knowledge"))
    return open_index(settings, small_catalog())  # no index yet: open_index ingests first


def test_open_index_ingests_on_first_start(small_index: KnowledgeIndex) -> None:
    info = small_index.info
    assert info["chunks"] > 8 and info["collection"].startswith("advisor-kb-")
    assert info["embedder"].startswith("use-multilingual:") and info["built_at"]


def test_bm25_finds_a_chinese_term_through_jieba(small_index: KnowledgeIndex) -> None:
    hits = small_index.search("断点续训", k=3, mode="bm25")
    assert hits and hits[0].id == "checkpoints.zh#保存状态"
    assert "断点续训" in hits[0].snippet
    assert small_index.search("断点续训", k=3)[0].doc_id == "checkpoints"


def test_dense_bridges_languages_where_bm25_cannot(small_index: KnowledgeIndex) -> None:
    question = "how many bytes per parameter do the optimizer moments take"
    lexical = small_index.search(question, k=5, language="zh", mode="bm25")
    assert "memory-usage.zh#优化器状态" not in [h.id for h in lexical], "no shared words with the Chinese text"
    dense = small_index.search(question, k=2, language="zh", mode="dense")
    assert dense[0].id == "memory-usage.zh#优化器状态"
    hybrid = small_index.search(question, k=2, language="zh")
    assert hybrid[0].id == "memory-usage.zh#优化器状态"
    assert all(hit.language == "zh" for hit in hybrid)


def test_language_and_topic_filters(small_index: KnowledgeIndex) -> None:
    for mode in ("hybrid", "dense", "bm25"):
        zh_hits = small_index.search("checkpoint optimizer state 优化器", k=20, language="zh", mode=mode)
        assert zh_hits and {h.language for h in zh_hits} == {"zh"}, mode
        reliability = small_index.search("optimizer state 优化器状态", k=20, topics=["reliability"], mode=mode)
        assert reliability and {h.doc_id for h in reliability} == {"checkpoints"}, mode
        hardware = small_index.search("memory bandwidth", k=20, topics=["hardware", "storage"], mode=mode)
        assert {h.doc_id for h in hardware} <= {"checkpoints", "gpu-testgpu-x1", "instance-testcloud-x1.8xl"}, mode
    assert small_index.search("memory", k=5, language="en", topics=["peft"]) == []


def test_spec_cards_are_searchable(small_index: KnowledgeIndex) -> None:
    hits = small_index.search("TestGPU X1 显存带宽是多少", k=3)
    assert hits[0].doc_id == "gpu-testgpu-x1" and hits[0].topics == ["hardware"]
    assert hits[0].url == "https://example.com/spec"


def test_hits_carry_citation_fields_and_get_returns_the_same_chunk(small_index: KnowledgeIndex) -> None:
    hit = small_index.search("Young's formula checkpoint interval", k=1, language="en")[0]
    assert hit.id == "checkpoints.en#choosing-the-interval"
    assert (hit.doc_id, hit.language, hit.heading) == ("checkpoints", "en", "Choosing the interval")
    assert hit.title == "Checkpoints and resuming training"
    assert hit.source == "Source for checkpoints" and hit.url == "https://example.com/checkpoints"
    assert hit.sources == [{"title": "Source for checkpoints", "url": "https://example.com/checkpoints"}]
    assert hit.score > 0 and hit.text.startswith("Young's formula") and len(hit.snippet) <= 240
    again = small_index.get(hit.id)
    assert again is not None and again.text == hit.text and again.topics == ["reliability", "storage"]
    assert small_index.get("no-such-chunk") is None


def test_scores_are_ordered_in_every_mode(small_index: KnowledgeIndex) -> None:
    for mode in ("hybrid", "dense", "bm25"):
        scores = [h.score for h in small_index.search("optimizer state memory", k=6, mode=mode)]
        assert scores == sorted(scores, reverse=True), mode


def test_concurrent_searches_agree_with_serial_ones(small_index: KnowledgeIndex) -> None:
    questions = ["断点续训", "optimizer state", "激活值显存", "Young interval", "TestGPU X1 memory"] * 8
    serial = [[h.id for h in small_index.search(q, k=3)] for q in questions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda q: [h.id for h in small_index.search(q, k=3)], questions))
    assert parallel == serial


def test_langchain_retriever_returns_documents_with_hit_metadata(small_index: KnowledgeIndex) -> None:
    retriever = KnowledgeRetriever(index=small_index, k=2, language="zh")
    documents = retriever.invoke("优化器状态占多少显存")
    assert len(documents) == 2
    assert documents[0].metadata["doc_id"] == "memory-usage" and documents[0].metadata["language"] == "zh"
    assert documents[0].page_content == documents[0].metadata["text"]
    assert set(documents[0].metadata) >= {"id", "title", "heading", "source", "url", "score", "snippet"}


def test_index_follows_a_re_ingest_by_someone_else(tmp_path, small_knowledge) -> None:
    settings = Settings(data_dir=tmp_path / "data", knowledge_dir=small_knowledge)
    index = open_index(settings, small_catalog())
    old = index.info["collection"]
    ingest(settings, small_catalog(), rebuild=True)  # another process would do the same: new collection, old one deleted
    assert index.search("断点续训", k=1)[0].doc_id == "checkpoints", "the deleted collection is replaced transparently"
    assert index.info["collection"] not in (old, "")


def test_cards_alone_make_an_index_and_a_vanished_index_is_reported(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data", knowledge_dir=tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    index = open_index(settings, small_catalog())  # cards alone are still an index
    assert {h.doc_id for h in index.search("TestGPU X1", k=5)} <= {"gpu-testgpu-x1", "instance-testcloud-x1.8xl"}
    store = ChromaStore(settings)
    store.client.delete_collection(store.active_name())
    with pytest.raises(RetrievalError, match="advisor ingest"):
        index.reload()
