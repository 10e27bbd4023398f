"""A server's start over a stored index reads what the index stored: no encoder run, no Chroma client, and `ready`
only once the answer pipeline and its router are built (issue 26). Counted, not timed."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.assistant.answer import ChatRequest
from service.config import Settings
from service.retrieval.embeddings import shared_use_multilingual
from service.runtime import Runtime


class CountingSession:
    def __init__(self, inner) -> None:
        self.inner, self.runs = inner, 0

    def run(self, names, feeds, *args, **kwargs):
        self.runs += 1
        return self.inner.run(names, feeds, *args, **kwargs)


def test_a_start_over_a_stored_index_runs_no_encoder_and_needs_no_chroma(data_dir_with_index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = shared_use_multilingual()
    counting = CountingSession(encoder._session)
    monkeypatch.setattr(encoder, "_session", counting)
    runtime = Runtime(Settings(data_dir=data_dir_with_index, environment="test"))
    try:
        assert not runtime.ready
        runtime.open_index_in_background().join(timeout=120)
        assert runtime.ready
        assert counting.runs == 0, "nothing was embedded to start"
        index = runtime.index
        assert index._store._client is None, "the collection came from its stored copy"
        assert index._fixed.pending is None and len(index._fixed.table), "the fixed texts' table was read, not built"
        router = runtime.assistant.understander._router
        assert router is not None, "the router was built at start, not in the first question"
        runtime.advisor.answer(ChatRequest(message="训练到一半断电了怎么办？"))
        assert counting.runs <= 2, "the first answer encodes only the user's words"
    finally:
        runtime.close()
