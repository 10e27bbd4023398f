"""Hostile messages (evaluators/hostile_inputs.py), timed: alone in process, and served under load (issue 28).

1. In process: CPU time (`time.thread_time`) of each generated message's turn, memo off, after a warm-up. Target: none
   over 0.5 s on an idle 2-core machine.
2. Served: `advisor serve --workers 2` (memo off), 20 clients posting the hostile messages as fast as they are
   answered, a 21st asking ordinary questions one after another, and a probe client on /healthz and /readyz every
   50 ms. Targets: 0 errors, the 21st client's latency as without the load, probes under 100 ms. For comparison the
   same 21st client alone, and beside 20 clients asking ordinary questions as fast as they are answered (a crowd of
   cheap turns: the 21st waits its turn among them, as it does among hostile messages that are cheap once bounded).

    python -m bench hostile                       # both
    BENCH_HOSTILE_SECONDS=10 python -m bench hostile
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from bench.bench_load import _pct
from bench.serving import serve, stop, wait_ready

SECONDS = float(os.environ.get("BENCH_HOSTILE_SECONDS", "30"))
HOSTILE_CLIENTS = 20
WORKERS = 2
ORDINARY = ("训练到一半断电了怎么办？", "Qwen-14B 全参微调，50万条样本，24小时内完成，需要什么配置？", "有文章说64台8卡H100服务器10天就能完成LLaMA-3 70B预训练，靠谱吗？",
            "新到了两台8卡H100，上线前要做哪些检查？", "年利用率80%，自建还是上云？", "What does ZeRO-3 shard, and when is FSDP slower?")


def _in_process(data_dir: Path) -> list[tuple[str, str, str]]:
    from evaluators.hostile_inputs import generate
    from service.config import Settings
    from service.contract import ChatRequest
    from service.runtime import Runtime

    runtime = Runtime(Settings(data_dir=data_dir, environment="test", answer_memo_size=0))
    runtime.open_index()
    advisor = runtime.advisor
    for question in ORDINARY:
        advisor.answer(ChatRequest(message=question))
    seconds: list[tuple[float, str]] = []
    for item in generate():
        started = time.thread_time()
        advisor.answer(ChatRequest(message=item.message))
        seconds.append((time.thread_time() - started, item.name))
    runtime.close()
    values = [s for s, _ in seconds]
    worst, name = max(seconds)
    return [
        (f"in process, {len(values)} hostile messages: CPU p50 / p99", f"{_pct(values, 0.5) * 1000:.0f} / {_pct(values, 0.99) * 1000:.0f} ms", ""),
        ("  slowest", f"{worst * 1000:.0f} ms", "≤ 500 ms on an idle 2-core machine"),
        ("  which", name[:40], ""),
        ("  over 0.5 s", f"{sum(v > 0.5 for v in values)}", "0"),
    ]


async def _served(url: str, seconds: float, crowd: list[str]) -> dict[str, object]:
    import aiohttp

    stop_at = time.monotonic() + seconds
    ordinary_ms: list[float] = []
    probe_ms: list[float] = []
    crowd_turns, errors = 0, 0
    async with aiohttp.ClientSession(base_url=url, timeout=aiohttp.ClientTimeout(total=60),
                                     connector=aiohttp.TCPConnector(limit=HOSTILE_CLIENTS + 4)) as client:

        async def post(message: str) -> bool:
            nonlocal errors
            try:
                async with client.post("/v1/chat", json={"message": message}) as response:
                    await response.read()
                    if response.status == 200:
                        return True
            except (aiohttp.ClientError, TimeoutError):
                pass
            errors += 1
            return False

        async def attacker(n: int) -> None:
            nonlocal crowd_turns
            i = n * 7
            while time.monotonic() < stop_at:
                answered = await post(crowd[i % len(crowd)])  # not `+= await`: that reads the count before waiting
                crowd_turns += answered
                i += 1

        async def ordinary() -> None:
            i = 0
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                if await post(f"{ORDINARY[i % len(ORDINARY)]} ({i})"):  # new text each time: computed, as the attackers' are
                    ordinary_ms.append((time.perf_counter() - started) * 1000)
                i += 1

        async def prober() -> None:
            while time.monotonic() < stop_at:
                for path in ("/healthz", "/readyz"):
                    started = time.perf_counter()
                    async with client.get(path) as response:
                        await response.read()
                    probe_ms.append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(0.05)

        began = time.perf_counter()
        await asyncio.gather(ordinary(), prober(), *(attacker(n) for n in range(HOSTILE_CLIENTS if crowd else 0)))
        elapsed = time.perf_counter() - began
    return {"rate": crowd_turns / elapsed, "errors": errors, "ordinary": ordinary_ms, "probes": probe_ms}


def run() -> list[tuple[str, str, str]]:
    from evaluators.hostile_inputs import generate
    from service.catalog import default_catalog
    from service.config import Settings
    from service.retrieval import ingest

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        settings = Settings(data_dir=data_dir, environment="test")
        ingest(settings, default_catalog(settings.knowledge_dir))
        rows += _in_process(data_dir)
        server, url = serve(data_dir, WORKERS, ADVISOR_ANSWER_MEMO_SIZE="0")
        try:
            wait_ready(url, server, WORKERS)
            hostile = [item.message for item in generate()]
            asyncio.run(_served(url, 5, hostile))  # warm-up: every worker has loaded, compiled and embedded
            quiet = asyncio.run(_served(url, min(SECONDS, 10), []))
            crowded = asyncio.run(_served(url, min(SECONDS, 10), list(ORDINARY)))
            busy = asyncio.run(_served(url, SECONDS, hostile))
        finally:
            stop(server)
    for name, result in (("alone", quiet), (f"beside {HOSTILE_CLIENTS} ordinary clients", crowded),
                         (f"beside {HOSTILE_CLIENTS} hostile clients", busy)):
        ordinary, probes = result["ordinary"], result["probes"]
        rows.append((f"served, {WORKERS} workers: ordinary questions {name}: p50 / p95",
                     f"{_pct(ordinary, 0.5):.0f} / {_pct(ordinary, 0.95):.0f} ms", "as alone" if result is busy else ""))
        rows.append(("  /healthz + /readyz p50 / p95 / max", f"{_pct(probes, 0.5):.1f} / {_pct(probes, 0.95):.1f} / {max(probes):.1f} ms", "< 100 ms"))
        rows.append(("  probes over 100 ms", f"{sum(p > 100 for p in probes)} of {len(probes)}", "0"))
        rows.append(("  errors", f"{result['errors']}", "0"))
        if result is not quiet:
            rows.append((f"  turns of the {HOSTILE_CLIENTS} others answered", f"{result['rate']:.1f}/s", ""))
    return rows
