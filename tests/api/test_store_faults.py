"""A damaged conversation store (issue 28): POST /v1/chat is a 503 naming the repair /readyz names, never a bare 500,
and the damaged file is left byte for byte as it was found.

Real SQLite files under tmp_path, written by the real store and then damaged the ways disks and people damage them:
garbage over the header, a torn write (truncated), zeroed pages, a file nobody may write (chattr +i, which binds root too).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.assistant.store import SqliteConversationStore, new_id
from service.config import Settings
from service.runtime import Runtime

PAGE = 4096  # SQLite's default page size, which the store keeps


def populated_store(data_dir: Path) -> Path:
    """A store with enough conversations to span many pages, checkpointed into the main file (no -wal left)."""
    path = data_dir / "advisor.sqlite3"
    store = SqliteConversationStore(path)
    for n in range(120):
        cid = store.create(owner=None)
        store.save_turn(cid, f"question {n} " + "x" * 400, {"message_id": new_id("msg"), "answer": "y" * 1500}, {"n": n}, "en")
    store.close()
    return path


def garbage(path: Path) -> None:
    with path.open("r+b") as handle:  # the 100-byte header overwritten: SQLite no longer recognises the file
        handle.write(b"not a database header, just bytes ".ljust(100, b"."))


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a torn write: the header still counts every page


def zeroed_pages(path: Path) -> None:
    with path.open("r+b") as handle:  # pages 3 to 8 become zeros; page 1 (sqlite_master's root) stays intact
        handle.seek(2 * PAGE)
        handle.write(b"\0" * 6 * PAGE)


DAMAGE = {"garbage": garbage, "truncated": truncated, "zeroed_pages": zeroed_pages}


def client_for(data_dir: Path) -> TestClient:
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[], llm_provider="none"))
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def store_problem(client: TestClient, lang: str) -> dict:
    response = client.get("/readyz", headers={"Accept-Language": lang})
    body = response.json()
    assert response.status_code == 503 and body["checks"]["conversation_store"] is False, body
    return next(p for p in body["problems"] if p["part"] == "conversation_store")


def assert_chat_names_the_repair(client: TestClient, store: Path) -> None:
    before = digest(store)
    for lang in ("en", "zh"):
        problem = store_problem(client, lang)
        assert problem["permanent"] is True and problem["repair"], problem
        response = client.post("/v1/chat", json={"message": "How much memory does Llama-3-8B need?"}, headers={"Accept-Language": lang})
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["error"] == "store_damaged" and body["part"] == "conversation_store"
        assert body["repair"] == problem["repair"], "chat and /readyz name the same repair"
        assert problem["repair"] in body["message"] and str(store) in body["message"]
        assert ("重试" in body["message"]) == (lang == "zh")
        assert "Retry-After" not in response.headers, "a permanent fault does not heal by retrying"
    assert store.exists() and digest(store) == before, "the damaged store is left exactly as found"


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_a_damaged_store_answers_chat_with_503_and_the_readiness_repair(tmp_path: Path, how: str) -> None:
    data_dir = tmp_path / "data"
    store = populated_store(data_dir)
    DAMAGE[how](store)
    assert_chat_names_the_repair(client_for(data_dir), store)


def test_zeroed_pages_are_not_ready(tmp_path: Path) -> None:
    """The probe reads the pages too (a quick check), not only sqlite_master on page 1."""
    data_dir = tmp_path / "data"
    store = populated_store(data_dir)
    client = client_for(data_dir)
    assert client.get("/readyz").json()["checks"]["conversation_store"] is True
    zeroed_pages(store)
    problem = store_problem(client, "en")
    assert "not a usable SQLite database" in problem["message"] and "move" in problem["repair"]


@pytest.fixture
def immutable(tmp_path: Path):
    """chattr +i: a file even root cannot open for writing (chmod does not bind root). Undone before tmp_path is removed."""
    marked: list[Path] = []
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed: no way to make a file read-only for root here")

    def mark(path: Path) -> None:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("this filesystem or user cannot set the immutable flag (chattr +i)")
        marked.append(path)

    yield mark
    for path in marked:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def test_a_read_only_store_answers_chat_with_503_and_the_readiness_repair(tmp_path: Path, immutable) -> None:
    data_dir = tmp_path / "data"
    store = populated_store(data_dir)
    immutable(store)
    client = client_for(data_dir)
    assert "read-only" in store_problem(client, "en")["message"]
    assert_chat_names_the_repair(client, store)
