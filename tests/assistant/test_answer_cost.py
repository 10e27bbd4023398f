"""The shape of a turn's cost, counted rather than timed: fixed text is never encoded, no pattern is compiled, while answering.

Knowledge sentences, headings, the handlers' search queries and the router's exemplars are embedded with the index
(service/assistant/fixed_texts.py); a turn runs the encoder only for the user's words, at most twice: the message,
and one more text built from it (a search query that is its first 400 characters, a follow-up read with the question
it follows, a diagnosis's query with the start of the log, or all parts of a question asked in several, in one run).
The questions are new to the process and varied: people's questions, templated ones, pasted logs and commands, two
languages, and follow-ups (evaluators/bench_questions.py).

Every regular expression is compiled when its module or data file is loaded. A pattern written inline
(`re.search(r"...", text)`) is looked up in re's cache on every call, compiled at the first question that reaches
it, and recompiled whenever more than re's 512 cached patterns are in use; one built from the question is compiled
every time.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from evaluators.bench_questions import BLIND_DIR, question_sets
from service.assistant.answer import ChatRequest
from service.retrieval.embeddings import shared_use_multilingual

MAX_RUNS = 2
SHARED_CHARS = 8  # an encoded text holds at least this many consecutive characters of what the user wrote


class CountingSession:
    """The encoder's real ONNX session, recording the text of every run."""

    def __init__(self, inner) -> None:
        self.inner, self.texts = inner, []

    def run(self, names, feeds, *args, **kwargs):
        self.texts.extend(feeds["inputs"])
        self.runs = getattr(self, "runs", 0) + 1
        return self.inner.run(names, feeds, *args, **kwargs)


@pytest.fixture(scope="module")
def assistant(module_data_dir: Path):
    from service.config import Settings
    from service.runtime import Runtime

    runtime = Runtime(Settings(data_dir=module_data_dir, environment="test", answer_memo_size=0))
    runtime.open_index()
    yield runtime.assistant
    runtime.close()


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> CountingSession:
    encoder = shared_use_multilingual()
    counting = CountingSession(encoder._session)
    monkeypatch.setattr(encoder, "_session", counting)
    encoder._vector_of.cache_clear()  # a question another test asked is not free here
    return counting


def conversations() -> list[list[str]]:
    """80 first turns and 20 two-turn conversations from the blind sets."""
    firsts = [[q] for q in question_sets((80,), seed=2026)[0]]
    pairs = []
    for path in sorted(BLIND_DIR.glob("blind_set_*.jsonl"))[-6:]:
        for line in path.read_text(encoding="utf-8").splitlines():
            turns = json.loads(line)["turns"]
            if len(turns) == 2:
                pairs.append([t["user"] for t in turns])
    return firsts + pairs[::3][:20]


def shares_words(text: str, said: str) -> bool:
    squeezed = " ".join(said.split())
    text = " ".join(text.split())
    return any(text[i : i + SHARED_CHARS] in squeezed for i in range(0, max(1, len(text) - SHARED_CHARS + 1)))


def test_a_turn_runs_the_encoder_at_most_twice_and_only_on_the_users_words(assistant, session: CountingSession) -> None:
    over, fixed = [], []
    for turns in conversations():
        conversation_id = None
        for message in turns:
            session.runs, session.texts = 0, []
            answer = assistant.answer(ChatRequest(message=message, conversation_id=conversation_id))
            conversation_id = answer.conversation_id
            if session.runs > MAX_RUNS:
                over.append((session.runs, answer.intent, message[:80], [t[:60] for t in session.texts]))
            fixed += [(answer.intent, t[:80]) for t in session.texts if not shares_words(t, " ".join(turns))]
    assert not over, f"{len(over)} turns ran the encoder more than {MAX_RUNS} times: {over[:5]}"
    assert not fixed, f"fixed texts were encoded while answering (store them with the index: fixed_texts.py): {fixed[:5]}"


def test_no_pattern_is_compiled_while_answering(assistant, monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluators.assistant_eval import load

    compile_ = re._compile
    compiled: dict[str, str] = {}

    def recording(pattern, flags):
        if isinstance(pattern, (str, bytes)):  # a compiled Pattern passed to re.split() and the like is returned as it is
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename == re.__file__:
                frame = frame.f_back
            compiled.setdefault(f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame else "?", str(pattern)[:80])
        return compile_(pattern, flags)

    monkeypatch.setattr(re, "_compile", recording)
    tuned = [[turn["message"] for turn in conversation["turns"]] for conversation in load()]
    for turns in [*conversations(), *tuned]:
        conversation_id = None
        for message in turns:
            conversation_id = assistant.answer(ChatRequest(message=message, conversation_id=conversation_id)).conversation_id
    assert not compiled, f"patterns compiled while answering (compile them at import): {compiled}"
