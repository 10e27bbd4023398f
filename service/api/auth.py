"""API keys: when ADVISOR_API_KEYS is set, every /v1 route needs one (X-API-Key or Authorization: Bearer).

Checked in an ASGI middleware, before the request body is read, so a caller without
a key learns that (401) rather than anything about its payload.
"""

from __future__ import annotations

import hmac
import json

from starlette.types import ASGIApp, Receive, Scope, Send

MESSAGES = {
    "en": "A valid API key is required (X-API-Key or Authorization: Bearer).",
    "zh": "需要有效的 API 密钥（X-API-Key 或 Authorization: Bearer）。",
}


def presented_key(headers: dict[str, str]) -> str | None:
    if "x-api-key" in headers:
        return headers["x-api-key"]
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def key_is_valid(presented: str | None, keys: list[str]) -> bool:
    return bool(presented) and any(hmac.compare_digest(presented.encode(), key.encode()) for key in keys)


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, *, keys: list[str], prefix: str = "/v1") -> None:
        self.app, self.keys, self.prefix = app, keys, prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.keys or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if key_is_valid(presented_key(headers), self.keys):
            await self.app(scope, receive, send)
            return
        zh = headers.get("accept-language", "").lower().startswith("zh") or b"lang=zh" in scope.get("query_string", b"")
        body = json.dumps({"detail": MESSAGES["zh" if zh else "en"]}, ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})
