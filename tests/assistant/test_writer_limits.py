"""A configured LLM cannot starve deterministic answers: bounded concurrency and a circuit breaker.

The model is the OpenAI-compatible double (service.assistant.llm_double) on 127.0.0.1, talked to by the
production writer (LangChain's ChatOpenAI); `slow` holds every reply until released: a hanging LLM.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from service.assistant.answer import ChatRequest
from service.assistant.llm_double import LoopbackServer, ScriptedLLM, create_app
from service.assistant.pipeline import Assistant
from service.assistant.writer import CircuitBreaker, build_writer
from service.config import Settings
from service.runtime import Runtime

QUESTION = "What is ZeRO-3?"


@pytest.fixture(scope="module")
def double():
    llm = ScriptedLLM(hold_s=120)
    server = LoopbackServer(create_app(llm)).start()
    yield llm, server
    llm.release()
    server.stop()


@pytest.fixture(scope="module")
def runtime(module_data_dir: Path):
    rt = Runtime(Settings(data_dir=module_data_dir, environment="test", api_keys=[]))
    rt.open_index()
    yield rt
    rt.close()


def assistant_with(runtime: Runtime, server, **limits) -> Assistant:
    settings = Settings(
        data_dir=runtime.settings.data_dir,
        environment="test",
        api_keys=[],
        llm_provider="openai",
        llm_base_url=f"{server.url}/v1",
        llm_model="double",
        **limits,
    )
    return Assistant(runtime.catalog, runtime.index, runtime.assistant.store, writer=build_writer(settings))


def wait_for_calls(llm: ScriptedLLM, n: int) -> None:
    """Until the double has received n requests (a condition, not a timing assertion)."""
    event = threading.Event()
    for _ in range(6000):
        if len(llm.calls) >= n:
            return
        event.wait(0.01)
    raise AssertionError(f"the double received {len(llm.calls)} requests, expected {n}")


def test_a_hanging_llm_fills_its_slots_and_further_turns_answer_deterministically_at_once(runtime, double) -> None:
    llm, server = double
    llm.reset("slow")
    assistant = assistant_with(runtime, server, llm_max_concurrency=2, llm_timeout_s=120, llm_breaker_failures=100)
    hung: list = []
    threads = [threading.Thread(target=lambda: hung.append(assistant.answer(ChatRequest(message=QUESTION)))) for _ in range(2)]
    try:
        [t.start() for t in threads]
        wait_for_calls(llm, 2)  # both slots now wait on a model that does not answer

        answer = assistant.answer(ChatRequest(message=QUESTION))  # returns although the model still hangs

        assert answer.writer == "deterministic" and "LLMBusyError" in (answer.llm_fallback_reason or "")
        assert len(llm.calls) == 2 and llm.replies == 0  # the third turn never asked the model
        assert answer.grounding.ungrounded == []
    finally:
        llm.release()
        [t.join(60) for t in threads]
    assert [a.writer for a in hung] == ["llm", "llm"]  # the held replies, once released, were used
    # The slots were given back when the calls ended: the model is asked again.
    llm.reset("echo")
    assert assistant.answer(ChatRequest(message=QUESTION)).writer == "llm" and len(llm.calls) == 1


def test_repeated_failures_open_the_breaker_and_the_llm_is_skipped(runtime, double) -> None:
    llm, server = double
    llm.reset("error")
    assistant = assistant_with(runtime, server, llm_breaker_failures=2, llm_breaker_cooldown_s=3600)
    first, second = (assistant.answer(ChatRequest(message=QUESTION)) for _ in range(2))
    assert first.writer == second.writer == "deterministic" and len(llm.calls) == 2

    skipped = assistant.answer(ChatRequest(message=QUESTION))
    assert skipped.writer == "deterministic" and "LLMCircuitOpenError" in (skipped.llm_fallback_reason or "")
    assert len(llm.calls) == 2  # not asked while the breaker is open
    assert skipped.answer == first.answer


def test_the_breaker_half_opens_after_the_cool_down_for_one_trial() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failures=2, cooldown_s=30, clock=lambda: now[0])
    assert breaker.allow()
    breaker.record(False)
    assert breaker.state == "closed" and breaker.allow()
    breaker.record(False)
    assert breaker.state == "open" and not breaker.allow()
    now[0] = 29.9
    assert not breaker.allow()
    now[0] = 30.0
    assert breaker.allow()  # the one trial
    assert not breaker.allow()  # others wait while it runs
    breaker.record(False)  # the trial failed: open again for a full cool-down
    assert not breaker.allow()
    now[0] = 60.0
    assert breaker.allow()
    breaker.record(True)
    assert breaker.state == "closed" and breaker.allow() and breaker.allow()
    # A success resets the count: failures must be consecutive.
    breaker.record(False)
    breaker.record(True)
    breaker.record(False)
    assert breaker.state == "closed"
