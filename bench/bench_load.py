"""Load: 50 and 200 concurrent clients for 30 s against `advisor serve` with 1 and 2 workers (issue 11).

Each worker is a real `advisor serve --workers N` process tree over one prepared data dir (indexed once,
up front). Clients are aiohttp tasks posting first turns of the evaluation conversations, as fast as
they get answers. Prints turns/s, p50/p95/p99 latency and errors. Goal on 2 cores: >= 150 turns/s, 0 errors
with 2 workers.

The messages repeat (188 first questions), so after the warm-up a worker answers them from its answer memo
(service/assistant/answer_memo.py), as it would a widget's suggested questions; every turn is still persisted
and recorded. A last run with the memo off (ADVISOR_ANSWER_MEMO_SIZE=0) shows the cost when every question
is new to the worker.

    python -m bench load                          # all four runs
    BENCH_LOAD_SECONDS=10 python -m bench load    # shorter runs
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

CLIENTS = (50, 200)
WORKERS = (1, 2)
SECONDS = float(os.environ.get("BENCH_LOAD_SECONDS", "30"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _serve(data_dir: Path, workers: int, memo: bool = True) -> tuple[subprocess.Popen, str]:
    advisor = shutil.which("advisor", path=str(Path(sys.executable).parent)) or "advisor"
    port = _free_port()
    env = {
        **os.environ,
        "ADVISOR_DATA_DIR": str(data_dir),
        "ADVISOR_ENVIRONMENT": "test",
        "ADVISOR_LOG_LEVEL": "warning",
        "ADVISOR_API_KEYS": "",
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        **({} if memo else {"ADVISOR_ANSWER_MEMO_SIZE": "0"}),
    }
    # Rate limits would measure the limiter, not the service: the load comes from one IP without a widget key.
    server = subprocess.Popen(
        [advisor, "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return server, f"http://127.0.0.1:{port}"


async def _wait_ready(url: str, server: subprocess.Popen, workers: int) -> None:
    import httpx

    async with httpx.AsyncClient(timeout=5) as client:
        deadline = time.monotonic() + 300
        ready = 0
        while time.monotonic() < deadline and server.poll() is None:
            try:
                # Each worker answers on its own: ask often enough that every one of them has opened its index.
                ready = ready + 1 if (await client.get(f"{url}/readyz")).status_code == 200 else 0
                if ready >= 4 * workers:
                    return
            except httpx.TransportError:
                ready = 0
            await asyncio.sleep(0.25)
    raise RuntimeError(f"advisor serve at {url} did not become ready")


async def _load(url: str, clients: int, seconds: float, messages: list[str]) -> dict[str, float]:
    # aiohttp, not httpx, for the clients: on this 2-core machine the load generator shares the cores with the
    # server, and httpx's async client spent about 7.5 ms of CPU per request against aiohttp's 0.6 ms (measured
    # on /healthz), which the server's workers would otherwise lose.
    import aiohttp

    latencies: list[float] = []
    errors = 0
    kinds: Counter[str] = Counter()  # what the errors were: HTTP status or exception type
    stop_at = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(base_url=url, connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as client:

        async def one_client(n: int) -> None:
            nonlocal errors
            i = n
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                try:
                    async with client.post("/v1/chat", json={"message": messages[i % len(messages)]}) as response:
                        await response.read()
                        ok = response.status == 200
                        kind = str(response.status)
                except (aiohttp.ClientError, TimeoutError) as exc:
                    ok, kind = False, type(exc).__name__
                if ok:
                    latencies.append(time.perf_counter() - started)
                else:
                    errors += 1
                    kinds[kind] += 1
                i += clients

        began = time.perf_counter()
        await asyncio.gather(*(one_client(n) for n in range(clients)))
        elapsed = time.perf_counter() - began
    return {
        "rate": len(latencies) / elapsed,
        "p50": _pct(latencies, 0.5),
        "p95": _pct(latencies, 0.95),
        "p99": _pct(latencies, 0.99),
        "errors": errors,
        "turns": len(latencies),
        "kinds": dict(kinds),
    }


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(30)


def run() -> list[tuple[str, str, str]]:
    from evaluators.assistant_eval import load
    from service.catalog import default_catalog
    from service.config import Settings
    from service.retrieval import ingest

    messages = [c["turns"][0]["message"] for c in load()]
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        settings = Settings(data_dir=data_dir, environment="test")
        ingest(settings, default_catalog(settings.knowledge_dir))
        for workers, memo in [*((w, True) for w in WORKERS), (max(WORKERS), False)]:
            server, url = _serve(data_dir, workers, memo)
            try:
                asyncio.run(_wait_ready(url, server, workers))
                # Warm-up to the steady state: each worker has embedded the knowledge sentences its answers score
                # (kept per text, service/retrieval/embeddings.py) and, since the messages repeat, these questions too.
                # A question never seen before costs one more encode (about 5 ms) than the turns measured below.
                asyncio.run(_load(url, 8, 2 + len(messages) * workers / 20, messages))
                for clients in CLIENTS if memo else CLIENTS[:1]:
                    r = asyncio.run(_load(url, clients, SECONDS, messages))
                    name = f"{workers} worker{'s' if workers > 1 else ''}, {clients} clients, {SECONDS:g} s{'' if memo else ', memo off'}"
                    target = ">= 150/s, 0 errors" if workers == 2 and memo else ""
                    rows.append((name, f"{r['rate']:.1f} turns/s", target))
                    rows.append(("  p50 / p95 / p99", f"{r['p50'] * 1000:.0f} / {r['p95'] * 1000:.0f} / {r['p99'] * 1000:.0f} ms", ""))
                    rows.append(("  turns / errors", f"{r['turns']:.0f} / {r['errors']:.0f}", ""))
                    print(
                        f"  {name}: {r['rate']:.1f}/s p50 {r['p50'] * 1000:.0f} ms p95 {r['p95'] * 1000:.0f} ms "
                        f"p99 {r['p99'] * 1000:.0f} ms errors {r['errors']} {r['kinds'] or ''}",
                        flush=True,
                    )
            finally:
                _stop(server)
    return rows
