"""A turn that uses up its CPU budget (service/assistant/budget.py) stops cleanly: a short notice in the user's language,
counted in /metrics and in analytics, and nothing of it stored. Real index, real SQLite; the clock is the only double."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.analytics.recorder import Recorder
from service.analytics.store import SqliteAnalyticsStore
from service import budget
from service.assistant.front import Advisor
from service.assistant.messages import say
from service.assistant.pipeline import Assistant
from service.assistant.store import SqliteConversationStore
from service.catalog import default_catalog
from service.config import Settings
from service.contract import ChatRequest, DoneEvent, MetaEvent, ToolResultEvent
from service.observability import metrics
from service.retrieval import open_index

QUESTION = "Qwen-14B 全参微调，50万条样本，24小时内完成，需要什么配置？"


@pytest.fixture(scope="module")
def parts(indexed_data_dir: Path, knowledge_copy: Path):
    settings = Settings(data_dir=indexed_data_dir, knowledge_dir=knowledge_copy, environment="test")
    catalog = default_catalog(knowledge_copy)
    return catalog, open_index(settings, catalog)


def _advisor(parts, tmp_path: Path, limit_s: float | None) -> tuple[Advisor, SqliteConversationStore, SqliteAnalyticsStore]:
    catalog, index = parts
    store, analytics = SqliteConversationStore(tmp_path / "c.sqlite3"), SqliteAnalyticsStore(tmp_path / "a.sqlite3")
    assistant = Assistant(catalog, index, store, recorder=Recorder(analytics, store_questions=False), turn_budget_s=limit_s)
    return Advisor(assistant), store, analytics


def _stopped(stage: str) -> float:
    return metrics.REGISTRY.get_sample_value("advisor_turns_over_budget_total", {"stage": stage}) or 0.0


def _spent_at(prefix: str):
    """TurnBudget.check that finds the budget spent at the first step whose name starts with `prefix`."""
    def check(self, stage: str) -> None:
        if stage.startswith(prefix):
            raise budget.OverBudget(stage, 1.5)
    return check


@pytest.mark.parametrize(("question", "lang"), [("我们有 8 张 H100，全参训 7B 要多久？", "zh"), ("How long to fully fine-tune a 7B model on 8 H100s?", "en")])
def test_a_spent_budget_gets_a_short_answer_in_the_users_language_and_nothing_is_stored(parts, tmp_path, question, lang) -> None:
    advisor, store, analytics = _advisor(parts, tmp_path, limit_s=1e-9)  # spent before the first step
    before = _stopped("understand")
    answer = advisor.answer(ChatRequest(message=question))
    assert answer.answer.strip() == say("pipeline.over_budget", lang) and answer.language == lang
    assert answer.tool_calls == [] and answer.grounding.ungrounded == []
    assert _stopped("understand") == before + 1
    conversation = store.get(answer.conversation_id)
    assert conversation is not None and conversation.messages == [] and conversation.slots == {}
    [record] = analytics.records(0)
    assert record.outcome == "over_budget" and record.message_id == answer.message_id


def test_a_turn_stops_at_the_first_tool_call_after_the_budget_runs_out(parts, tmp_path, monkeypatch) -> None:
    advisor, store, _ = _advisor(parts, tmp_path, limit_s=1.0)
    monkeypatch.setattr(budget.TurnBudget, "check", _spent_at("handler"))
    before = _stopped("handler")
    events = list(advisor.stream(ChatRequest(message=QUESTION)))
    assert isinstance(events[0], MetaEvent) and events[0].intent == "recommend"
    assert not any(isinstance(e, ToolResultEvent) for e in events)  # stopped before the first tool ran
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.answer.answer.strip() == say("pipeline.over_budget", "zh")
    assert done.answer.message_id == events[0].message_id
    assert _stopped("handler") == before + 1
    assert store.get(done.answer.conversation_id).messages == []


def test_a_follow_up_after_a_stopped_turn_reads_the_conversation_as_it_was(parts, tmp_path, monkeypatch) -> None:
    advisor, store, _ = _advisor(parts, tmp_path, limit_s=1.0)
    first = advisor.answer(ChatRequest(message=QUESTION))
    monkeypatch.setattr(budget.TurnBudget, "check", _spent_at("understand"))
    stopped = advisor.answer(ChatRequest(message="如果换成 A100 呢？", conversation_id=first.conversation_id))
    assert stopped.answer.strip() == say("pipeline.over_budget", "zh")
    monkeypatch.undo()
    again = advisor.answer(ChatRequest(message="如果换成 A100 呢？", conversation_id=first.conversation_id))
    assert again.slots.get("gpu", "").startswith("a100") and again.slots.get("model") == first.slots.get("model") == "qwen-14b"
    assert len(store.get(first.conversation_id).messages) == 4  # two turns stored, the stopped one not at all


def test_an_ordinary_turn_is_well_inside_the_default_budget(parts, tmp_path) -> None:
    advisor, _, _ = _advisor(parts, tmp_path, limit_s=Settings().turn_budget_s)
    answer = advisor.answer(ChatRequest(message="训练到一半断电了怎么办？"))
    assert answer.answer.strip() != say("pipeline.over_budget", "zh") and answer.citations


def test_the_budget_is_the_turns_own_cpu_and_not_its_loading(monkeypatch) -> None:
    clock = iter([0.0, 0.4, 0.4, 1.4, 1.6, 2.6])
    monkeypatch.setattr(budget.time, "thread_time", lambda: next(clock))
    with budget.turn_budget(1.0) as turn:  # started at 0.0
        budget.check("a")  # 0.4 spent
        with budget.not_charged():  # loading from 0.4 to 1.4: not charged
            pass
        budget.check("b")  # 1.6 - 1.0 = 0.6 spent
        with pytest.raises(budget.OverBudget, match="by c"):
            budget.check("c")  # 2.6 - 1.0 = 1.6 spent
    assert turn is not None
    budget.check("outside any turn")  # nothing to check
