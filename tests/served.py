"""A real `advisor serve` process in tests: wait until it answers /readyz."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx
import pytest


def wait_until_ready(server: subprocess.Popen, base: str, log_path: Path) -> None:
    """Every probe on a new connection (so any worker may answer); up to ~3 minutes for the workers to open the index."""
    for _ in range(900):
        assert server.poll() is None, log_path.read_text()[-2000:]
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    pytest.fail("the server did not become ready")
