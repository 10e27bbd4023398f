"""A total deadline for each LLM call, down to the socket (issue 28).

httpx's timeouts are per operation: a server that sends a byte every 0.2 s satisfies every read and keeps the call,
and the writer slot it holds, for as long as it likes. The writer stops *waiting* at its timeout, but the call goes
on. Here every socket read, write and connect of the call gets at most the time left until the call's deadline, and
none once it has passed (httpcore.ReadTimeout, which the OpenAI client reports as a timeout): the call, and its slot,
end at the deadline.

The deadline belongs to the thread making the call (`deadline(seconds)` around it), so connections in the pool carry
no state of their own; outside such a block the streams behave as httpcore's.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

_LOCAL = threading.local()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every socket operation of this thread's HTTP calls must end within `seconds` from now."""
    previous = getattr(_LOCAL, "at", None)
    _LOCAL.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _LOCAL.at = previous


def _capped(timeout: float | None, error: type[Exception]) -> float | None:
    at = getattr(_LOCAL, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the call's total deadline has passed")
    return min(timeout if timeout is not None else math.inf, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _capped(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _capped(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _capped(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, _capped(timeout, httpcore.ConnectTimeout), local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, _capped(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def deadline_client() -> httpx.Client:
    """An httpx client whose calls honour `deadline()`, with httpx's default limits. httpx has no public hook for the
    network backend, so its transport's pool is replaced by one over ours; a change in httpx fails loudly here (and in
    tests/assistant/test_writer_deadline.py)."""
    transport = httpx.HTTPTransport()
    if not isinstance(getattr(transport, "_pool", None), httpcore.ConnectionPool):
        raise RuntimeError(f"httpx {httpx.__version__}: its transport no longer holds an httpcore.ConnectionPool")
    limits = httpx.Limits()
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=_Backend(),
    )
    return httpx.Client(transport=transport)
