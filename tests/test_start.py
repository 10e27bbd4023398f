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


def test_a_servers_start_imports_neither_chroma_nor_torch_nor_langchain(data_dir_with_index: Path) -> None:
    """The app module and a whole start over a stored index (the index, the answer pipeline, its router) leave the heavy
    libraries unimported: Chroma (the stored snapshot suffices), torch and transformers (another backend), LangChain
    (registered lazily, retrieval/embeddings.py), and the scientific stack nothing at start uses."""
    import json
    import os
    import subprocess
    import sys

    heavy = ["chromadb", "torch", "transformers", "sentence_transformers", "langchain_core", "sklearn", "scipy", "pandas"]
    script = (
        "import json, sys\n"
        "import service.api.app\n"
        f"heavy = {heavy!r}\n"
        "after_import = [m for m in heavy if m in sys.modules]\n"
        "from service.config import Settings\n"
        "from service.runtime import Runtime\n"
        f"runtime = Runtime(Settings(data_dir={str(data_dir_with_index)!r}, environment='test'))\n"
        "runtime.open_index_in_background().join(timeout=120)\n"
        "assert runtime.ready\n"
        "print(json.dumps([after_import, [m for m in heavy if m in sys.modules]]))\n"
        "runtime.close()\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    done = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    after_import, after_start = json.loads(done.stdout.strip().splitlines()[-1])
    assert after_import == [], f"importing service.api.app imported {after_import}"
    assert after_start == [], f"a start over a stored index imported {after_start}"


def test_a_servers_start_pauses_the_collector_only_until_ready(data_dir_with_index: Path) -> None:
    import gc

    from service.runtime import pause_gc_for_start

    gc.collect()
    runtime = Runtime(Settings(data_dir=data_dir_with_index, environment="test"))
    try:
        pause_gc_for_start()
        assert not gc.isenabled()
        runtime.open_index_in_background().join(timeout=120)
        assert runtime.ready and gc.isenabled(), "collecting again once the start is done"
    finally:
        gc.enable()
        gc.unfreeze()  # the start froze what it built; a test process keeps collecting it
        runtime.close()
