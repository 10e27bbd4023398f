"""The SQLite conversation store: WAL, durability across reopening, atomic turns, feedback, concurrent writers."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from service.assistant.store import SqliteConversationStore, new_id


def answer_for(text: str, message_id: str | None = None) -> dict:
    return {"message_id": message_id or new_id("msg"), "answer": f"answer to {text}\n", "writer": "deterministic"}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "advisor.sqlite3"


@pytest.fixture
def store(db: Path):
    s = SqliteConversationStore(db)
    yield s
    s.close()


def raw(db: Path, sql: str, *params) -> list[tuple]:
    conn = sqlite3.connect(str(db))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_the_database_is_in_wal_mode_with_foreign_keys(store, db) -> None:
    assert db.exists()
    assert raw(db, "PRAGMA journal_mode") == [("wal",)]  # persistent: another connection sees it
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        store.add_feedback("msg_does_not_exist", "up", None)


def test_turns_slots_and_language_survive_reopening(db) -> None:
    first = SqliteConversationStore(db)
    cid = first.create()
    a1, a2 = answer_for("q1"), answer_for("q2")
    first.save_turn(cid, "训练到一半断电了怎么办？", a1, {"intent": "faq", "slots": {}}, "zh")
    first.save_turn(cid, "如果换成 H100 呢？", a2, {"intent": "recommend", "slots": {"model": "qwen-14b", "gpu": "h100-sxm"}}, "zh")
    first.close()

    second = SqliteConversationStore(db)
    try:
        conv = second.get(cid)
        assert conv is not None and second.exists(cid)
        assert [(m.role, m.content) for m in conv.messages] == [
            ("user", "训练到一半断电了怎么办？"), ("assistant", a1["answer"]), ("user", "如果换成 H100 呢？"), ("assistant", a2["answer"])]
        assert [m.id for m in conv.messages if m.role == "assistant"] == [a1["message_id"], a2["message_id"]]
        assert conv.messages[3].answer == a2 and conv.messages[2].answer is None
        assert conv.language == "zh" and conv.updated_at >= conv.created_at
        assert second.slots(cid) == {"intent": "recommend", "slots": {"model": "qwen-14b", "gpu": "h100-sxm"}}
        assert second.message_exists(a2["message_id"]) and not second.message_exists(conv.messages[0].id)  # only answers take feedback
    finally:
        second.close()


def test_unknown_conversations(store) -> None:
    assert store.get("conv_nope") is None and not store.exists("conv_nope") and store.slots("conv_nope") == {}


@pytest.mark.parametrize("failure", ["duplicate answer id", "unserialisable slots"])
def test_a_turn_is_saved_whole_or_not_at_all(store, db, failure) -> None:
    cid = store.create()
    first = answer_for("q1")
    store.save_turn(cid, "q1", first, {"slots": {"model": "qwen-14b"}}, "en")
    before = store.get(cid)

    if failure == "duplicate answer id":  # fails on the second INSERT, after the user message went in
        answer, slots, error = answer_for("q2", first["message_id"]), {"slots": {"model": "llama-3-8b"}}, sqlite3.IntegrityError
    else:  # fails on the last statement, after both messages went in
        answer, slots, error = answer_for("q2"), {"slots": {"model": object()}}, TypeError
    with pytest.raises(error):
        store.save_turn(cid, "q2", answer, slots, "zh")

    after = store.get(cid)
    assert after.messages == before.messages and after.slots == before.slots and after.language == "en"
    assert raw(db, "SELECT COUNT(*) FROM messages") == [(2,)]  # and nothing half-written on disk
    # The connection is not left inside a transaction: the next turn saves normally.
    store.save_turn(cid, "q3", answer_for("q3"), {"slots": {"model": "qwen-7b"}}, "en")
    assert [m.content for m in store.get(cid).messages][-2:] == ["q3", "answer to q3\n"]
    assert store.slots(cid) == {"slots": {"model": "qwen-7b"}}


def test_feedback_is_recorded_against_an_answer(store, db) -> None:
    cid = store.create()
    answer = answer_for("q")
    store.save_turn(cid, "q", answer, {}, "en")
    fid = store.add_feedback(answer["message_id"], "down", "the cost looks high")
    assert raw(db, "SELECT id, message_id, rating, comment FROM feedback") == [(fid, answer["message_id"], "down", "the cost looks high")]
    with pytest.raises(sqlite3.IntegrityError):
        store.add_feedback(answer["message_id"], "meh", None)  # the schema checks the rating too


@pytest.mark.parametrize("shared", [True, False], ids=["one-store", "a-store-per-thread"])
def test_concurrent_writers_lose_no_turns(db, shared) -> None:
    """Threads write turns into the same conversations, through one store or one connection each (like workers)."""
    threads, turns = 6, 15
    main = SqliteConversationStore(db)
    conversations = [main.create() for _ in range(2)]
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def writer(n: int) -> None:
        store = main if shared else SqliteConversationStore(db)
        try:
            start.wait()
            for i in range(turns):
                cid = conversations[(n + i) % len(conversations)]
                store.save_turn(cid, f"t{n}-{i}", answer_for(f"t{n}-{i}"), {"last": f"t{n}-{i}"}, "en")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            if not shared:
                store.close()

    pool = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    try:
        assert errors == []
        seen = []
        for cid in conversations:
            messages = main.get(cid).messages
            # Every question is directly followed by its own answer, with no gaps or duplicate positions.
            pairs = list(zip(messages[::2], messages[1::2]))
            assert len(messages) % 2 == 0 and all(u.role == "user" and a.role == "assistant" and a.content == f"answer to {u.content}\n"
                                                  for u, a in pairs)
            seqs = [r[0] for r in raw(db, "SELECT seq FROM messages WHERE conversation_id = ? ORDER BY seq", cid)]
            assert seqs == list(range(1, len(messages) + 1))
            assert main.slots(cid)["last"] == messages[-2].content  # the slots of the last turn saved
            seen += [u.content for u, _ in pairs]
        assert sorted(seen) == sorted(f"t{n}-{i}" for n in range(threads) for i in range(turns))
    finally:
        main.close()


# --------------------------------------------------------------------------- owners, keys, channels
FIRST_RELEASE_SCHEMA = """
CREATE TABLE conversations (id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL, language TEXT, slots TEXT NOT NULL DEFAULT '{}');
CREATE TABLE messages (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
                       role TEXT NOT NULL CHECK (role IN ('user', 'assistant')), content TEXT NOT NULL, answer TEXT, created_at REAL NOT NULL);
CREATE TABLE feedback (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                       rating TEXT NOT NULL CHECK (rating IN ('up', 'down')), comment TEXT, created_at REAL NOT NULL);
INSERT INTO conversations VALUES ('conv_old', 1.0, 2.0, 'zh', '{"slots": {"model": "qwen-14b"}}');
INSERT INTO messages VALUES ('msg_q', 'conv_old', 1, 'user', '老问题', NULL, 1.0);
INSERT INTO messages VALUES ('msg_a', 'conv_old', 2, 'assistant', '老回答', '{"message_id": "msg_a"}', 1.0);
"""


def test_a_first_release_database_is_migrated_in_place(db) -> None:
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(str(db))
    conn.executescript(FIRST_RELEASE_SCHEMA)
    conn.close()

    store = SqliteConversationStore(db)
    try:
        old = store.get("conv_old")
        assert old is not None and [m.content for m in old.messages] == ["老问题", "老回答"] and old.conversation_key is None
        assert old.slots == {"slots": {"model": "qwen-14b"}} and all(m.channel is None for m in old.messages)
        assert store.message_exists("msg_a") and store.add_feedback("msg_a", "up", None)
        # The new columns work on the old file: a key binds to the old conversation, new turns record their channel.
        assert store.bind_key("cli:old", conversation_id="conv_old") == "conv_old" == store.find_key("cli:old")
        store.save_turn("conv_old", "新问题", answer_for("新问题"), {}, "zh", channel="cli")
        assert [m.channel for m in store.get("conv_old").messages][-2:] == ["cli", "cli"]
    finally:
        store.close()
    columns = {row[1] for row in raw(db, "PRAGMA table_info(conversations)")}
    assert {"owner", "conversation_key"} <= columns and "channel" in {row[1] for row in raw(db, "PRAGMA table_info(messages)")}
    SqliteConversationStore(db).close()  # migrating twice is a no-op


def test_owners_see_only_their_conversations_and_messages(store) -> None:
    mine = store.create(owner="key:a")
    store.save_turn(mine, "q", answer_for("q", "msg_mine"), {}, "en", channel="api")
    assert store.exists(mine, owner="key:a") and not store.exists(mine, owner="key:b") and not store.exists(mine)
    assert store.get(mine, owner="key:b") is None and store.get(mine, owner="key:a").messages[0].channel == "api"
    assert store.message_exists("msg_mine", owner="key:a") and not store.message_exists("msg_mine", owner="key:b")


def test_a_key_names_one_conversation_per_owner_even_when_first_used_concurrently(store) -> None:
    results: list[str] = []

    def bind() -> None:
        results.append(store.bind_key("slack:T1:C1:1.5", owner="slack:T1"))

    threads = [threading.Thread(target=bind) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and store.find_key("slack:T1:C1:1.5", owner="slack:T1") == results[0]
    assert store.bind_key("slack:T1:C1:1.5", owner="slack:T2") != results[0]  # another owner, another conversation
    assert store.find_key("slack:T1:C1:1.5") is None
