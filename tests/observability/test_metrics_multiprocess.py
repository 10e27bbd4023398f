"""/metrics across workers: `advisor serve --workers 2` puts prometheus-client in multiprocess mode, so every scrape
counts the requests of every worker, whichever worker answers it; stale values of an earlier run are cleared."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from service.observability.metrics import prepare_multiprocess_dir
from tests.served import wait_until_ready

ADVISOR = str(Path(sys.executable).parent / "advisor")
CHAT_LABELS = {"method": "POST", "route": "/v1/chat", "status": "200"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADVISOR_", "PROMETHEUS_MULTIPROC"))}
    env.update({"HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "ORT_DISABLE_TELEMETRY": "1"}, **extra)
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _chat_total(families, labels: dict[str, str] = CHAT_LABELS) -> float:
    return sum(sample.value for family in families if family.name == "advisor_http_requests"
               for sample in family.samples
               if sample.name == "advisor_http_requests_total" and all(sample.labels.get(k) == v for k, v in labels.items()))


def _per_worker(metrics_dir: Path, labels: dict[str, str]) -> dict[str, float]:
    """What each worker process has counted, read from its own file (counter_<pid>.db)."""
    return {path.stem.split("_")[-1]: _chat_total(MultiProcessCollector.merge([str(path)]), labels)
            for path in metrics_dir.glob("counter_*.db")}


def _stale_counter(metrics_dir: Path, value: float) -> None:
    """A /v1/chat count left by a dead process of an earlier run, written as prometheus-client writes it."""
    stale = MmapedDict(str(metrics_dir / "counter_999999.db"))
    key = mmap_key("advisor_http_requests", "advisor_http_requests_total", ["method", "route", "status", "channel"],
                   ["POST", "/v1/chat", "200", "rest"], "HTTP requests answered")
    stale.write_value(key, value, 0.0)
    stale.close()


def test_preparing_the_directory_removes_values_of_an_earlier_run(tmp_path) -> None:
    _stale_counter(tmp_path, 1000.0)
    (tmp_path / "notes.txt").write_text("not ours")
    assert prepare_multiprocess_dir(tmp_path) == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert prepare_multiprocess_dir(tmp_path / "new").is_dir()


def test_render_sums_counters_written_by_other_processes(tmp_path) -> None:
    # Each child is a process of its own (as a uvicorn worker is), counting into the shared directory; a third renders.
    count = textwrap.dedent("""
        import sys
        from service.observability import metrics
        for _ in range(int(sys.argv[1])):
            metrics.observe_request("POST", "/v1/chat", 200, "rest", 0.01)
        metrics.count_rate_limit_refusal("ip")
    """)
    env = _env(PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    for hits in (3, 4):
        subprocess.run([sys.executable, "-c", count, str(hits)], env=env, check=True, timeout=120)
    render = "from service.observability import metrics; import sys; sys.stdout.write(metrics.render()[0].decode())"
    text = subprocess.run([sys.executable, "-c", render], env=env, check=True, timeout=120, capture_output=True, text=True).stdout
    families = list(text_string_to_metric_families(text))
    assert _chat_total(families) == 7
    refusals = [s.value for f in families if f.name == "advisor_rate_limit_refusals" for s in f.samples if s.name.endswith("_total")]
    assert refusals == [2]
    latency = [s.value for f in families if f.name == "advisor_http_request_duration_seconds" for s in f.samples if s.name.endswith("_count")]
    assert latency == [7]


@pytest.mark.slow
def test_every_scrape_counts_the_requests_of_every_worker(tmp_path, indexed_data_dir, knowledge_copy) -> None:
    data_dir, tmp = tmp_path / "data", tmp_path / "tmp"
    shutil.copytree(indexed_data_dir, data_dir)
    tmp.mkdir()
    port, log_path = _free_port(), tmp_path / "server.log"
    # No PROMETHEUS_MULTIPROC_DIR: `advisor serve` makes its own (under TMPDIR, so this test can look inside it).
    env = _env(ADVISOR_DATA_DIR=str(data_dir), ADVISOR_KNOWLEDGE_DIR=str(knowledge_copy), ADVISOR_ENVIRONMENT="test", TMPDIR=str(tmp))
    with log_path.open("w") as log:
        server = subprocess.Popen([ADVISOR, "serve", "--workers", "2", "--port", str(port)], env=env, cwd=tmp_path,
                                  stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(server, base, log_path)
        (metrics_dir,) = tmp.glob("advisor-metrics-*")

        # Chats on fresh connections until both workers have answered some (at least 20 in all).
        sent = 0
        while sent < 20 or len([n for n in _per_worker(metrics_dir, CHAT_LABELS).values() if n]) < 2:
            assert sent < 200, f"one worker answered every chat: {_per_worker(metrics_dir, CHAT_LABELS)}"
            reply = httpx.post(f"{base}/v1/chat", json={"message": "How do I check NCCL bandwidth?"}, headers={"Connection": "close"},
                               timeout=120)
            assert reply.status_code == 200, reply.text
            sent += 1

        # Scrapes on fresh connections until both workers have answered one: each sees every worker's chats.
        scrapes = 0
        scrape_labels = {"method": "GET", "route": "/metrics", "status": "200"}
        while scrapes < 4 or len([n for n in _per_worker(metrics_dir, scrape_labels).values() if n]) < 2:
            assert scrapes < 100, "one worker answered every scrape"
            scraped = httpx.get(f"{base}/metrics", headers={"Connection": "close"}, timeout=30)
            assert scraped.status_code == 200
            assert _chat_total(text_string_to_metric_families(scraped.text)) == sent
            scrapes += 1
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)
    assert not list(tmp.glob("advisor-metrics-*")), "the metrics directory of the run is removed at exit"

