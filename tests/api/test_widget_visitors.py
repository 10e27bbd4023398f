"""Widget visitors (issue 28): conversations opened through a publishable widget key belong to one visitor session.

Everyone on a host page shares its widget key, so the key alone cannot tell visitors apart: the first widget request
gets a random visitor token (X-Widget-Visitor), the widget sends it back, and continuing, reading, rating or deleting a
conversation needs the token that started it. Another visitor gets what an unknown id gets (404, or the 422 of an
unknown conversation_id), in their language, so ids are never confirmed. Real components: the copied index, SQLite, the app.
"""

from __future__ import annotations

import shutil

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime

ALLOWED = "https://partner.example"
API_KEY = "sk-visitor-tests-secret"
WIDGET_KEY = "pk_visitor_tests"
VISITOR = "x-widget-visitor"


@pytest.fixture(scope="module")
def client(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("widget-visitors") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[API_KEY], widget_keys=[WIDGET_KEY], widget_origins=[ALLOWED]))
    runtime.open_index()
    yield TestClient(create_app(runtime=runtime), raise_server_exceptions=False)
    runtime.close()


def widget(token: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"X-Widget-Key": WIDGET_KEY, "Origin": ALLOWED, **extra}
    if token:
        headers["X-Widget-Visitor"] = token
    return headers


def start(client: TestClient, message: str = "什么是 NVLink？") -> tuple[str | None, dict]:
    """A new visitor's first question: the answer and the visitor token issued with it."""
    response = client.post("/v1/chat", json={"message": message, "conversation_key": "widget:tab-1"}, headers=widget())
    assert response.status_code == 200, response.text
    return response.headers.get(VISITOR), response.json()


def test_a_visitor_continues_reads_rates_and_deletes_only_their_own_conversation(client) -> None:
    alice, first = start(client)
    bob, _ = start(client, "什么是 MFU？")
    cid, mid = first["conversation_id"], first["message_id"]

    # Bob knows Alice's ids (and even her conversation key): nothing of hers is reachable, and nothing says it exists.
    hijack = client.post("/v1/chat", json={"message": "如果预算只有一半呢？", "conversation_id": cid}, headers=widget(bob))
    assert hijack.status_code == 422 and "conversation_id" in [d["field"] for d in hijack.json()["detail"]]
    same_key = client.post("/v1/chat", json={"message": "再说说", "conversation_key": "widget:tab-1"}, headers=widget(bob))
    assert same_key.status_code == 200 and same_key.json()["conversation_id"] != cid
    rated = client.post("/v1/feedback", json={"message_id": mid, "rating": "down"}, headers=widget(bob, **{"Accept-Language": "zh"}))
    assert rated.status_code == 404 and rated.json()["message"] == f"未知的 message_id '{mid}'。"
    read = client.get(f"/v1/conversations/{cid}", headers=widget(bob, **{"Accept-Language": "zh"}))
    assert read.status_code == 404 and read.json() == {"error": "not_found", "message": "没有这个会话。"}
    deleted = client.delete(f"/v1/conversations/{cid}", headers=widget(bob))
    assert deleted.status_code == 404 and deleted.json()["message"] == "No such conversation."
    # A visitor with no token, or a made-up one, is a new visitor: the same 404.
    assert client.post("/v1/feedback", json={"message_id": mid, "rating": "down"}, headers=widget()).status_code == 404
    assert client.get(f"/v1/conversations/{cid}", headers=widget("not-a-token")).status_code == 404

    # Alice, with her token, carries on as before.
    assert alice and bob and alice != bob and len(alice) >= 32
    second = client.post("/v1/chat", json={"message": "NVLink 和 PCIe 有什么区别？", "conversation_id": cid}, headers=widget(alice))
    assert second.status_code == 200 and second.json()["conversation_id"] == cid
    assert VISITOR not in second.headers  # a known visitor keeps their token
    assert client.post("/v1/feedback", json={"message_id": mid, "rating": "up"}, headers=widget(alice)).status_code == 201
    mine = client.get(f"/v1/conversations/{cid}", headers=widget(alice))
    assert mine.status_code == 200 and len(mine.json()["messages"]) == 4
    assert client.delete(f"/v1/conversations/{cid}", headers=widget(alice)).status_code == 204
    assert client.get(f"/v1/conversations/{cid}", headers=widget(alice)).status_code == 404


def test_the_stream_issues_the_token_readable_cross_origin_and_continues_by_it(client) -> None:
    with client.stream("POST", "/v1/chat/stream", json={"message": "什么是 NVLink？"}, headers=widget()) as response:
        assert response.status_code == 200
        token = response.headers[VISITOR]
        assert len(token) >= 32 and VISITOR in response.headers["access-control-expose-headers"].lower()
        text = response.read().decode()
    assert "event: done" in text
    again = client.post("/v1/chat", json={"message": "再说说"}, headers=widget(token))
    assert again.status_code == 200 and VISITOR not in again.headers


def test_secret_api_keys_keep_their_behaviour(client) -> None:
    _, first = start(client)
    cid = first["conversation_id"]
    # A widget visitor's conversation is not the API key's, and an API key caller gets no visitor token.
    assert client.get(f"/v1/conversations/{cid}", headers={"X-API-Key": API_KEY}).status_code == 404
    own = client.post("/v1/chat", json={"message": "什么是 NVLink？"}, headers={"X-API-Key": API_KEY})
    assert own.status_code == 200 and VISITOR not in own.headers
    own_id = own.json()["conversation_id"]
    assert client.get(f"/v1/conversations/{own_id}", headers={"X-API-Key": API_KEY}).status_code == 200
    # The widget key still opens nothing but the chat, feedback and the visitor's own conversations.
    assert client.get("/v1/hardware/gpus", headers=widget()).status_code == 401
    assert client.get(f"/v1/conversations/{own_id}", headers=widget()).status_code == 404


def test_preflight_allows_the_visitor_header_and_delete(client) -> None:
    response = client.options(
        "/v1/conversations/conv_x",
        headers={"Origin": ALLOWED, "Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "x-widget-key,x-widget-visitor"},
    )
    assert response.status_code == 200
    assert "x-widget-visitor" in response.headers["access-control-allow-headers"].lower()
    assert "DELETE" in response.headers["access-control-allow-methods"]
