"""Who may use the web widget: CORS for the allowed origins, publishable widget keys, per-visitor limits.

Two ASGI middlewares, installed around the API-key check by `install_widget_access`:

    CORSMiddleware (reflects only ADVISOR_WIDGET_ORIGINS; answers preflights)
      -> WidgetKeyMiddleware (X-Widget-Key: valid key, allowed Origin, rate limit)
        -> ApiKeyMiddleware (lets a request through that WidgetKeyMiddleware admitted)

A widget key is publishable (it sits in the host page), so it opens only the chat and feedback
routes and the caller's own conversations, only for requests whose Origin is allowed, and each
visitor (key + client IP) and each key overall is rate-limited. Admitted requests carry
`scope["state"]["widget"]` (a `WidgetCaller`): the chat routes pass channel="widget" and its owner to the Advisor.

Every visitor of a host page shares its key, so the owner is the key *and* a visitor session: a
request without a visitor token (X-Widget-Visitor) gets a new random one in that response header, the
widget sends it back, and only that token reaches the conversations it started (another visitor's
lookups find nothing: the same 404 as an unknown id). The token is a bearer secret of 192 random bits;
only its digest is stored, inside the owner. It is not signed: a token a client makes up itself opens
nothing but a new, empty space (as a fresh one would), and no signing secret has to be shared by every
worker and host.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.ratelimit import RateLimiter
from service.config import Settings

WIDGET_PATHS = frozenset({"/v1/chat", "/v1/chat/stream", "/v1/feedback"})
# GET and DELETE /v1/conversations/{id}: the visitor's own conversation only (the owner scopes them).
CONVERSATION_PREFIX = "/v1/conversations/"
STATE_KEY = "widget"
VISITOR_HEADER = "X-Widget-Visitor"
# What secrets.token_urlsafe(24) gives (32 characters); anything else presented is not a token and starts a new visitor.
_VISITOR_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,128}")

MESSAGES = {
    "unknown_key": {"en": "Unknown widget key (X-Widget-Key).", "zh": "无效的组件密钥（X-Widget-Key）。"},
    "origin": {
        "en": "This origin may not use the widget key; add it to ADVISOR_WIDGET_ORIGINS.",
        "zh": "该来源（Origin）不允许使用组件密钥；请将其加入 ADVISOR_WIDGET_ORIGINS。",
    },
    "rate": {
        "en": "Too many requests from this visitor; retry after {s} seconds.",
        "zh": "该访客请求过多，请 {s} 秒后重试。",
    },
}


@dataclass(frozen=True)
class WidgetCaller:
    key_digest: str
    visitor_digest: str

    @property
    def owner(self) -> str:
        return f"widget:{self.key_digest}:{self.visitor_digest}"


def widget_caller(scope_or_request) -> WidgetCaller | None:
    """The admitted widget caller of a request (a Starlette Request or an ASGI scope), if any."""
    scope = getattr(scope_or_request, "scope", scope_or_request)
    return scope.get("state", {}).get(STATE_KEY)


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def visitor_token(presented: str | None) -> tuple[str, bool]:
    """The visitor's token and whether it is new: the presented one when it is a token, else a fresh one."""
    if presented and _VISITOR_TOKEN.fullmatch(presented.strip()):
        return presented.strip(), False
    return secrets.token_urlsafe(24), True


def widget_route(scope: Scope) -> bool:
    path = scope["path"]
    return path in WIDGET_PATHS or (path.startswith(CONVERSATION_PREFIX) and scope.get("method") in ("GET", "DELETE"))


def origin_allowed(origin: str | None, headers: dict[str, str], scope: Scope, allowed: list[str]) -> bool:
    if not origin:
        return False
    if "*" in allowed or origin in allowed:
        return True
    # Same origin: the page was served by this app (the demo page); empty allowlist means only this.
    return origin == f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"


class WidgetKeyMiddleware:
    def __init__(self, app: ASGIApp, *, settings: Settings, limiter: RateLimiter | None = None) -> None:
        self.app = app
        self.keys = list(settings.widget_keys)
        self.origins = list(settings.widget_origins)
        # The same storage as the API's limits: with a shared one (redis) every worker counts a visitor's questions together.
        storage_url = settings.rate_limit_storage_url.get_secret_value() if settings.rate_limit_storage_url else None
        self.limiter = limiter or RateLimiter(
            {"visitor": settings.widget_rate_limit_visitor, "key": settings.widget_rate_limit_key}, storage_url=storage_url
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.keys or not widget_route(scope):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        presented = headers.get("x-widget-key")
        if presented is None:
            await self.app(scope, receive, send)
            return
        lang = "zh" if headers.get("accept-language", "").lower().startswith("zh") else "en"
        if not any(hmac.compare_digest(presented.encode(), key.encode()) for key in self.keys):
            await _refuse(send, 401, "unknown_widget_key", MESSAGES["unknown_key"][lang])
            return
        if not origin_allowed(headers.get("origin"), headers, scope, self.origins):
            await _refuse(send, 403, "origin_not_allowed", MESSAGES["origin"][lang])
            return
        digest = key_digest(presented)
        client_ip = (scope.get("client") or ("unknown", 0))[0]
        refusal = await self.limiter.hit_async(("visitor", (digest, client_ip)), ("key", (digest,)))
        if refusal is not None:
            message = MESSAGES["rate"][lang].format(s=refusal.retry_after_s)
            await _refuse(send, 429, "rate_limited", message, [(b"retry-after", str(refusal.retry_after_s).encode())])
            return
        token, issued = visitor_token(headers.get(VISITOR_HEADER.lower()))
        scope.setdefault("state", {})[STATE_KEY] = WidgetCaller(digest, hashlib.sha256(token.encode()).hexdigest()[:32])
        if not issued:
            await self.app(scope, receive, send)
            return

        async def send_with_token(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (VISITOR_HEADER.lower().encode(), token.encode())]}
            await send(message)

        await self.app(scope, receive, send_with_token)


async def _refuse(send: Send, status: int, code: str, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": code, "message": message, "detail": message}, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


def install_widget_access(app: FastAPI, settings: Settings) -> None:
    """Call after the API-key middleware is added: these two then run before it (outermost last)."""
    app.add_middleware(WidgetKeyMiddleware, settings=settings)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(settings.widget_origins),
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["Content-Type", "Accept", "Accept-Language", "X-Widget-Key", VISITOR_HEADER],
        expose_headers=["Retry-After", VISITOR_HEADER],
        allow_credentials=False,
        max_age=600,
    )
