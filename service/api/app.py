"""The FastAPI application: routers, error handlers and start-up."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from service.api.errors import install_error_handlers
from service.api.auth import ApiKeyMiddleware
from service.api.routes import chat, hardware, health, knowledge, sizing
from service.config import Settings, get_settings
from service.runtime import Runtime


def create_app(settings: Settings | None = None, *, runtime: Runtime | None = None) -> FastAPI:
    runtime = runtime or Runtime(settings or get_settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The index may need a first ingest; serve /healthz meanwhile and let /readyz say when.
        if not runtime.index_ready:
            runtime.open_index_in_background()
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
    for router in (chat.router, sizing.router, hardware.router, knowledge.router):
        app.include_router(router, prefix="/v1")
    app.add_middleware(ApiKeyMiddleware, keys=list(runtime.settings.api_keys))
    return app
