"""The FastAPI application: routers, error handlers and start-up."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI

from service.api.auth import ApiKeyMiddleware
from service.api.errors import document_error_responses, install_error_handlers
from service.api.middleware import BodyLimitMiddleware, ForwardedClientMiddleware, RequestContextMiddleware
from service.api.ratelimit import RateLimitMiddleware
from service.api.routes import admin, chat, hardware, health, knowledge, sizing
from service.api.routes.widget import install_widget
from service.api.security import SecurityHeadersMiddleware
from service.channels.slack import mount_slack
from service.config import Settings, get_settings
from service.runtime import Runtime, pause_gc_for_start, responsive_event_loop


def create_app(settings: Settings | None = None, *, runtime: Runtime | None = None) -> FastAPI:
    runtime = runtime or Runtime(settings or get_settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = runtime.settings.request_threads
        responsive_event_loop()  # probes answer while turns compute (service/runtime.py)
        # The index may need a first ingest; serve /healthz meanwhile and let /readyz say when.
        if not runtime.index_ready:
            if runtime.settings.open_index_before_serving:
                pause_gc_for_start()  # a worker of `advisor serve --workers N` (set by serve only): as serve does for one
            runtime.open_index_in_background()
            if runtime.settings.open_index_before_serving:
                # Several workers share one socket: a worker accepts connections only once its start-up is done, so
                # waiting here means no request meets a worker whose index is still opening (readiness is per worker).
                await anyio.to_thread.run_sync(runtime.wait_started)  # ready (or failed), not jieba's load after it
        yield
        runtime.close()

    app = FastAPI(
        title="GPU Deployment Advisor",
        version="0.1.0",
        description="Sizing tools, hardware catalogs and a cited knowledge base for AI-training infrastructure.",
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    install_error_handlers(app)
    app.include_router(health.router)
    for router in (chat.router, sizing.router, hardware.router, knowledge.router, admin.router):
        app.include_router(router, prefix="/v1")
    app.include_router(admin.pages)  # /admin: the analytics page (static; its data needs the admin key)
    mount_slack(app, runtime)  # /slack/* only when the Slack token and signing secret are set
    # /v1/admin/* takes admin keys, checked by its own dependency (AdminDep), which is closed whenever any key is set.
    app.add_middleware(ApiKeyMiddleware, keys=runtime.settings.api_key_values, exempt=("/v1/admin/",))
    if runtime.settings.rate_limits_on:
        # Outside the key check (401s count against their IP), inside CORS (a 429 carries the CORS headers the widget reads).
        app.add_middleware(RateLimitMiddleware, settings=runtime.settings)
    install_widget(app, runtime.settings)  # /widget.js, /demo; CORS and widget keys run before the API-key check
    # Added last = outermost: the body limit refuses before anything reads a body; the request context
    # (X-Request-ID, metrics, access log) sees every response, including 401, 413 and 429.
    app.add_middleware(BodyLimitMiddleware, max_bytes=runtime.settings.max_body_bytes)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(RequestContextMiddleware)
    if runtime.settings.trusted_proxy_hops:
        app.add_middleware(ForwardedClientMiddleware, hops=runtime.settings.trusted_proxy_hops)  # outermost: every layer sees one client IP
    document_error_responses(app)
    return app
