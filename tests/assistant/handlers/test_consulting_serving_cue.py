"""The serving cue is the word "serve", not any word containing it ("servers", "observe")."""

from __future__ import annotations

import pytest

from service.assistant import consult
from tests.assistant.asking import ask


@pytest.mark.parametrize(
    "text, serving",
    [
        ("we have 3 servers with 8x A100", False),
        ("observe the loss curve", False),
        ("serve Llama to 100 users", True),
        ("the model is served by vLLM", True),
        ("it serves 50 users", True),
    ],
)
def test_serve_is_a_whole_word(text, serving) -> None:
    assert consult.cue("serving", text) is serving


def test_a_training_question_that_mentions_servers_gets_no_serving_advice(advisor) -> None:
    answer = ask(advisor, "we have 3 servers with 8x A100 each, how long to train 7B on 2.5T tokens")
    assert any(c.tool == "training-time" for c in answer.tool_calls)
    assert not any(c.tool == "weights-size" for c in answer.tool_calls)
    assert "continuous batching" not in answer.answer
