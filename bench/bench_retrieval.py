"""Knowledge index speed: cold ingest, no-change re-ingest, warm query latency, service start to ready.

Everything runs against the packaged knowledge base in a temporary data directory.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from evaluators.retrieval_eval import load_questions
from service.catalog import default_catalog
from service.config import Settings
from service.retrieval import ingest, open_index

ADVISOR = shutil.which("advisor", path=str(Path(sys.executable).parent)) or "advisor"


def run() -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        catalog = default_catalog(settings.knowledge_dir)
        cold = ingest(settings, catalog)
        env = {**os.environ, "ADVISOR_DATA_DIR": tmp}
        rows = [
            ("cold ingest (empty dir)", f"{cold.seconds:.1f} s", f"target <= 60 s; {cold.documents} documents, {cold.chunks} chunks"),
            ("re-ingest, nothing changed (in process)", f"{ingest(settings, catalog).seconds:.2f} s", "target <= 3 s"),
            ("re-ingest, nothing changed (advisor ingest)", f"{_timed([ADVISOR, 'ingest'], env):.2f} s", "target <= 3 s, includes Python start-up"),
        ]
        p50, p95 = _query_latency(settings, catalog)
        rows += [
            ("hybrid query p50 (warm, k=5)", f"{p50:.1f} ms", ""),
            ("hybrid query p95 (warm, k=5)", f"{p95:.1f} ms", "target <= 20 ms"),
            ("service start to ready (existing index)", f"{_start_to_ready(env):.1f} s", "target <= 10 s"),
        ]
        return rows


def _timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
    return time.perf_counter() - started


def _query_latency(settings: Settings, catalog) -> tuple[float, float]:
    """Every labelled question, as users send them (cross questions with their language filter)."""
    index = open_index(settings, catalog)
    questions = load_questions()
    for q in questions[:20]:  # warm caches, jieba and the ONNX session
        index.search(q.query)
    timings = []
    for q in questions:
        language = q.target_language if q.group == "cross" else None
        started = time.perf_counter()
        index.search(q.query, k=5, language=language)
        timings.append((time.perf_counter() - started) * 1000)
    return float(np.percentile(timings, 50)), float(np.percentile(timings, 95))


def _start_to_ready(env: dict[str, str]) -> float:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.perf_counter()
    server = subprocess.Popen(
        [ADVISOR, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while time.perf_counter() - started < 60:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    return time.perf_counter() - started
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the service was not ready within 60 s")
    finally:
        server.terminate()
        server.wait(timeout=30)
