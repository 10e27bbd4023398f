"""Conversation keys and owners over REST: a channel's key continues one conversation across requests and
restarts, and everything is scoped to the API key used. Real components: the copied index, SQLite, the app."""

from __future__ import annotations

import shutil

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime

KEY_A, KEY_B = "team-a-key-0001", "team-b-key-0002"
FIRST = "我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？"
FOLLOW_UP = "如果预算只有一半呢？"
CONVERSATION_KEY = "widget:session-42"


def a(**headers) -> dict:
    return {"x-api-key": KEY_A, **headers}


def b(**headers) -> dict:
    return {"authorization": f"Bearer {KEY_B}", **headers}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, indexed_data_dir):
    target = tmp_path_factory.mktemp("chat-keys") / "data"
    shutil.copytree(indexed_data_dir, target)
    return target


def open_client(data_dir) -> tuple[TestClient, Runtime]:
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[KEY_A, KEY_B], llm_provider="none"))
    runtime.open_index()
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False), runtime


@pytest.fixture(scope="module")
def client(data_dir):
    client, runtime = open_client(data_dir)
    yield client
    runtime.close()


def post(client: TestClient, headers: dict, **body) -> dict:
    response = client.post("/v1/chat", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_key_continues_its_conversation_and_other_owners_cannot_reach_it(client, data_dir) -> None:
    first = post(client, a(), message=FIRST, conversation_key=CONVERSATION_KEY)
    second = post(client, a(), message=FOLLOW_UP, conversation_key=CONVERSATION_KEY)
    assert first["conversation_key"] == second["conversation_key"] == CONVERSATION_KEY
    assert second["conversation_id"] == first["conversation_id"]
    assert second["slots"]["model"] == "qwen-14b"  # the follow-up used the conversation's workload

    # The same key string from another API key is another owner's conversation.
    other = post(client, b(), message="什么是 NVLink？", conversation_key=CONVERSATION_KEY)
    assert other["conversation_id"] != first["conversation_id"]

    cid = first["conversation_id"]
    mine = client.get(f"/v1/conversations/{cid}", headers=a())
    assert mine.status_code == 200 and mine.json()["conversation_key"] == CONVERSATION_KEY
    assert [m["channel"] for m in mine.json()["messages"]] == ["api"] * 4
    assert client.get(f"/v1/conversations/{cid}", headers=b(**{"accept-language": "zh"})).json() == {"error": "not_found", "message": "没有这个会话。"}
    assert client.get(f"/v1/conversations/{cid}", headers=b()).status_code == 404

    # B can neither continue A's conversation by id nor rate A's answers.
    hijack = client.post("/v1/chat", json={"message": FOLLOW_UP, "conversation_id": cid}, headers=b())
    assert hijack.status_code == 422 and "conversation_id" in [d["field"] for d in hijack.json()["detail"]]
    assert client.post("/v1/feedback", json={"message_id": first["message_id"], "rating": "down"}, headers=b()).status_code == 404
    assert client.post("/v1/feedback", json={"message_id": first["message_id"], "rating": "up"}, headers=a()).status_code == 201
    assert client.post("/v1/chat", json={"message": FIRST}).status_code == 401  # and without a key, nothing at all

    # A restart (a new runtime over the same files) continues the same conversation for the same key.
    restarted, runtime = open_client(data_dir)
    try:
        third = post(restarted, a(), message="如果换成 H100 呢？", conversation_key=CONVERSATION_KEY)
        assert third["conversation_id"] == cid
        assert len(restarted.get(f"/v1/conversations/{cid}", headers=a()).json()["messages"]) == 6
    finally:
        runtime.close()


def test_a_key_and_an_id_must_agree(client) -> None:
    one = post(client, a(), message="什么是 NVLink？", conversation_key="cli:one")
    two = post(client, a(), message="什么是 MFU？", conversation_key="cli:two")
    clash = client.post("/v1/chat", json={"message": "再说说", "conversation_key": "cli:one", "conversation_id": two["conversation_id"]},
                        headers=a(**{"accept-language": "zh"}))
    assert clash.status_code == 422
    problem = next(d for d in clash.json()["detail"] if d["field"] == "conversation_key")
    assert "会话" in problem["message"]
    # A conversation answers to one key: naming it by another is refused too.
    rekey = client.post("/v1/chat", json={"message": "再说说", "conversation_key": "cli:other", "conversation_id": one["conversation_id"]},
                        headers=a())
    assert rekey.status_code == 422 and "conversation_key" in [d["field"] for d in rekey.json()["detail"]]
    # An id without a key, sent with a new key, answers to that key from now on.
    keyless = post(client, a(), message="什么是 NVLink？")
    bound = post(client, a(), message="再说说 NVLink", conversation_key="cli:three", conversation_id=keyless["conversation_id"])
    assert bound["conversation_id"] == keyless["conversation_id"]
    assert post(client, a(), message="还有呢？", conversation_key="cli:three")["conversation_id"] == keyless["conversation_id"]


@pytest.mark.parametrize("key", ["no-channel-prefix", "Slack:T1", "slack:", "slack:has space", "x" * 221])
def test_a_malformed_conversation_key_is_422_naming_it(client, key) -> None:
    response = client.post("/v1/chat", json={"message": "什么是 NVLink？", "conversation_key": key}, headers=a())
    assert response.status_code == 422, response.text
    assert "conversation_key" in [d["field"] for d in response.json()["detail"]]
