"""/healthz and /readyz (issue 11): probes answered on the event loop even when every worker thread is busy,
and readiness that names the failing part (garbage conversation store, unwritable data dir, index) and how to repair it."""

from __future__ import annotations

import inspect
import threading

import anyio.to_thread
import httpx
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.api.routes import health
from service.assistant.llm_double import LoopbackServer
from service.config import Settings
from service.runtime import Runtime


def client_for(settings: Settings) -> tuple[TestClient, Runtime]:
    runtime = Runtime(settings)
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False), runtime


def test_probes_are_coroutines_so_they_never_wait_for_the_thread_pool() -> None:
    assert inspect.iscoroutinefunction(health.healthz) and inspect.iscoroutinefunction(health.readyz)


def test_a_garbage_conversation_store_is_not_ready_and_says_how_to_repair_it(tmp_path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "advisor.sqlite3").write_bytes(b"this is not a database, just garbage bytes " * 100)
    client, _ = client_for(Settings(data_dir=data_dir, environment="test"))
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 503 and body["status"] == "failed"
    assert body["checks"]["conversation_store"] is False and body["checks"]["data_dir"] is True
    problem = next(p for p in body["problems"] if p["part"] == "conversation_store")
    assert "advisor.sqlite3" in problem["message"] and "not a usable SQLite database" in problem["message"]
    assert "move" in problem["repair"] and problem["permanent"] is True


def test_an_unwritable_data_dir_is_not_ready_naming_it(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    data_dir = blocker / "data"  # cannot exist: its parent is a file (what a read-only mount looks like to root)
    client, _ = client_for(Settings(data_dir=data_dir, environment="test"))
    body = client.get("/readyz").json()
    assert body["status"] == "failed" and body["checks"]["data_dir"] is False
    problem = next(p for p in body["problems"] if p["part"] == "data_dir")
    assert str(data_dir) in problem["message"] and "ADVISOR_DATA_DIR" in problem["repair"]


def test_an_index_that_failed_to_open_is_reported_with_its_error(tmp_path) -> None:
    client, runtime = client_for(Settings(data_dir=tmp_path / "data", environment="test"))
    assert client.get("/readyz").json()["status"] == "starting"  # not opened yet: transient
    runtime._index_error = RuntimeError("chroma.sqlite3: database disk image is malformed")
    body = client.get("/readyz").json()
    problem = next(p for p in body["problems"] if p["part"] == "index")
    assert body["status"] == "failed" and "malformed" in problem["message"] and problem["repair"] == "advisor ingest --rebuild"


def test_a_healthy_store_and_dir_are_ready_once_the_index_is_open(data_dir_with_index) -> None:
    client, runtime = client_for(Settings(data_dir=data_dir_with_index, environment="test"))
    runtime.open_index()
    runtime.assistant  # creates the conversation store
    body = client.get("/readyz").json()
    assert body == {"status": "ready", "checks": {"catalog": True, "index": True, "data_dir": True, "conversation_store": True}}
    runtime.close()


def test_probes_answer_while_every_worker_thread_is_busy(data_dir_with_index) -> None:
    runtime = Runtime(Settings(data_dir=data_dir_with_index, environment="test"))
    app = create_app(runtime=runtime)
    release, entered = threading.Event(), threading.Event()

    @app.get("/test-one-thread")
    async def one_thread() -> dict:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 1
        return {}

    @app.get("/test-block")
    def block() -> dict:  # sync: holds the only worker thread
        entered.set()
        release.wait(30)
        return {}

    with LoopbackServer(app) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        http.get("/test-one-thread")
        blocker = threading.Thread(target=lambda: httpx.get(f"{server.url}/test-block", timeout=60))
        blocker.start()
        try:
            assert entered.wait(10)
            # a sync route would now queue behind the blocked thread; the probes must not
            assert http.get("/healthz").status_code == 200
            assert http.get("/readyz").json()["checks"]["catalog"] is True
            assert not release.is_set()
        finally:
            release.set()
            blocker.join(30)


def test_a_served_app_lets_its_event_loop_take_the_gil_back_quickly(tmp_path) -> None:
    # Probes answered while CPU-bound turns run in threads wait for the GIL at each step: the served app shortens
    # the switch interval (service/runtime.responsive_event_loop), measured against hostile load in bench_hostile.
    import sys

    from service.runtime import PROBE_SWITCH_INTERVAL

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        with client_for(Settings(data_dir=tmp_path, environment="test"))[0] as client:
            client.get("/healthz")
            assert sys.getswitchinterval() == PROBE_SWITCH_INTERVAL < 0.005
    finally:
        sys.setswitchinterval(before)
