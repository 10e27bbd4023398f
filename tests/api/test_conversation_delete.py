"""DELETE /v1/conversations/{id}: owner-scoped exactly like GET (another key gets 404), and it takes the messages and feedback."""

from __future__ import annotations

import shutil

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime

KEY_A, KEY_B = "team-a-key-0001", "team-b-key-0002"


@pytest.fixture(scope="module")
def client(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("delete") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[KEY_A, KEY_B]))
    runtime.open_index()
    yield TestClient(create_app(runtime=runtime), raise_server_exceptions=False)
    runtime.close()


def test_only_the_owner_deletes_a_conversation_and_it_is_gone_with_its_feedback(client) -> None:
    a, b = {"x-api-key": KEY_A}, {"x-api-key": KEY_B}
    answer = client.post("/v1/chat", json={"message": "什么是 NVLink？"}, headers=a).json()
    cid = answer["conversation_id"]
    assert client.post("/v1/feedback", json={"message_id": answer["message_id"], "rating": "up"}, headers=a).status_code == 201

    other = client.delete(f"/v1/conversations/{cid}", headers={**b, "accept-language": "zh"})
    assert other.status_code == 404 and other.json() == {"error": "not_found", "message": "没有这个会话。"}
    assert client.get(f"/v1/conversations/{cid}", headers=a).status_code == 200  # untouched
    assert client.delete(f"/v1/conversations/{cid}").status_code == 401

    gone = client.delete(f"/v1/conversations/{cid}", headers=a)
    assert gone.status_code == 204 and gone.content == b""
    assert client.get(f"/v1/conversations/{cid}", headers=a).status_code == 404
    assert client.delete(f"/v1/conversations/{cid}", headers=a).status_code == 404
    # Its answers can no longer be rated, and the feedback went with them.
    assert client.post("/v1/feedback", json={"message_id": answer["message_id"], "rating": "down"}, headers=a).status_code == 404
    store = client.app.state.runtime.conversation_store
    with store._lock:
        assert store._conn.execute("SELECT count(*) FROM feedback").fetchone()[0] == 0
