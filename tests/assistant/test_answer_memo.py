"""First-turn answers kept by question (service/assistant/answer_memo.py): the same answer under each turn's own ids,
every turn still persisted and recorded; follow-ups, streams and LLM-written answers never come from the memo."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.assistant.answer_memo import AnswerMemo, MemoEntry
from service.contract import Answer, ChatRequest, DoneEvent, Feedback, Grounding

QUESTION = "H100 SXM 的显存带宽是多少？"


@pytest.fixture(scope="module")
def runtime(module_data_dir: Path):
    from service.config import Settings
    from service.runtime import Runtime

    rt = Runtime(Settings(data_dir=module_data_dir, environment="test", api_keys=[], llm_provider="none", answer_memo_size=16))
    rt.open_index()
    yield rt
    rt.close()


def test_a_repeated_first_question_gets_the_same_answer_under_new_ids(runtime) -> None:
    memo = runtime.assistant.memo
    first = runtime.advisor.answer(ChatRequest(message=QUESTION))
    hits = memo.hits
    second = runtime.advisor.answer(ChatRequest(message=QUESTION))
    assert memo.hits == hits + 1
    assert second.answer == first.answer and second.blocks == first.blocks and second.citations == first.citations
    assert second.intent == first.intent == "spec"
    assert second.conversation_id != first.conversation_id and second.message_id != first.message_id
    # The memoised turn is a real turn: persisted under its own conversation, with its own message id.
    stored = runtime.advisor.conversation(conversation_id=second.conversation_id)
    assert [m.role for m in stored.messages] == ["user", "assistant"]
    assert stored.messages[1].id == second.message_id
    assert stored.messages[1].answer["conversation_id"] == second.conversation_id
    assert stored.messages[1].answer["answer"] == first.answer
    # ... and it can be rated and continued like any other.
    assert runtime.advisor.feedback(Feedback(message_id=second.message_id, rating="up")) is not None
    follow = runtime.advisor.answer(ChatRequest(message="那 A100 呢？", conversation_id=second.conversation_id))
    assert follow.conversation_id == second.conversation_id


def test_follow_ups_are_not_memoised(runtime) -> None:
    memo = runtime.assistant.memo
    first = runtime.advisor.answer(ChatRequest(message="can one 4090 fine-tune an 8B model with LoRA?"))
    before = (memo.hits, memo.misses, len(memo))
    runtime.advisor.answer(ChatRequest(message="can one 4090 fine-tune an 8B model with LoRA?", conversation_id=first.conversation_id))
    # A turn with conversation state never looks in the memo, nor adds to it.
    assert (memo.hits, memo.misses, len(memo)) == before


def test_the_requested_language_is_part_of_the_key(runtime) -> None:
    question = "A100 80GB NVLink bandwidth?"
    english = runtime.advisor.answer(ChatRequest(message=question))
    chinese = runtime.advisor.answer(ChatRequest(message=question, language="zh"))
    assert english.language == "en" and chinese.language == "zh"
    assert english.answer != chinese.answer


def test_streamed_turns_are_answered_afresh(runtime) -> None:
    memo = runtime.assistant.memo
    runtime.advisor.answer(ChatRequest(message="what is ZeRO-3?"))
    before = (memo.hits, memo.misses)
    events = list(runtime.advisor.stream(ChatRequest(message="what is ZeRO-3?")))
    assert isinstance(events[-1], DoneEvent)
    assert (memo.hits, memo.misses) == before


def test_memoised_turns_are_recorded_for_analytics(runtime) -> None:
    question = "训练前要检查哪些东西？"
    answers = [runtime.advisor.answer(ChatRequest(message=question)) for _ in range(2)]
    records = {r.message_id: r for r in runtime.analytics_store.records(since=0)}
    for answer in answers:
        record = records[answer.message_id]
        assert record.intent == answer.intent and record.language == "zh" and record.conversation_id == answer.conversation_id


def test_the_memo_is_off_with_an_llm_writer_and_at_size_zero(module_data_dir: Path) -> None:
    from service.assistant.pipeline import Assistant
    from service.catalog import default_catalog
    from service.config import Settings

    settings = Settings(data_dir=module_data_dir, environment="test")
    catalog = default_catalog(settings.knowledge_dir)

    class Store:  # the assistant's constructor only keeps it
        pass

    assert Assistant(catalog, index=None, store=Store(), memo_size=0).memo.size == 0
    assert Assistant(catalog, index=None, store=Store(), writer=object(), memo_size=64).memo.size == 0
    assert Assistant(catalog, index=None, store=Store(), memo_size=64).memo.size == 64


def test_the_memo_keeps_the_most_recently_used_entries() -> None:
    memo = AnswerMemo(2)

    def entry(text: str) -> MemoEntry:
        answer = Answer(conversation_id="c", message_id="m", answer=text, language="en", intent="faq", grounding=Grounding(numbers_checked=0))
        return MemoEntry(answer=answer, stored={}, slots={}, language="en", intent="faq", trace=None, top_score=None)

    memo.put("a", None, entry("a"))
    memo.put("b", None, entry("b"))
    assert memo.get("a", None) is not None  # a is now the most recent
    memo.put("c", None, entry("c"))
    assert memo.get("b", None) is None and memo.get("a", None) is not None and memo.get("c", None) is not None
    assert len(memo) == 2
    AnswerMemo(0).put("x", None, entry("x"))


def test_the_memo_is_off_over_a_chroma_server(tmp_path: Path) -> None:
    from service.config import Settings
    from service.runtime import Runtime

    # A shared server can be re-ingested from another host or go down: its answers are never kept.
    served = Runtime(Settings(data_dir=tmp_path, environment="test", chroma_url="http://127.0.0.1:9", answer_memo_size=64))
    embedded = Runtime(Settings(data_dir=tmp_path, environment="test", answer_memo_size=64))
    assert served._memo_size() == 0 and embedded._memo_size() == 64
