"""A real `advisor serve` process tree for the benchmarks: start it, wait until it is ready, read its workers' memory, stop it.

The server runs this checkout's code (`python -m service.cli.main` from the repository root), not whatever the
`advisor` script on the PATH was installed from.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(data_dir: Path, workers: int, **env_extra: str) -> tuple[subprocess.Popen, str]:
    """`advisor serve --workers N` over data_dir, quiet, rate limits off (the load comes from one IP without a widget key)."""
    port = free_port()
    env = {
        **os.environ,
        "ADVISOR_DATA_DIR": str(data_dir),
        "ADVISOR_ENVIRONMENT": "test",
        "ADVISOR_LOG_LEVEL": "warning",
        "ADVISOR_API_KEYS": "",
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        **env_extra,
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "serve", "--port", str(port), "--workers", str(workers)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return server, f"http://127.0.0.1:{port}"


def wait_ready(url: str, server: subprocess.Popen, workers: int, timeout: float = 300) -> float:
    """Seconds until /readyz answered 200 often enough in a row that every worker has been asked (connections are spread
    over the workers by the kernel); raises if the server exits or the timeout passes."""
    import httpx

    started = time.monotonic()
    ready = 0
    first_ok = None
    with httpx.Client(timeout=5) as client:
        while time.monotonic() - started < timeout and server.poll() is None:
            try:
                # A new connection each time: a kept-alive one would keep asking the same worker.
                ok = client.get(f"{url}/readyz", headers={"connection": "close"}).status_code == 200
            except httpx.TransportError:
                ok = False
            if ok:
                first_ok = first_ok if ready else time.monotonic()
                ready += 1
                if ready >= 4 * workers:
                    return first_ok - started
            else:
                ready = 0
            time.sleep(0.02)
    raise RuntimeError(f"advisor serve at {url} did not become ready")


def process_tree(pid: int) -> list[int]:
    """pid and every descendant (from /proc: Linux only, as the benchmarks are)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def worker_rss_mb(server: subprocess.Popen, workers: int) -> list[float]:
    """Resident memory of each process that answers requests: the server itself with one worker, else its workers
    (the processes that hold an index; uvicorn's supervisor and multiprocessing's helpers hold none)."""
    tree = process_tree(server.pid)
    sizes = sorted((rss_mb(pid) for pid in tree), reverse=True)
    return sizes[: max(1, workers)]


def stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(30)
