"""API keys: when ADVISOR_API_KEYS is set, every /v1 route needs one (X-API-Key or Authorization: Bearer).

Checked in an ASGI middleware, before the request body is read, so a caller without
a key learns that (401) rather than anything about its payload. Admin routes (/metrics)
take an ADVISOR_ADMIN_KEYS key through the `require_admin` dependency.
"""

from __future__ import annotations

import hmac
import json
from typing import Annotated

from fastapi import Depends, Request
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

MESSAGES = {
    "en": "A valid API key is required (X-API-Key or Authorization: Bearer).",
    "zh": "需要有效的 API 密钥（X-API-Key 或 Authorization: Bearer）。",
}


ADMIN_MESSAGES = {
    "en": "An admin key is required (ADVISOR_ADMIN_KEYS, sent as X-API-Key or Authorization: Bearer).",
    "zh": "需要管理员密钥（ADVISOR_ADMIN_KEYS，通过 X-API-Key 或 Authorization: Bearer 发送）。",
}


def presented_key(headers: dict[str, str]) -> str | None:
    # Both headers are trimmed alike: a trailing space pasted with a key is not part of it.
    if "x-api-key" in headers:
        return headers["x-api-key"].strip()
    scheme, _, token = headers.get("authorization", "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def key_is_valid(presented: str | None, keys: list[str]) -> bool:
    return bool(presented) and any(hmac.compare_digest(presented.encode(), key.encode()) for key in keys)


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, *, keys: list[str], prefix: str = "/v1", exempt: tuple[str, ...] = ()) -> None:
        # exempt: path prefixes guarded by a stricter check of their own (admin routes: require_admin).
        self.app, self.keys, self.prefix, self.exempt = app, keys, prefix, exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A request admitted by a publishable widget key (service/api/widget_access.py) needs no API key.
        widget = scope.get("state", {}).get("widget")
        if scope["type"] != "http" or not self.keys or not scope["path"].startswith(self.prefix) or widget \
                or (self.exempt and scope["path"].startswith(self.exempt)):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if key_is_valid(presented_key(headers), self.keys):
            await self.app(scope, receive, send)
            return
        zh = headers.get("accept-language", "").lower().startswith("zh") or b"lang=zh" in scope.get("query_string", b"")
        message = MESSAGES["zh" if zh else "en"]
        body = json.dumps({"error": "unauthorized", "message": message, "detail": message}, ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})


def require_admin(request: Request) -> None:
    """Dependency for admin routes: open only when no keys at all are configured (local use)."""
    settings = request.app.state.runtime.settings
    admin_keys, api_keys = settings.admin_key_values, settings.api_key_values
    if not admin_keys and not api_keys:
        return
    headers = {k.lower(): v for k, v in request.headers.items()}
    if key_is_valid(presented_key(headers), admin_keys):
        return
    zh = headers.get("accept-language", "").lower().startswith("zh") or request.query_params.get("lang") == "zh"
    raise HTTPException(401, ADMIN_MESSAGES["zh" if zh else "en"], headers={"WWW-Authenticate": "Bearer"})


AdminDep = Annotated[None, Depends(require_admin)]
