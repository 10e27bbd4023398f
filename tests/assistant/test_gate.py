"""The turn gate (service/assistant/gate.py): at most `slots` turns compute at once, long ones in at most `slots - 1`, so
an ordinary question starts at once beside a flood of pastes; a long turn waits for short ones only up to MAX_DEFER_S.
Counted, not timed: which turns hold a slot, which wait. The last tests run the real pipeline through it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from service.assistant import gate as gate_module
from service.assistant.gate import TurnGate
from service.assistant.pipeline import Assistant
from service.assistant.store import SqliteConversationStore
from service.catalog import default_catalog
from service.config import Settings
from service.contract import ChatRequest, MetaEvent
from service.retrieval import open_index

SHORT, LONG = 40, 4000


class Held:
    """A thread holding a slot of `gate` until released."""

    def __init__(self, gate: TurnGate, chars: int, inside=None) -> None:
        self.entered, self.release, self.done = threading.Event(), threading.Event(), threading.Event()

        def run() -> None:
            with gate.turn(chars):
                self.entered.set()
                (inside or self.release.wait)()
            self.done.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def end(self) -> None:
        self.release.set()
        assert self.done.wait(5)


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + 5
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def test_no_more_than_its_slots_at_once_and_the_next_in_order() -> None:
    gate = TurnGate(2)
    first, second = Held(gate, SHORT), Held(gate, SHORT)
    assert first.entered.wait(5) and second.entered.wait(5)
    third, fourth = Held(gate, SHORT), None
    _until(lambda: gate.waiting == (1, 0), "the third waits")
    fourth = Held(gate, SHORT)
    _until(lambda: gate.waiting == (2, 0), "the fourth waits behind it")
    assert gate.busy == (2, 0) and not third.entered.is_set()
    first.end()
    assert third.entered.wait(5)
    assert not fourth.entered.is_set() and gate.busy == (2, 0)
    for held in (second, third, fourth):
        held.end()
    assert gate.busy == (0, 0) and gate.waiting == (0, 0)


def test_long_turns_leave_one_slot_to_short_ones() -> None:
    gate = TurnGate(2)
    paste = Held(gate, LONG)
    assert paste.entered.wait(5)
    another = Held(gate, LONG)
    _until(lambda: gate.waiting == (0, 1), "a second long turn waits although a slot is free")
    question = Held(gate, SHORT)
    assert question.entered.wait(5), "a short turn takes the slot kept for it"
    assert gate.busy == (2, 1) and not another.entered.is_set()
    question.end()
    assert not another.entered.is_set(), "the freed slot is the short ones' only"
    paste.end()
    assert another.entered.wait(5)
    another.end()


def test_one_slot_is_shared_by_both_lanes() -> None:
    gate = TurnGate(1)
    paste = Held(gate, LONG)
    assert paste.entered.wait(5)
    question = Held(gate, SHORT)
    _until(lambda: gate.waiting == (1, 0), "with one slot a short turn waits")
    paste.end()
    assert question.entered.wait(5)
    question.end()


def test_short_turns_go_first_until_a_long_one_has_waited_its_deferral(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    gate = TurnGate(2, clock=lambda: now[0])
    holders = [Held(gate, SHORT), Held(gate, SHORT)]
    assert all(h.entered.wait(5) for h in holders)
    paste = Held(gate, LONG)
    _until(lambda: gate.waiting == (0, 1), "the paste waits")
    later = [Held(gate, SHORT), Held(gate, SHORT)]
    _until(lambda: gate.waiting == (2, 1), "two short ones wait behind it")
    holders[0].end()
    assert later[0].entered.wait(5), "a short one arriving later goes first"
    assert not paste.entered.is_set()
    now[0] = gate_module.MAX_DEFER_S  # the paste has waited its deferral: it goes before the next short one
    holders[1].end()
    assert paste.entered.wait(5)
    assert not later[1].entered.is_set()
    for held in (later[0], paste, later[1]):
        held.end()


def test_a_turn_waiting_on_io_gives_its_slot_back() -> None:
    gate = TurnGate(1)
    waiting_on_llm, back = threading.Event(), threading.Event()

    def llm_call() -> None:
        with gate.released():
            waiting_on_llm.set()
            back.wait(5)

    writer = Held(gate, SHORT, inside=llm_call)
    assert waiting_on_llm.wait(5)
    question = Held(gate, SHORT)
    assert question.entered.wait(5), "the slot is free while the first turn waits for the LLM"
    back.set()
    _until(lambda: gate.busy == (1, 0) and not writer.done.is_set(), "the first turn waits for a slot again")
    question.end()
    assert writer.done.wait(5) and gate.busy == (0, 0)


def test_released_outside_a_turn_holds_nothing() -> None:
    gate = TurnGate(1)
    with gate.released():
        assert gate.busy == (0, 0)
    assert gate.busy == (0, 0)


@pytest.fixture(scope="module")
def assistant(indexed_data_dir: Path, knowledge_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    settings = Settings(data_dir=indexed_data_dir, knowledge_dir=knowledge_copy, environment="test")
    catalog = default_catalog(knowledge_copy)
    store = SqliteConversationStore(tmp_path_factory.mktemp("gate") / "c.sqlite3")
    return Assistant(catalog, open_index(settings, catalog), store, concurrency=2)


def test_the_pipeline_answers_a_question_beside_a_paste_and_queues_a_second_paste(assistant: Assistant) -> None:
    """A 4,000-character message is long by what was sent, even when its bounded text is short ('4090' x 1000)."""
    paste = Held(assistant.gate, LONG)
    assert paste.entered.wait(5)
    answers: list[str] = []
    hostile = threading.Thread(target=lambda: answers.append(assistant.answer(ChatRequest(message="4090" * 1000)).intent), daemon=True)
    hostile.start()
    _until(lambda: assistant.gate.waiting == (0, 1), "the hostile message waits for the long slot")
    answer = assistant.answer(ChatRequest(message="训练到一半断电了怎么办？"))
    assert answer.blocks and not answers, "the question was answered while the hostile message still waits"
    paste.end()
    hostile.join(30)
    assert len(answers) == 1, "and answered once the long slot is free"
    assert assistant.gate.busy == (0, 0)


def test_a_streamed_turn_whose_client_left_while_it_waited_does_nothing(assistant: Assistant) -> None:
    held = [Held(assistant.gate, SHORT), Held(assistant.gate, SHORT)]
    assert all(h.entered.wait(5) for h in held)
    events = assistant.stream(ChatRequest(message="训练到一半断电了怎么办？"))
    received: list[object] = []
    reader = threading.Thread(target=lambda: received.extend(events), daemon=True)
    reader.start()
    _until(lambda: assistant.gate.waiting == (1, 0), "the streamed turn waits for a slot")
    events.cancel()
    for h in held:
        h.end()
    reader.join(10)
    # its meta event, then it stops where any cancelled stream stops (test_streaming.py): no answer
    assert [type(e) for e in received] == [MetaEvent] and assistant.gate.busy == (0, 0)
