"""Liveness, readiness and metrics: `async def`, answered on the event loop, never queued behind chat.

Chat and sizing endpoints are sync and run in the thread pool; a probe that also went there would
wait behind 40 busy chats (or a hanging LLM) and a healthy process would look dead. These handlers
do only small local checks, so they run on the loop directly.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
import uuid
from pathlib import Path
from typing import Any

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from service import sqlite_faults
from service.api.auth import AdminDep
from service.assistant.faults import store_problem
from service.api.lang import request_language
from service.errors import IndexOpenError, StoreDamagedError
from service.observability import metrics

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up (answered from the moment the socket is bound, while the start is still under way)."""
    return {"status": "ok"}


def _problem(part: str, message: str, repair: str | None = None, *, permanent: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"part": part, "message": message, "permanent": permanent}
    if repair:
        out["repair"] = repair
    return out


def check_index(runtime: Any) -> tuple[bool, dict[str, Any] | None]:
    if runtime.ready:  # the index open and the start's preparation done (service/runtime.py)
        return True, None
    error = getattr(runtime, "_index_error", None)
    if error is None:
        return False, _problem("index", "the knowledge index is still being opened (first start ingests the documents)", permanent=False)
    fault = IndexOpenError(error)  # read as a refused chat reads it (service/api/errors.py)
    return False, _problem("index", f"the knowledge index failed to open: {error}", fault.repair, permanent=fault.permanent)


def check_data_dir(data_dir: Path) -> tuple[bool, dict[str, Any] | None]:
    """Writable, proven by writing: permission bits say nothing for root or on a read-only mount."""
    repair = f"make {data_dir} a writable directory for the advisor's user (or point ADVISOR_DATA_DIR elsewhere)"
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        probe = data_dir / f".ready-probe-{uuid.uuid4().hex}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return False, _problem("data_dir", f"the data directory {data_dir} is not writable ({exc.strerror or exc})", repair)
    return True, None


def check_conversation_store(path: Path, lang: str = "en") -> tuple[bool, dict[str, Any] | None]:
    """Writable, and every page readable (`PRAGMA quick_check`, repeated only when the file changed): a store with zeroed
    pages still has a readable sqlite_master. A missing file is fine (created on first use). The words are the ones a chat
    refused by the same fault gets (service/assistant/faults.py)."""
    if not path.exists():
        parent = path.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not os.access(parent, os.W_OK):
            return False, _problem("conversation_store", f"the conversation store {path} cannot be created: {parent} is not writable",
                                   f"make {parent} writable, or set ADVISOR_DATABASE_URL to a writable sqlite:/// path")
        return True, None
    fault = sqlite_faults.probe(path)
    if isinstance(fault, StoreDamagedError):
        return False, store_problem(fault, lang)
    return True, None  # None, or a writer holding it for a moment: the store works


# Server pings run here, never in the request thread pool: a probe must not queue behind chat.
_PROBE_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="advisor-probe")


async def check_server_database(runtime: Any) -> tuple[bool, dict[str, Any] | None]:
    """PostgreSQL answers a trivial query (opening the store first migrates it); transient: it heals when the server returns."""
    def ping() -> None:
        runtime.conversation_store.ping()

    try:
        await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(_PROBE_POOL, ping), timeout=8)
    except Exception as exc:  # StoreUnavailableError, a timeout, a failed migration
        return False, _problem("conversation_store", f"the conversation database (PostgreSQL) cannot be reached ({exc or type(exc).__name__})",
                               "start the database server or fix ADVISOR_DATABASE_URL", permanent=False)
    return True, None


async def check_chroma_server(url: str) -> tuple[bool, dict[str, Any] | None]:
    try:
        async with httpx.AsyncClient(timeout=3) as client:
            (await client.get(f"{url.rstrip('/')}/api/v2/heartbeat")).raise_for_status()
    except httpx.HTTPError as exc:
        return False, _problem("chroma_server", f"the Chroma server at {url} cannot be reached ({type(exc).__name__})",
                               "start the Chroma server or fix CHROMA_URL", permanent=False)
    return True, None


# Parts whose failure degrades the service without stopping it: /readyz names them but still answers 200 ("degraded"),
# so a load balancer keeps the workers in rotation. A rate-limit storage that is down is failed open (service/api/ratelimit.py).
DEGRADING_PARTS = frozenset({"rate_limit_storage"})


async def check_rate_limit_storage(url: str) -> tuple[bool, dict[str, Any] | None]:
    from service.api.ratelimit import storage_reachable, storage_scheme

    try:
        ok = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(_PROBE_POOL, storage_reachable, url), timeout=3)
    except Exception:  # a timeout
        ok = False
    if ok:
        return True, None
    # The scheme only: the URI can carry a password.
    return False, _problem("rate_limit_storage", f"the rate-limit storage ({storage_scheme(url)}) cannot be reached: requests are let "
                           "through without rate limits", "start the storage server or fix ADVISOR_RATE_LIMIT_STORAGE_URL", permanent=False)


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """Ready to answer: catalogs loaded, knowledge index open, conversation store and data directory usable.

    "index" is ready only when a chat turn can be answered from what is in memory: the index open and the start's
    preparation done, the answer pipeline and its router built (Runtime.ready, service/runtime.py). Nothing is loaded
    lazily behind that except jieba's dictionary, which loads just after ready: a turn that needs it meanwhile waits for
    it (a few tenths of a second) and is answered as any later turn is.

    Each failing part is named with what went wrong and, for a permanent fault, how to repair it. A shared rate-limit
    storage that is down is named too, but only degrades the answer (200, "degraded"): requests are let through meanwhile.
    """
    runtime = request.app.state.runtime
    settings = runtime.settings
    results = {
        "catalog": (True, None),
        "index": check_index(runtime),
        "data_dir": check_data_dir(settings.data_dir),
        "conversation_store": (await check_server_database(runtime) if settings.server_database_url
                               else check_conversation_store(settings.sqlite_path, request_language(request))),
    }
    if settings.chroma_url:
        results["chroma_server"] = await check_chroma_server(settings.chroma_url)
    if settings.rate_limit_storage_url and settings.rate_limits_on:
        results["rate_limit_storage"] = await check_rate_limit_storage(settings.rate_limit_storage_url.get_secret_value())
    checks = {name: ok for name, (ok, _) in results.items()}
    problems = [problem for _, problem in results.values() if problem]
    blocking = [p for p in problems if p["part"] not in DEGRADING_PARTS]
    if not problems:
        status = "ready"
    elif not blocking:
        status = "degraded"
    elif all(not p["permanent"] for p in blocking):
        status = "starting"
    else:
        status = "failed"
    content: dict[str, Any] = {"status": status, "checks": checks}
    if problems:
        content["problems"] = problems
    return JSONResponse(status_code=200 if status in ("ready", "degraded") else 503, content=content)


@router.get("/metrics", include_in_schema=False)
async def metrics_endpoint(_: AdminDep) -> Response:
    """Prometheus exposition; needs an admin key whenever keys are configured."""
    body, content_type = metrics.render()
    return Response(body, media_type=content_type)
