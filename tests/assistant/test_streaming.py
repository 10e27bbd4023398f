"""Assistant.stream: typed events as the work happens, cancellation, failures as an `error` event, and bad input
refused before the first event. Real components: the copied index, catalog, sizing tools and SQLite."""

from __future__ import annotations

import pytest

from service.config import Settings
from service.contract import Answer, ChatRequest, DoneEvent, ErrorEvent, MetaEvent
from service.errors import InputError
from service.runtime import Runtime

RECOMMEND_EN = "We want to fully fine-tune Qwen-14B on 500k samples within 24 hours. What do we need?"


@pytest.fixture(scope="module")
def runtime(module_data_dir):
    rt = Runtime(Settings(data_dir=module_data_dir, environment="test", api_keys=[], llm_provider="none"))
    rt.open_index()
    yield rt
    rt.close()


def test_the_stream_tells_the_work_in_order_and_ends_with_the_answer(runtime) -> None:
    events = list(runtime.advisor.stream(ChatRequest(message=RECOMMEND_EN), channel="cli", owner="cli:me"))
    names = [e.event for e in events]
    assert names[0] == "meta" and names[-1] == "done" and "error" not in names
    first_text = min(names.index("block"), names.index("delta"))
    assert names.index("citations") < first_text and max(i for i, n in enumerate(names) if n == "tool_result") < names.index("citations")
    answer: Answer = events[-1].answer
    assert [e.tool for e in events if e.event == "tool_result"] == [c.tool for c in answer.tool_calls]
    assert [e.block for e in events if e.event == "block"] == answer.blocks
    assert "".join(e.text for e in events if e.event == "delta") == answer.answer
    assert any(b.type == "recommendation" for b in answer.blocks) and answer.recommendation is not None
    stored = runtime.advisor.conversation(conversation_id=answer.conversation_id, owner="cli:me")
    assert stored is not None and stored.messages[-1].id == answer.message_id and stored.messages[-1].channel == "cli"
    assert runtime.advisor.conversation(conversation_id=answer.conversation_id, owner=None) is None


def test_a_cancelled_stream_stops_before_the_answer_and_records_nothing(runtime) -> None:
    stream = runtime.advisor.stream(ChatRequest(message=RECOMMEND_EN))
    stream.cancel()  # the client went away before the work started
    events = list(stream)
    assert [type(e) for e in events] == [MetaEvent]
    conversation = runtime.advisor.conversation(conversation_id=events[0].conversation_id)
    assert conversation is not None and conversation.messages == []


def test_bad_input_is_refused_before_any_event(runtime) -> None:
    with pytest.raises(InputError) as refused:
        runtime.advisor.stream(ChatRequest(message="\x00\x01\x02"))  # control characters only: empty once cleaned
    assert refused.value.problems[0].field == "message"
    with pytest.raises(InputError) as unknown:
        runtime.advisor.stream(ChatRequest(message="什么是 NVLink？", conversation_id="conv_00000000000000000000"))
    assert unknown.value.problems[0].field == "conversation_id"


@pytest.mark.parametrize("question, lang, message", [("训练到一半断电了怎么办？", "zh", "知识库索引暂不可用"), ("What is MFU?", "en", "not available yet")])
def test_a_failure_after_the_start_is_an_error_event_in_the_users_language(tmp_path, question, lang, message) -> None:
    # The index is never opened here, so retrieval fails after the stream has started.
    rt = Runtime(Settings(data_dir=tmp_path / "data", environment="test", api_keys=[], llm_provider="none"))
    try:
        events = list(rt.advisor.stream(ChatRequest(message=question)))
    finally:
        rt.close()
    assert isinstance(events[0], MetaEvent) and isinstance(events[-1], ErrorEvent)
    assert not any(isinstance(e, DoneEvent) for e in events)
    assert events[-1].code == "index_unavailable" and message in events[-1].message and events[0].language == lang
