"""The web widget over HTTP: /widget.js (the bundle), /widget/* (vendored assets), /demo and /."""

from __future__ import annotations

import html
from importlib.resources import files

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from service.api.widget_access import install_widget_access
from service.config import Settings
from service.widget import build_bundle

router = APIRouter(tags=["widget"], include_in_schema=False)


@router.get("/widget.js")
def widget_script(request: Request) -> Response:
    bundle = build_bundle()
    headers = {
        "ETag": bundle.etag,
        # Short: a deploy reaches every embedding page within minutes; the ETag makes revalidation cheap.
        "Cache-Control": "public, max-age=300",
        "Vary": "Accept-Encoding",
        # Any site may load the script; what it may call is decided by the CORS and key checks.
        "Cross-Origin-Resource-Policy": "cross-origin",
        "X-Content-Type-Options": "nosniff",
    }
    if request.headers.get("if-none-match") == bundle.etag:
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(bundle.gzipped, media_type="text/javascript; charset=utf-8", headers={**headers, "Content-Encoding": "gzip"})
    return Response(bundle.script, media_type="text/javascript; charset=utf-8", headers=headers)


@router.get("/demo", response_class=HTMLResponse)
def demo(request: Request) -> HTMLResponse:
    """A realistic host page with the widget embedded by its one script tag."""
    settings: Settings = request.app.state.runtime.settings
    key = settings.widget_keys[0] if settings.widget_keys else ""
    lang = request.query_params.get("lang", "auto")
    theme = request.query_params.get("theme", "light")
    page = files("service.widget").joinpath("demo.html").read_text(encoding="utf-8")
    attributes = {"data-lang": lang if lang in ("auto", "zh-CN", "en") else "auto", "data-theme": theme if theme in ("light", "dark") else "light"}
    if key:
        attributes["data-key"] = key
    tag = "".join(f' {name}="{html.escape(value)}"' for name, value in attributes.items())
    return HTMLResponse(page.replace("<!--WIDGET-ATTRIBUTES-->", tag), headers={"Cache-Control": "no-cache"})


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/demo", status_code=307)


def install_widget(app: FastAPI, settings: Settings) -> None:
    """Routes, vendored assets, CORS and widget-key checks; call after the API-key middleware is added."""
    app.include_router(router)
    app.mount("/widget", StaticFiles(directory=str(files("service.widget").joinpath("static"))), name="widget-static")
    install_widget_access(app, settings)
