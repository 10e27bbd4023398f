"""An index that failed to open (issue 28): chat says what /readyz says. A permanent fault answers with the repair, not
"try again shortly"; only a fault /readyz calls transient asks the user to retry.

A real app and runtime over a data directory; the index's open error is the one opening a damaged index raises
(IndexCorruptError), or any other error, which /readyz also reports as permanent with `advisor ingest --rebuild`.
"""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.errors import IndexCorruptError
from service.runtime import Runtime

QUESTION = "How should I checkpoint optimizer state when resuming training?"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One runtime for the module: its router's exemplar matrix is embedded once, then cached under the data dir."""
    runtime = Runtime(Settings(data_dir=tmp_path_factory.mktemp("index-faults"), environment="test", api_keys=[], llm_provider="none"))
    runtime.prepare_assistant()  # the router now, as a server's start does: not inside the first question's turn budget
    yield TestClient(create_app(runtime=runtime), raise_server_exceptions=False), runtime
    runtime.close()


def index_problem(client: TestClient, lang: str) -> dict:
    body = client.get("/readyz", headers={"Accept-Language": lang}).json()
    return next(p for p in body["problems"] if p["part"] == "index")


@pytest.mark.parametrize(
    "error", [IndexCorruptError("/data/index", "database disk image is malformed"), RuntimeError("chroma refused")], ids=["corrupt", "other"]
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_permanent_index_fault_answers_chat_with_the_repair_readyz_names(served, error: Exception, lang: str) -> None:
    client, runtime = served
    runtime._index_error = error
    problem = index_problem(client, lang)
    assert problem["permanent"] is True
    response = client.post("/v1/chat", json={"message": QUESTION}, headers={"Accept-Language": lang})
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["error"] == "index_corrupt" and body["repair"] == problem["repair"] == "advisor ingest --rebuild"
    assert f"`{problem['repair']}`" in body["message"]
    assert "shortly" not in body["message"] and "稍后再试" not in body["message"]
    assert "Retry-After" not in response.headers


def test_an_index_still_opening_asks_to_retry_shortly(served) -> None:
    client, runtime = served
    runtime._index_error = None
    assert index_problem(client, "en")["permanent"] is False
    response = client.post("/v1/chat", json={"message": QUESTION})
    assert response.status_code == 503 and response.json()["error"] == "index_unavailable"
    assert "shortly" in response.json()["message"] and response.headers["Retry-After"] == "5"


def test_a_stream_refused_by_a_permanent_index_fault_ends_with_the_repair(served) -> None:
    client, runtime = served
    runtime._index_error = IndexCorruptError("/data/index", "database disk image is malformed")
    with client.stream("POST", "/v1/chat/stream", json={"message": QUESTION}, headers={"Accept-Language": "zh"}) as response:
        text = "".join(response.iter_text())
    last = json.loads([line for line in text.splitlines() if line.startswith("data:")][-1].removeprefix("data:"))
    assert last["code"] == "index_corrupt" and "`advisor ingest --rebuild`" in last["message"] and "稍后再试" not in last["message"]
