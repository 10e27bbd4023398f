"""Scale-out on real servers: conversations in PostgreSQL, the index in a Chroma server.

Stopping either server makes /readyz fail naming the part, and chat answer 503 in the user's language;
when the server returns, both recover by themselves (no restart of the advisor).

PostgreSQL is the one CI starts (scripts/test_servers.sh exports ADVISOR_TEST_DATABASE_URL and where its
cluster lives); this test stops and starts it, and always starts it again. The Chroma server is this
test's own, so it can be stopped without disturbing other tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime
from tests.retrieval.test_chroma_server import free_port

PG_URL = os.environ.get("ADVISOR_TEST_DATABASE_URL")
PG_BIN, PGDATA = os.environ.get("ADVISOR_TEST_PG_BIN"), os.environ.get("ADVISOR_TEST_PGDATA")
CHROMA = shutil.which("chroma", path=str(Path(sys.executable).parent))
pytestmark = [
    pytest.mark.skipif(
        not (PG_URL and PG_BIN and PGDATA),
        reason="ADVISOR_TEST_DATABASE_URL / ADVISOR_TEST_PGDATA are not set (CI starts PostgreSQL: scripts/test_servers.sh)",
    ),
    pytest.mark.slow,
]
QUESTION = {"message": "训练到一半断电了怎么办？"}


def pg_ctl(action: str) -> None:
    # -l: the server's output goes to a file; on our pipe it would keep capture_output waiting for EOF forever.
    extra = ["-m", "fast"] if action == "stop" else ["-l", str(Path(PGDATA).parent / "postgres.log")]
    command = [f"{PG_BIN}/pg_ctl", "-D", PGDATA, "-w", "-t", "60", *extra, action]
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        command = ["runuser", "-u", "postgres", "--", *command]
    subprocess.run(command, check=True, capture_output=True, timeout=120)


class ChromaServer:
    def __init__(self, path: Path) -> None:
        self.path, self.port, self.process = path, free_port(), None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [CHROMA, "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError("the Chroma server did not start within 60 s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


@pytest.fixture(scope="module")
def chroma(tmp_path_factory) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A schema of its own in the CI database, dropped afterwards."""
    from sqlalchemy import create_engine, text

    from service.assistant.store_sql import engine_url

    schema = f"ready_{uuid.uuid4().hex[:10]}"
    admin = create_engine(engine_url(PG_URL), pool_pre_ping=True)  # the readiness test restarts the server
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture(scope="module")
def client(tmp_path_factory, knowledge_copy, chroma, pg_url) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("servers-data"),
        knowledge_dir=knowledge_copy,
        environment="test",
        chroma_url=chroma.url,
        database_url=pg_url,
    )
    runtime = Runtime(settings)
    runtime.open_index()  # ingests into the Chroma server
    yield TestClient(create_app(runtime=runtime), raise_server_exceptions=False)
    runtime.close()


def problems(response: httpx.Response) -> dict[str, dict]:
    return {p["part"]: p for p in response.json().get("problems", [])}


def test_both_servers_up_is_ready_and_conversations_live_in_postgresql(client) -> None:
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"catalog": True, "index": True, "data_dir": True, "conversation_store": True, "chroma_server": True}
    answer = client.post("/v1/chat", json=QUESTION)
    assert answer.status_code == 200, answer.text
    from service.assistant.store_sql import SqlConversationStore

    assert isinstance(client.app.state.runtime.conversation_store, SqlConversationStore)
    assert client.get(f"/v1/conversations/{answer.json()['conversation_id']}").status_code == 200


def test_postgresql_down_is_not_ready_and_chat_503_in_the_users_language_then_recovers(client) -> None:
    pg_ctl("stop")
    try:
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["checks"]["conversation_store"] is False
        assert "PostgreSQL" in problems(ready)["conversation_store"]["message"]
        zh = client.post("/v1/chat", json=QUESTION, headers={"accept-language": "zh"})
        assert zh.status_code == 503, zh.text
        assert zh.json()["error"] == "store_unavailable" and "会话数据库" in zh.json()["message"]
        en = client.post("/v1/chat", json={"message": "What is ZeRO-3?"})
        assert en.status_code == 503 and "conversation database" in en.json()["message"]
    finally:
        pg_ctl("start")
    assert client.get("/readyz").status_code == 200
    assert client.post("/v1/chat", json=QUESTION).status_code == 200


def test_chroma_server_down_is_not_ready_and_chat_503_then_recovers(client, chroma) -> None:
    chroma.stop()
    try:
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["checks"]["chroma_server"] is False
        assert chroma.url in problems(ready)["chroma_server"]["message"]
        zh = client.post("/v1/chat", json=QUESTION, headers={"accept-language": "zh"})
        assert zh.status_code == 503, zh.text
        assert "知识库" in zh.json()["message"]
    finally:
        chroma.start()
    assert client.get("/readyz").status_code == 200
    assert client.post("/v1/chat", json=QUESTION).status_code == 200
