"""Streaming over real HTTP (uvicorn on 127.0.0.1, no LLM): time to the first event (`meta`) and to `done`.

The first event leaves right after understanding, so it should arrive well before the whole answer. The timed
questions are new to the server (it warms up on others; evaluators/bench_questions.py).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

FIRST_TURNS = 40


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _one(client, message: str) -> tuple[float, float]:
    started = time.perf_counter()
    first = done = None
    with client.stream("POST", "/v1/chat/stream", json={"message": message}) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("event:"):
                now = (time.perf_counter() - started) * 1000
                first = first if first is not None else now
                if line.removeprefix("event:").strip() in ("done", "error"):
                    done = now
    assert first is not None and done is not None
    return first, done


def run() -> list[tuple[str, str, str]]:
    import httpx

    from evaluators.bench_questions import question_sets
    from service.api.app import create_app
    from service.assistant.llm_double import LoopbackServer
    from service.config import Settings
    from service.runtime import Runtime

    warm, messages = question_sets((10, FIRST_TURNS))
    with tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime(Settings(data_dir=Path(tmp), environment="test", api_keys=[], llm_provider="none"))
        runtime.open_index()
        with LoopbackServer(create_app(runtime=runtime)) as server, httpx.Client(base_url=server.url, timeout=120) as client:
            for message in warm:
                _one(client, message)  # warm up on other questions
            firsts, dones = zip(*(_one(client, m) for m in messages), strict=True)
    return [
        ("stream: first event p50", f"{statistics.median(firsts):.1f} ms", f"{len(firsts)} unseen first turns over HTTP"),
        ("stream: first event p95", f"{_pct(list(firsts), 0.95):.1f} ms", ""),
        ("stream: done p50", f"{statistics.median(dones):.1f} ms", "the whole answer"),
        ("stream: done p95", f"{_pct(list(dones), 0.95):.1f} ms", ""),
    ]
