"""The analytics store contract on both backends: SQLite (the conversation file) and PostgreSQL (Alembic revision 0002).

PostgreSQL is a real server (scripts/test_servers.sh sets ADVISOR_TEST_DATABASE_URL); each test gets its own schema.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.analytics.records import QuestionRecord
from service.analytics.store import SqliteAnalyticsStore
from service.assistant.store import SqliteConversationStore, new_id
from tests.assistant.test_store_sql import needs_pg, pg_schema_url  # noqa: F401 — the per-test schema fixture


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=needs_pg)])
def stores(request, tmp_path: Path) -> Iterator[tuple]:
    if request.param == "sqlite":
        path = tmp_path / "advisor.sqlite3"
        conversations, analytics = SqliteConversationStore(path), SqliteAnalyticsStore(path)
    else:
        from service.analytics.store_sql import SqlAnalyticsStore
        from service.assistant.store_sql import SqlConversationStore

        url = request.getfixturevalue("pg_schema_url")
        conversations = SqlConversationStore(url)  # runs the migrations, 0002 included
        analytics = SqlAnalyticsStore(url)
    yield conversations, analytics
    analytics.close()
    conversations.close()


def record(n: int, *, created_at: float, conversation_id: str, message_id: str, question: str | None) -> QuestionRecord:
    return QuestionRecord(
        id=f"q_{n:04d}",
        created_at=created_at,
        channel="slack",
        language="zh",
        intent="faq",
        runner_up="spec",
        intent_score=1.2,
        domain_similarity=0.41,
        tools=["checkpoint", "cost"],
        outcome="answered",
        retrieval_confidence=0.66,
        total_ms=12.5,
        stages_ms={"understand": 1.5, "retrieve": 3.25},
        conversation_id=conversation_id,
        message_id=message_id,
        question=question,
    )


def test_records_round_trip_join_feedback_forget_text_and_age_out(stores) -> None:
    conversations, analytics = stores
    now = time.time()
    cid = conversations.create(owner="o1")
    answer = {"message_id": new_id("msg"), "answer": "a\n", "intent": "faq"}
    conversations.save_turn(cid, "q", answer, {}, "zh", channel="slack")
    old = record(1, created_at=now - 40 * 86400, conversation_id=cid, message_id="msg_old", question="旧的问题")
    new = record(2, created_at=now - 60, conversation_id=cid, message_id=answer["message_id"], question="新的问题")
    analytics.add(old)
    analytics.add(new)

    assert analytics.records(now - 86400) == [new]
    assert analytics.records(0) == [old, new]
    conversations.add_feedback(answer["message_id"], "down", "不对")
    [item] = analytics.feedback(now - 86400)
    assert (item.message_id, item.rating, item.comment) == (answer["message_id"], "down", "不对")

    assert analytics.forget_text(cid) == 2
    assert [r.question for r in analytics.records(0)] == [None, None]
    assert analytics.delete_older_than(now - 30 * 86400) == 1
    assert [r.id for r in analytics.records(0)] == ["q_0002"]
