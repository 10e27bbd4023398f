"""GET /v1/knowledge/search on the real app and the real knowledge index (FastAPI TestClient)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.retrieval import KnowledgeIndex
from service.runtime import Runtime

SUMMARY_FIELDS = {"id", "doc_id", "title", "heading", "language", "source", "url", "score", "snippet"}


@pytest.fixture(scope="module")
def client(real_settings: Settings, real_index: KnowledgeIndex) -> Iterator[TestClient]:
    runtime = Runtime(real_settings)
    with TestClient(create_app(runtime=runtime)) as test_client:  # the lifespan opens the index
        assert runtime.wait_index(timeout=60), "the index never became ready"
        yield test_client


def search(client: TestClient, headers: dict[str, str] | None = None, **params: object):
    return client.get("/v1/knowledge/search", params=params, headers=headers or {})


def test_search_returns_cited_results(client: TestClient) -> None:
    response = search(client, q="H100 SXM 的显存带宽是多少？", k=3)
    assert response.status_code == 200
    body = response.json()
    assert body["query"] == "H100 SXM 的显存带宽是多少？"
    assert len(body["results"]) == 3
    first = body["results"][0]
    assert set(first) == SUMMARY_FIELDS
    assert first["doc_id"] == "gpu-h100-sxm"
    assert "3350 GB/s" in first["snippet"]
    assert first["url"].startswith("https://")
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)


def test_language_and_topic_filters(client: TestClient, real_index: KnowledgeIndex) -> None:
    zh = search(client, q="checkpoint interval after a failure", lang="zh", k=10).json()["results"]
    assert len(zh) == 10 and {r["language"] for r in zh} == {"zh"}
    hardware = search(client, q="memory bandwidth", topic="hardware", k=20).json()["results"]
    assert len(hardware) == 20
    assert all("hardware" in real_index.get(r["id"]).topics for r in hardware)
    either = client.get("/v1/knowledge/search", params=[("q", "断点续训"), ("topic", "reliability"), ("topic", "spot")])
    results = either.json()["results"]
    assert results and all({"reliability", "spot"} & set(real_index.get(r["id"]).topics) for r in results)


@pytest.mark.parametrize(
    ("params", "field", "en", "zh"),
    [
        ({"q": ""}, "q", "must not be empty", "不能为空"),
        ({"q": "   "}, "q", "must not be empty", "不能为空"),
        ({"q": "x" * 2001}, "q", "at most 2000", "最多 2000"),
        ({"q": "x" * 60_000}, "q", "at most 2000", "最多 2000"),  # 60 KB: about the longest URL clients send
        ({"q": "H100\x00memory"}, "q", "control characters", "控制字符"),
        ({"q": "Какая память у H100?"}, "q", "only Chinese and English are supported", "仅支持中文和英文"),
        ({"q": "ความจำ H100"}, "q", "only Chinese and English are supported", "仅支持中文和英文"),
        ({"q": "memory", "lang": "fr"}, "lang", "only Chinese (zh) and English (en)", "仅支持中文（zh）和英文（en）"),
        ({"q": "memory", "k": 0}, "k", "from 1 to 50", "1 到 50"),
        ({"q": "memory", "k": 51}, "k", "from 1 to 50", "1 到 50"),
        ({"q": "memory", "k": "many"}, "k", "whole number", "整数"),
        ({"q": "memory", "topic": "astrology"}, "topic", "unknown topic", "未知的主题"),
        ({}, "q", "is required", "必填"),
    ],
)
def test_bad_input_is_a_bilingual_422_naming_the_field(client: TestClient, params: dict, field: str, en: str, zh: str) -> None:
    for language, expected in (("en", en), ("zh", zh)):
        response = search(client, headers={"Accept-Language": language}, **params)
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["error"] == "invalid_input"
        assert body["detail"][0]["field"] == field
        assert expected in body["detail"][0]["message"], body


def test_post_takes_the_same_search_and_refuses_a_100_kb_question(client: TestClient) -> None:
    response = client.post("/v1/knowledge/search", json={"q": "p5.48xlarge 有几张卡", "k": 2})
    assert response.status_code == 200
    assert response.json()["results"][0]["doc_id"] == "instance-aws-p5.48xlarge"
    huge = client.post("/v1/knowledge/search", json={"q": "显存" * 51_200}, headers={"Accept-Language": "zh"})
    assert huge.status_code == 422
    assert huge.json()["detail"][0]["field"] == "q" and "最多 2000" in huge.json()["detail"][0]["message"]
    wrong_type = client.post("/v1/knowledge/search", json={"q": "memory", "k": "many"})
    assert wrong_type.status_code == 422 and wrong_type.json()["detail"][0]["field"] == "k"


def test_index_not_ready_is_a_503(real_settings: Settings) -> None:
    runtime = Runtime(real_settings)
    client = TestClient(create_app(runtime=runtime))  # no lifespan: the index is never opened
    response = client.get("/v1/knowledge/search", params={"q": "memory"}, headers={"Accept-Language": "zh"})
    assert response.status_code == 503
    assert response.json()["error"] == "index_unavailable"
    assert "知识库" in response.json()["message"]
