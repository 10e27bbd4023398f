"""Load: concurrent clients against `advisor serve` with 1 and 2 workers, every question new to the worker (issues 11, 26).

Each run is a real `advisor serve --workers N` process tree over one prepared data dir (indexed once, up front).
Clients are aiohttp tasks posting first turns as fast as they get answers. The questions are distinct
(evaluators/bench_questions.py: people's questions from the blind sets, templated ones with random numbers, pasted
logs and commands, both languages), more of them than a run sends, and the workers warm up on a different set, so
no turn is answered from a cache of an earlier one. The headline runs have the answer memo off; a last run with the
memo on repeats a small set of questions, as a widget's suggested questions would, and says so. During each run a
probe asks /healthz twice a second; the workers' resident memory is read at the end.

Targets (issue 26, 2 cores, idle machine): >= 150 turns/s on 2 workers at 50 clients, p95 <= 500 ms, 0 errors,
/healthz under 100 ms throughout, RSS <= 400 MB per worker.

    python -m bench load                          # every run
    BENCH_LOAD_SECONDS=10 python -m bench load    # shorter runs
"""

from __future__ import annotations

import asyncio
import itertools
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.serving import serve, stop, wait_ready, worker_rss_mb

SECONDS = float(os.environ.get("BENCH_LOAD_SECONDS", "30"))
# (workers, clients, memo): the memo-off runs are the headline.
RUNS = ((2, 50, False), (2, 200, False), (1, 50, False), (2, 50, True))
WARM_QUESTIONS = 200
MEMO_QUESTIONS = 40  # the repeated set of the memo run: a widget's suggested questions, a team's recurring ones
MAX_RATE = 400  # turns/s no run reaches: sizes the distinct question pool


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _load(url: str, clients: int, seconds: float, messages) -> dict:
    # aiohttp, not httpx, for the clients: on this 2-core machine the load generator shares the cores with the
    # server, and httpx's async client spent about 7.5 ms of CPU per request against aiohttp's 0.6 ms (measured
    # on /healthz), which the server's workers would otherwise lose.
    import aiohttp

    latencies: list[float] = []
    health: list[float] = []
    errors = 0
    kinds: Counter[str] = Counter()  # what the errors were: HTTP status or exception type
    stop_at = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=clients + 1)
    async with aiohttp.ClientSession(base_url=url, connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as client:

        async def one_client() -> None:
            nonlocal errors
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                try:
                    async with client.post("/v1/chat", json={"message": next(messages)}) as response:
                        await response.read()
                        ok, kind = response.status == 200, str(response.status)
                except (aiohttp.ClientError, TimeoutError) as exc:
                    ok, kind = False, type(exc).__name__
                if ok:
                    latencies.append(time.perf_counter() - started)
                else:
                    errors += 1
                    kinds[kind] += 1

        async def probe() -> None:
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                try:
                    async with client.get("/healthz") as response:
                        await response.read()
                    health.append(time.perf_counter() - started)
                except (aiohttp.ClientError, TimeoutError):
                    health.append(float("inf"))
                await asyncio.sleep(0.5)

        began = time.perf_counter()
        await asyncio.gather(probe(), *(one_client() for _ in range(clients)))
        elapsed = time.perf_counter() - began
    return {
        "rate": len(latencies) / elapsed,
        "p50": _pct(latencies, 0.5),
        "p95": _pct(latencies, 0.95),
        "p99": _pct(latencies, 0.99),
        "errors": errors,
        "turns": len(latencies),
        "kinds": dict(kinds),
        "health_max": max(health, default=float("nan")),
    }


def run() -> list[tuple[str, str, str]]:
    from evaluators.bench_questions import question_sets
    from service.catalog import default_catalog
    from service.config import Settings
    from service.retrieval import ingest

    runs = [r for r in RUNS if r[0] in _workers()]
    # Each run is a new server, so each may ask the same distinct questions; within a run none is asked twice.
    warm, distinct = question_sets((WARM_QUESTIONS, int(MAX_RATE * SECONDS)))
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        settings = Settings(data_dir=data_dir, environment="test")
        ingest(settings, default_catalog(settings.knowledge_dir))
        for workers, clients, memo in runs:
            server, url = serve(data_dir, workers, **({} if memo else {"ADVISOR_ANSWER_MEMO_SIZE": "0"}))
            try:
                wait_ready(url, server, workers)
                # Warm-up on other questions: the steady state of a worker (jieba's dictionary, first-use paths), not its caches.
                asyncio.run(_load(url, 8, 3 + 2 * workers, itertools.cycle(warm)))
                messages = itertools.cycle(warm[:MEMO_QUESTIONS]) if memo else _once(distinct)
                r = asyncio.run(_load(url, clients, SECONDS, messages))
                rss = worker_rss_mb(server, workers)
            finally:
                stop(server)
            what = f"answer memo on, {MEMO_QUESTIONS} questions repeated" if memo else "memo off, distinct questions"
            name = f"{workers} worker{'s' if workers > 1 else ''}, {clients} clients, {SECONDS:g} s, {what}"
            headline = workers == 2 and clients == 50 and not memo
            rows.append((name, f"{r['rate']:.1f} turns/s", "target >= 150/s" if headline else ""))
            rows.append(("  p50 / p95 / p99", f"{r['p50'] * 1000:.0f} / {r['p95'] * 1000:.0f} / {r['p99'] * 1000:.0f} ms", "target p95 <= 500 ms" if headline else ""))
            rows.append(("  turns / errors", f"{r['turns']:.0f} / {r['errors']:.0f}", "target 0 errors" if headline else ""))
            rows.append(("  /healthz slowest during the run", f"{r['health_max'] * 1000:.0f} ms", "target < 100 ms"))
            rows.append(("  RSS per worker", " / ".join(f"{mb:.0f}" for mb in rss) + " MB", "target <= 400 MB"))
            print(
                f"  {name}: {r['rate']:.1f}/s p50 {r['p50'] * 1000:.0f} ms p95 {r['p95'] * 1000:.0f} ms p99 {r['p99'] * 1000:.0f} ms "
                f"errors {r['errors']} {r['kinds'] or ''} healthz max {r['health_max'] * 1000:.0f} ms rss {rss}",
                flush=True,
            )
    return rows


def _once(questions: list[str]):
    """Each question once; should a run outpace the pool, the bench says so instead of repeating silently."""
    yield from questions
    raise RuntimeError(f"bench_load: more than {len(questions)} turns in {SECONDS:g} s; raise MAX_RATE")


def _workers() -> set[int]:
    """BENCH_LOAD_WORKERS=2 runs only the 2-worker rows."""
    raw = os.environ.get("BENCH_LOAD_WORKERS", "")
    return {int(w) for w in raw.split(",") if w.strip()} or {1, 2}
