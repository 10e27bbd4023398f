"""A chat turn moves the pipeline's series in GET /metrics: intents per channel, each stage's latency, the
retrieval confidence and LLM fallbacks by reason; the answer carries the same stages in `timings_ms`.

Real app (TestClient), real index and store; the LLM is the loopback double speaking the OpenAI protocol.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from service.api.app import create_app
from service.assistant.llm_double import LoopbackServer, ScriptedLLM
from service.assistant.llm_double import create_app as create_llm_app
from service.config import Settings
from service.runtime import Runtime

ADMIN = "adm-metrics-tests-1"
FAQ = "What is ZeRO-3?"
OFF_TOPIC = "Who won the football world cup in 2018?"
ANSWER_STAGES = {"understand", "retrieve", "tools", "compose", "grounding"}


@pytest.fixture(scope="module")
def llm():
    double = ScriptedLLM()
    server = LoopbackServer(create_llm_app(double)).start()
    try:
        yield double, server
    finally:
        double.release()
        server.stop()


@pytest.fixture(scope="module")
def client(llm, tmp_path_factory, indexed_data_dir: Path):
    double, server = llm
    data_dir = tmp_path_factory.mktemp("metrics") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    settings = Settings(
        data_dir=data_dir,
        environment="test",
        admin_keys=[ADMIN],
        llm_provider="openai",
        llm_base_url=f"{server.url}/v1",
        llm_model="double",
        llm_timeout_s=30.0,
    )
    runtime = Runtime(settings)
    runtime.open_index()
    with TestClient(create_app(runtime=runtime)) as test_client:
        yield test_client


def scrape(client: TestClient) -> dict[tuple[str, frozenset], float]:
    response = client.get("/metrics", headers={"X-API-Key": ADMIN})
    assert response.status_code == 200
    return {(s.name, frozenset(s.labels.items())): s.value for family in text_string_to_metric_families(response.text) for s in family.samples}


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def chat(client: TestClient, message: str) -> dict:
    response = client.post("/v1/chat", json={"message": message})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_chat_turn_moves_the_intent_stage_and_confidence_series(client, llm) -> None:
    double, _ = llm
    double.reset("echo")
    before = scrape(client)
    answer = chat(client, FAQ)
    after = scrape(client)

    assert answer["intent"] == "faq" and answer["writer"] == "llm"
    assert value(after, "advisor_intents_total", intent="faq", channel="api") == value(before, "advisor_intents_total", intent="faq", channel="api") + 1
    for stage in (*ANSWER_STAGES, "llm", "persist"):
        key = ("advisor_pipeline_stage_seconds_count", {"stage": stage})
        assert value(after, key[0], **key[1]) == value(before, key[0], **key[1]) + 1, stage
    assert value(after, "advisor_retrieval_confidence_count") == value(before, "advisor_retrieval_confidence_count") + 1
    assert value(after, "advisor_retrieval_confidence_sum") > value(before, "advisor_retrieval_confidence_sum")  # a cited answer: some confidence
    # The answer shows where its time went, stage by stage (persisting happens after the answer is complete).
    assert ANSWER_STAGES | {"llm"} == set(answer["timings_ms"])
    assert all(ms >= 0 for ms in answer["timings_ms"].values())


def test_an_unusable_rewrite_counts_a_fallback_under_a_bounded_reason(client, llm) -> None:
    double, _ = llm
    double.reset("add_number")  # the model adds a figure no tool or source gave
    before = scrape(client)
    answer = chat(client, FAQ)
    after = scrape(client)

    assert answer["writer"] == "deterministic" and "ungrounded" in answer["llm_fallback_reason"]
    reason = {"reason": "ungrounded_numbers"}
    assert value(after, "advisor_llm_fallbacks_total", **reason) == value(before, "advisor_llm_fallbacks_total", **reason) + 1
    assert not [k for k in after if k[0] == "advisor_llm_fallbacks_total" and "987" in str(k[1])]  # never the reason's numbers


def test_an_out_of_scope_turn_counts_its_intent_and_searches_nothing(client, llm) -> None:
    double, _ = llm
    double.reset("echo")
    before = scrape(client)
    answer = chat(client, OFF_TOPIC)
    after = scrape(client)

    assert answer["intent"] == "out_of_scope" and answer["timings_ms"]["retrieve"] == 0
    labels = {"intent": "out_of_scope", "channel": "api"}
    assert value(after, "advisor_intents_total", **labels) == value(before, "advisor_intents_total", **labels) + 1
    assert value(after, "advisor_retrieval_confidence_count") == value(before, "advisor_retrieval_confidence_count")
    assert value(after, "advisor_llm_fallbacks_total", reason="ungrounded_numbers") == value(before, "advisor_llm_fallbacks_total", reason="ungrounded_numbers")
