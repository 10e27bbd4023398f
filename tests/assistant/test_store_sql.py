"""The ConversationStore contract, run against both stores: SQLite (embedded) and PostgreSQL (SqlConversationStore).

PostgreSQL is a real server: CI starts one (scripts/test_servers.sh) and sets ADVISOR_TEST_DATABASE_URL.
Each test gets its own schema (search_path), so tests never see each other's rows.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from service.assistant.retention import sweep
from service.assistant.store import SqliteConversationStore, new_id

PG_URL = os.environ.get("ADVISOR_TEST_DATABASE_URL")
needs_pg = pytest.mark.skipif(not PG_URL, reason="ADVISOR_TEST_DATABASE_URL is not set (CI starts PostgreSQL: scripts/test_servers.sh)")


@dataclass
class Backend:
    store: Any
    backdate: Callable[[str, float], None]  # move a conversation's updated_at into the past (seconds)
    reopen: Callable[[], Any]


def answer_for(text: str) -> dict:
    return {"message_id": new_id("msg"), "answer": f"answer to {text}\n", "writer": "deterministic", "intent": "faq"}


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    from sqlalchemy import create_engine, text

    from service.assistant.store_sql import engine_url

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(engine_url(PG_URL), pool_pre_ping=True)  # the readiness test restarts the server
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def sqlite_backend(tmp_path: Path) -> Backend:
    path = tmp_path / "advisor.sqlite3"

    def backdate(cid: str, seconds: float) -> None:
        conn = sqlite3.connect(str(path))
        with conn:
            conn.execute("UPDATE conversations SET updated_at = updated_at - ? WHERE id = ?", (seconds, cid))
        conn.close()

    return Backend(SqliteConversationStore(path), backdate, lambda: SqliteConversationStore(path))


def pg_backend(url: str) -> Backend:
    from sqlalchemy import create_engine, text

    from service.assistant.store_sql import SqlConversationStore, engine_url

    def backdate(cid: str, seconds: float) -> None:
        engine = create_engine(engine_url(url))
        with engine.begin() as conn:
            conn.execute(text("UPDATE conversations SET updated_at = updated_at - :s WHERE id = :id"), {"s": seconds, "id": cid})
        engine.dispose()

    return Backend(SqlConversationStore(url), backdate, lambda: SqlConversationStore(url))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=needs_pg)])
def backend(request, tmp_path: Path) -> Iterator[Backend]:
    b = sqlite_backend(tmp_path) if request.param == "sqlite" else pg_backend(request.getfixturevalue("pg_schema_url"))
    yield b
    b.store.close()


# --------------------------------------------------------------------------- the contract
def test_turns_round_trip_with_language_slots_answer_and_channel(backend) -> None:
    store = backend.store
    cid = store.create(owner="o1")
    first, second = answer_for("q1"), answer_for("q2")
    store.save_turn(cid, "q1", first, {"model": "qwen-14b"}, "zh", channel="api")
    store.save_turn(cid, "q2", second, {"model": "qwen-14b", "gpu": "h100-sxm"}, "en", channel="slack")

    again = backend.reopen()  # a second connection (another worker) sees the committed turns
    conv = again.get(cid, owner="o1")
    again.close()
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]
    assert [m.content for m in conv.messages] == ["q1", first["answer"], "q2", second["answer"]]
    assert conv.messages[1].answer == first and conv.messages[1].id == first["message_id"]
    assert [m.channel for m in conv.messages] == ["api", "api", "slack", "slack"]
    assert conv.language == "en" and conv.slots == {"model": "qwen-14b", "gpu": "h100-sxm"}
    assert store.slots(cid) == conv.slots and conv.updated_at >= conv.created_at


def test_owners_see_only_their_own_conversations_messages_and_keys(backend) -> None:
    store = backend.store
    mine, anonymous = store.create(owner="o1"), store.create()
    answer = answer_for("q")
    store.save_turn(mine, "q", answer, {}, "en")
    assert store.exists(mine, owner="o1") and not store.exists(mine, owner="o2") and not store.exists(mine)
    assert store.exists(anonymous) and not store.exists(anonymous, owner="o1")
    assert store.get(mine, owner="o2") is None and store.get("conv_unknown", owner="o1") is None
    assert store.message_exists(answer["message_id"], owner="o1") and not store.message_exists(answer["message_id"], owner="o2")
    assert store.slots("conv_unknown") == {}


def test_a_key_names_one_conversation_per_owner_even_when_first_used_concurrently(backend) -> None:
    store = backend.store
    results: list[str | None] = []
    barrier = threading.Barrier(6)

    def first_use() -> None:
        barrier.wait()
        results.append(store.bind_key("slack:T1:C2:1712.5", owner="slack:T1"))

    threads = [threading.Thread(target=first_use) for _ in range(6)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert len(set(results)) == 1 and results[0] is not None
    assert store.find_key("slack:T1:C2:1712.5", owner="slack:T1") == results[0]
    assert store.find_key("slack:T1:C2:1712.5", owner="slack:T2") is None
    other_owner = store.bind_key("slack:T1:C2:1712.5", owner="slack:T2")
    assert other_owner not in (None, results[0])
    # An existing conversation takes a key once; a second key for it is refused.
    cid = store.create(owner="o1")
    assert store.bind_key("k1", owner="o1", conversation_id=cid) == cid
    assert store.bind_key("k2", owner="o1", conversation_id=cid) is None
    assert store.get(cid, owner="o1").conversation_key == "k1"


def test_concurrent_turns_of_one_conversation_are_all_kept_in_order(backend) -> None:
    store = backend.store
    cid = store.create(owner="o1")
    barrier = threading.Barrier(4)

    def turns(n: int) -> None:
        barrier.wait()
        for i in range(5):
            store.save_turn(cid, f"t{n}-{i}", answer_for(f"t{n}-{i}"), {}, "en")

    threads = [threading.Thread(target=turns, args=(n,)) for n in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    messages = store.get(cid, owner="o1").messages
    assert len(messages) == 40
    # Every question is directly followed by its own answer: no interleaving inside a turn.
    for question, reply in zip(messages[::2], messages[1::2], strict=True):
        assert question.role == "user" and reply.content == f"answer to {question.content}\n"


def test_feedback_is_recorded_and_deleting_a_conversation_takes_messages_and_feedback(backend) -> None:
    store = backend.store
    cid = store.create(owner="o1")
    answer = answer_for("q")
    store.save_turn(cid, "q", answer, {}, "en")
    assert store.add_feedback(answer["message_id"], "up", "clear").startswith("fb_")

    assert store.delete(cid, owner="o2") is False  # another owner's: refused, like GET
    assert store.get(cid, owner="o1") is not None
    assert store.delete(cid, owner="o1") is True
    assert store.get(cid, owner="o1") is None and not store.message_exists(answer["message_id"], owner="o1")
    assert store.delete(cid, owner="o1") is False
    assert feedback_rows(backend) == 0


def test_retention_deletes_only_conversations_older_than_the_age(backend) -> None:
    store = backend.store
    old, recent = store.create(owner="o1"), store.create(owner="o1")
    answer = answer_for("old")
    store.save_turn(old, "old", answer, {}, "en")
    store.add_feedback(answer["message_id"], "down", None)
    store.save_turn(recent, "recent", answer_for("recent"), {}, "en")
    backend.backdate(old, 31 * 86400)

    assert sweep(store, 0) == 0 and store.exists(old, owner="o1")  # 0 days: keep forever
    assert sweep(store, 30) == 1
    assert not store.exists(old, owner="o1") and store.exists(recent, owner="o1")
    assert feedback_rows(backend) == 0
    assert sweep(store, 30, now=time.time() + 31 * 86400) == 1  # and the recent one, once it is old too


def test_ping_answers_on_a_working_store(backend) -> None:
    backend.store.ping()


def feedback_rows(backend: Backend) -> int:
    store = backend.store
    if isinstance(store, SqliteConversationStore):
        with store._lock:
            return store._conn.execute("SELECT count(*) FROM feedback").fetchone()[0]
    with store._engine.connect() as conn:
        from sqlalchemy import text

        return conn.execute(text("SELECT count(*) FROM feedback")).scalar()


# --------------------------------------------------------------------------- PostgreSQL only
@needs_pg
def test_migrations_run_at_start_up_and_are_idempotent(pg_schema_url) -> None:
    from sqlalchemy import text

    from service.assistant.store_sql import SqlConversationStore

    stores = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def start() -> None:  # three workers starting at once against an empty database
        barrier.wait()
        try:
            stores.append(SqlConversationStore(pg_schema_url))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert errors == []
    with stores[0]._engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == ["0002"]  # 0002: analytics question records
        tables = set(conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")).scalars())
    assert {"conversations", "messages", "feedback", "question_records", "alembic_version"} <= tables
    for store in stores:
        store.close()


@needs_pg
def test_an_unreachable_database_is_store_unavailable_not_a_crash() -> None:
    from service.assistant.store_sql import SqlConversationStore
    from service.errors import StoreUnavailableError

    with pytest.raises(StoreUnavailableError, match="cannot be reached"):
        SqlConversationStore("postgresql://advisor:x@127.0.0.1:9/advisor_test", connect_timeout_s=2)
