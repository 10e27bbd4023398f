"""An LLM server that trickles bytes (issue 28): each call has a total deadline, after which the turn keeps the
deterministic answer and the writer's slot is free again; the breaker that opened closes after its cool-down through
one half-open trial.

A real uvicorn server on 127.0.0.1 (the shipped double) sends the reply one byte every 0.2 s: every read succeeds, so a
read timeout alone never fires and, before the deadline, the call held its slot until the last byte (about a minute).
"""

from __future__ import annotations

import time

import pytest

from service.assistant.llm_double import LoopbackServer, ScriptedLLM, create_app
from service.assistant.writer import LLMCircuitOpenError, LLMTimeoutError, build_writer
from service.config import Settings

DRAFT = "ZeRO-3 shards parameters, gradients and optimizer states across data-parallel ranks [1].\n"
TIMEOUT_S, COOL_DOWN_S = 1.0, 1.5


@pytest.fixture
def trickling():
    llm = ScriptedLLM("trickle", trickle_s=0.2)
    with LoopbackServer(create_app(llm)) as server:
        yield llm, server


def writer_for(server, tmp_path):
    return build_writer(
        Settings(
            data_dir=tmp_path,
            environment="test",
            llm_provider="openai",
            llm_base_url=f"{server.url}/v1",
            llm_model="double",
            llm_timeout_s=TIMEOUT_S,
            llm_max_concurrency=1,
            llm_breaker_failures=1,
            llm_breaker_cooldown_s=COOL_DOWN_S,
        )
    )


def until(condition, within_s: float) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_trickling_llm_is_cut_at_the_deadline_and_the_breaker_closes_after_its_cool_down(trickling, tmp_path) -> None:
    llm, server = trickling
    writer = writer_for(server, tmp_path)
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError):
        writer.rewrite(DRAFT, language="en")
    assert time.monotonic() - started < TIMEOUT_S + 1.0
    # The call itself ended at its deadline (the connection was dropped), not only the turn's wait: the slot is free.
    assert until(lambda: llm.abandoned == 1, TIMEOUT_S + 1.0), "the client hung up on the trickle at its deadline"
    assert until(lambda: writer._slots.acquire(blocking=False) and (writer._slots.release() or True), 1.0), "the slot was given back"

    assert writer.breaker.state == "open"
    with pytest.raises(LLMCircuitOpenError):
        writer.rewrite(DRAFT, language="en")  # skipped at once during the cool-down
    assert len(llm.calls) == 1

    llm.reset("echo")  # the server recovers
    time.sleep(COOL_DOWN_S)
    assert writer.breaker.state == "half-open"
    assert writer.rewrite(DRAFT, language="en") == DRAFT  # the one trial goes through, with a free slot
    assert writer.breaker.state == "closed" and len(llm.calls) == 1


def test_a_trickled_reply_that_finishes_within_the_deadline_is_used(tmp_path) -> None:
    llm = ScriptedLLM("trickle", trickle_s=0.0)  # the whole reply at once: the deadline cuts only slow calls
    with LoopbackServer(create_app(llm)) as server:
        assert writer_for(server, tmp_path).rewrite(DRAFT, language="en") == DRAFT
    assert llm.replies == 1 and llm.abandoned == 0
