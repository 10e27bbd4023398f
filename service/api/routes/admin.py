"""Operator analytics over HTTP: GET /v1/admin/analytics (admin key) and the /admin page that shows it.

The page is static HTML, CSS and script (service/admin/), so it carries no data and needs no key to load;
the figures come from the API, called with the admin key the operator types in. Served with the security
headers of every HTML page (service/api/security.py): scripts from this origin only, no inline script.
"""

from __future__ import annotations

import time
from importlib.resources import files
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from service.analytics.report import AnalyticsReport, build_report
from service.api.auth import AdminDep
from service.api.lang import request_language

router = APIRouter(tags=["admin"])
pages = APIRouter(include_in_schema=False)
ASSETS = {"admin.js": "text/javascript; charset=utf-8", "admin.css": "text/css; charset=utf-8"}


@router.get("/admin/analytics", response_model=AnalyticsReport, summary="Operator analytics: usage, outcomes, latency, feedback, coverage gaps")
def analytics(request: Request, _: AdminDep,
              days: Annotated[int, Query(ge=1, le=366, description="the window: this many days back from now")] = 30,
              lang: Annotated[Literal["zh", "en"] | None, Query(description="language of the report's sentences; default: Accept-Language")] = None,
              ) -> AnalyticsReport:  # fmt: skip
    runtime = request.app.state.runtime
    settings = runtime.settings
    language = lang or request_language(request)
    now = time.time()
    store = runtime.analytics_store
    since = now - days * 86400
    return build_report(
        store.records(since), store.feedback(since), days=days, now=now, language=language, embed=_encoder(), store_questions=settings.store_questions,
        low_confidence=settings.analytics_low_confidence, near_domain=settings.analytics_near_domain, familiar=settings.analytics_familiar,
        cluster_similarity=settings.analytics_cluster_similarity,
    )  # fmt: skip


def _encoder():
    """The process's one multilingual encoder, the one the intent router uses (never a second model)."""
    from service.retrieval.embeddings import shared_use_multilingual

    return shared_use_multilingual().encode


@pages.get("/admin", response_class=HTMLResponse)
def admin_page() -> HTMLResponse:
    page = files("service.admin").joinpath("index.html").read_text(encoding="utf-8")
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})


@pages.get("/admin/{name}")
def admin_asset(name: str) -> Response:
    if name not in ASSETS:
        return Response(status_code=404)
    body = files("service.admin").joinpath(name).read_bytes()
    return Response(body, media_type=ASSETS[name], headers={"Cache-Control": "no-cache"})
