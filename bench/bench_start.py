"""Start to ready: a real `advisor serve` over an existing index, from the process's start to the first 200 of /readyz (issue 26).

The index is built once, up front (or BENCH_START_DATA_DIR names a data dir that has one); then each run starts
`advisor serve --workers N` as a new process, asks /readyz every 20 ms and stops the server at its first 200. /readyz
says ready only when a chat turn can be answered (the index, the answer pipeline and its router, jieba's dictionary:
service/runtime.py), so this is the time until the first question can be asked. Runs from this checkout's source:
without bytecode (a fresh checkout with PYTHONDONTWRITEBYTECODE=1) every start compiles the service's modules first,
about a second more; `make bench` compiles them first, as an installed package has them.

Target (issue 26, 2 cores): <= 2 s with one worker.

    python -m bench start
    BENCH_START_RUNS=10 python -m bench start
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.serving import serve, stop

RUNS = int(os.environ.get("BENCH_START_RUNS", "5"))
WORKERS = (1, 2)


def start_to_ready(data_dir: Path, workers: int, timeout: float = 120) -> float:
    """Seconds from starting `advisor serve` to its first /readyz 200 (any worker's)."""
    import httpx

    started = time.monotonic()
    server, url = serve(data_dir, workers)
    try:
        with httpx.Client(timeout=2) as client:
            while time.monotonic() - started < timeout and server.poll() is None:
                try:
                    if client.get(f"{url}/readyz", headers={"connection": "close"}).status_code == 200:
                        return time.monotonic() - started
                except httpx.TransportError:
                    pass
                time.sleep(0.02)
    finally:
        stop(server)
    raise RuntimeError(f"advisor serve --workers {workers} did not become ready in {timeout:g} s")


def run() -> list[tuple[str, str, str]]:
    from service.catalog import default_catalog
    from service.config import Settings
    from service.retrieval import ingest

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        given = os.environ.get("BENCH_START_DATA_DIR")
        data_dir = Path(given) if given else Path(tmp) / "data"
        if not given:
            settings = Settings(data_dir=data_dir, environment="test")
            ingest(settings, default_catalog(settings.knowledge_dir))
        start_to_ready(data_dir, 1)  # the first start after an ingest also stores the fixed texts' table: not measured
        load = os.getloadavg()
        for workers in WORKERS:
            times = [start_to_ready(data_dir, workers) for _ in range(RUNS)]
            print(f"  {workers} worker(s): " + " ".join(f"{t:.2f}" for t in times) + " s", flush=True)
            name = f"start to ready, {workers} worker{'s' if workers > 1 else ''} (median of {RUNS})"
            rows.append((name, f"{statistics.median(times):.2f} s", "target <= 2 s" if workers == 1 else ""))
        rows.append(("  load average at the start", " / ".join(f"{x:.2f}" for x in load), ""))
    return rows
