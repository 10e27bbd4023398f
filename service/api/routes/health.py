"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from service.api.deps import RuntimeDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz")
def readyz(runtime: RuntimeDep) -> JSONResponse:
    """Catalogs loaded and the knowledge index open: ready to answer."""
    checks = {"catalog": True, "index": runtime.index_ready}
    ready = all(checks.values())
    return JSONResponse(status_code=200 if ready else 503, content={"status": "ready" if ready else "starting", "checks": checks})
