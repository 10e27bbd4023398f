"""Every answered question is recorded through the one pipeline; its text only when allowed; recording never fails
an answer; retention prunes old records. Real index, real SQLite files."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from service.analytics.recorder import RECORD_ERRORS, Recorder
from service.analytics.store import SqliteAnalyticsStore
from service.assistant.front import Advisor
from service.assistant.pipeline import Assistant
from service.assistant.retention import sweep
from service.assistant.store import SqliteConversationStore
from service.catalog import default_catalog
from service.config import Settings
from service.contract import ChatRequest, DoneEvent, Feedback
from service.retrieval import open_index

MARKER = "Quixotrel7731"  # appears nowhere else: finding it in a file means the question text was stored


@pytest.fixture(scope="module")
def parts(indexed_data_dir: Path, knowledge_copy: Path):
    settings = Settings(data_dir=indexed_data_dir, knowledge_dir=knowledge_copy, environment="test")
    catalog = default_catalog(knowledge_copy)
    return catalog, open_index(settings, catalog)


def advisor(parts, tmp_path: Path, *, store_questions: bool) -> tuple[Advisor, SqliteAnalyticsStore, Path]:
    catalog, index = parts
    # Analytics in a file of its own here, so its bytes can be scanned apart from the conversation (which holds the text).
    path = tmp_path / "analytics.sqlite3"
    analytics = SqliteAnalyticsStore(path)
    assistant = Assistant(
        catalog, index, SqliteConversationStore(tmp_path / "conversations.sqlite3"), recorder=Recorder(analytics, store_questions=store_questions)
    )
    return Advisor(assistant), analytics, path


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))  # the file, its -wal and -shm


@pytest.mark.parametrize("store_questions", [False, True])
def test_question_text_is_stored_only_when_allowed(parts, tmp_path: Path, store_questions: bool) -> None:
    front, analytics, path = advisor(parts, tmp_path, store_questions=store_questions)
    answer = front.answer(ChatRequest(message=f"How do I tune the {MARKER} interconnect for NCCL all-reduce?"), channel="widget")
    [record] = analytics.records(0)
    assert record.message_id == answer.message_id and record.conversation_id == answer.conversation_id and record.channel == "widget"
    assert record.language == "en" and record.intent == answer.intent and record.outcome in ("answered", "abstained")
    assert record.total_ms > 0 and {"understand", "retrieve", "compose", "persist"} <= set(record.stages_ms)
    assert (MARKER.encode() in file_bytes(path)) is store_questions
    assert (record.question is not None) is store_questions
    analytics.close()


def test_outcomes_and_tools_are_read_from_the_answer(parts, tmp_path: Path) -> None:
    front, analytics, _ = advisor(parts, tmp_path, store_questions=True)
    front.answer(ChatRequest(message="Who won the football world cup in 2018?"), channel="cli")
    front.answer(ChatRequest(message="How many H100 do I need to fully fine-tune Llama-3-8B within a day?"), channel="slack")
    refused, sized = analytics.records(0)
    assert refused.outcome == "refused_out_of_scope" and refused.retrieval_confidence is None
    assert refused.domain_similarity is None or refused.domain_similarity < 0.3  # far from the domain: not a coverage gap
    assert sized.outcome == "answered" and sized.tools and sized.channel == "slack"


def test_a_failing_analytics_store_never_fails_the_answer(parts, tmp_path: Path) -> None:
    front, analytics, _ = advisor(parts, tmp_path, store_questions=False)
    analytics.close()  # every write now raises
    before = RECORD_ERRORS._value.get()
    answer = front.answer(ChatRequest(message="What is ZeRO-3?"))
    assert answer.intent == "faq" and answer.citations
    assert RECORD_ERRORS._value.get() == before + 1


def test_feedback_joins_and_deleting_a_conversation_clears_its_text(parts, tmp_path: Path) -> None:
    catalog, index = parts
    path = tmp_path / "advisor.sqlite3"  # the production layout: both stores in one file
    analytics = SqliteAnalyticsStore(path)
    front = Advisor(Assistant(catalog, index, SqliteConversationStore(path), recorder=Recorder(analytics, store_questions=True)))
    answer = front.answer(ChatRequest(message=f"Is {MARKER} fabric supported?"))
    front.feedback(Feedback(message_id=answer.message_id, rating="down", comment="nothing about it"))
    [item] = analytics.feedback(0)
    assert item.message_id == answer.message_id and item.comment == "nothing about it"
    assert front.delete_conversation(answer.conversation_id)
    [record] = analytics.records(0)
    assert record.question is None and record.message_id == answer.message_id  # the counts stay, the text goes


def test_retention_prunes_old_records(tmp_path: Path) -> None:
    from tests.analytics.test_report import rec

    analytics = SqliteAnalyticsStore(tmp_path / "a.sqlite3")
    conversations = SqliteConversationStore(tmp_path / "a.sqlite3")
    now = time.time()
    analytics.add(rec(1).model_copy(update={"created_at": now - 40 * 86400}))
    analytics.add(rec(2).model_copy(update={"created_at": now - 1 * 86400}))
    sweep(conversations, 30, now=now, also=(analytics,))
    assert [r.id for r in analytics.records(0)] == ["q_0002"]


def test_a_streamed_turn_is_recorded_like_an_answered_one(parts, tmp_path: Path) -> None:
    front, analytics, _ = advisor(parts, tmp_path, store_questions=False)
    events = list(front.stream(ChatRequest(message="训练到一半断电了怎么办？"), channel="widget"))
    done = events[-1]
    assert isinstance(done, DoneEvent)
    [record] = analytics.records(0)
    assert (record.message_id, record.channel, record.language, record.outcome) == (done.answer.message_id, "widget", "zh", "answered")
    assert record.retrieval_confidence is not None and record.question is None


def test_a_turn_that_fails_is_recorded_as_an_error(tmp_path: Path, knowledge_copy: Path) -> None:
    from service.errors import RetrievalError
    from service.runtime import Runtime

    # The runtime's own index, never opened: the first search fails the turn, as while an index is being rebuilt.
    runtime = Runtime(Settings(data_dir=tmp_path / "data", knowledge_dir=knowledge_copy, environment="test"))
    try:
        with pytest.raises(RetrievalError):
            runtime.advisor.answer(ChatRequest(message="What is ZeRO-3?"), channel="cli")
        [record] = runtime.analytics_store.records(0)
        assert (record.outcome, record.channel, record.intent, record.language) == ("error", "cli", "faq", "en")
        assert record.message_id is not None and record.question is None
    finally:
        runtime.close()
