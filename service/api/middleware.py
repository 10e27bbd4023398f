"""HTTP hygiene as plain ASGI middleware: a request-body limit, the request context (X-Request-ID in and
out, per-route metrics, an access log line without query strings) and the client address behind proxies.

Plain ASGI rather than BaseHTTPMiddleware: streaming (SSE) responses pass through untouched
and nothing is buffered.
"""

from __future__ import annotations

import json
import logging
import time

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.observability import metrics
from service.observability.context import accept_or_make_request_id, request_id_var

access_log = logging.getLogger("advisor.access")

_TOO_LARGE = {
    "en": "The request body is larger than the limit of {limit} bytes.",
    "zh": "请求体超过了 {limit} 字节的上限。",
}


def language_of(scope: Scope) -> str:
    """zh for ?lang=zh or Accept-Language: zh*, else en (the error language of responses sent before FastAPI runs)."""
    if b"lang=zh" in scope.get("query_string", b""):
        return "zh"
    for name, value in scope.get("headers", []):
        if name == b"accept-language":
            return "zh" if value.decode("latin-1").strip().lower().startswith("zh") else "en"
    return "en"


async def read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole body, and a receive that replays it to the app (the body limit outside has already bounded it)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request"), replay


class BodyTooLarge(StarletteHTTPException):
    """Raised while the body is being read; FastAPI re-raises HTTPExceptions from body parsing, so it becomes a 413."""

    def __init__(self, limit: int, language: str) -> None:
        super().__init__(413, _TOO_LARGE[language].format(limit=limit))


class BodyLimitMiddleware:
    """413 before reading a body larger than `max_bytes`: by Content-Length up front, or by counting a chunked body."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        language = language_of(scope)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > self.max_bytes:
                    await self._refuse(send, 413 if declared > 0 else 400, language)
                    return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes, language)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(send, 413, language)

    async def _refuse(self, send: Send, status: int, language: str) -> None:
        if status == 413:
            body = {"error": "payload_too_large", "message": _TOO_LARGE[language].format(limit=self.max_bytes)}
        else:
            body = {"error": "invalid_body", "message": "Content-Length is not a number." if language == "en" else "Content-Length 不是数字。"}
        payload = json.dumps(body, ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


def channel_of(scope: Scope) -> str:
    path = scope.get("path", "")
    if (scope.get("state") or {}).get("widget"):
        return "widget"
    if path.startswith("/slack"):
        return "slack"
    if path.startswith("/v1/chat/stream"):
        return "sse"
    return "rest"


def route_of(scope: Scope) -> str:
    """The route template (/v1/conversations/{conversation_id}), never the raw path: ids stay out of logs and labels."""
    # FastAPI >= 0.16x keeps included routes under their own path and records the full one here.
    context = (scope.get("fastapi") or {}).get("effective_route_context")
    route = scope.get("route")
    path = getattr(context, "path_format", None) or getattr(route, "path_format", None) or getattr(route, "path", None)
    if path:
        return scope.get("root_path", "") + path if scope.get("root_path") else path
    return "unmatched"


class RequestContextMiddleware:
    """Request id (X-Request-ID in and out, in every log record), per-route metrics and one access-log line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        presented = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-request-id"), None)
        request_id = accept_or_make_request_id(presented)
        # Not reset afterwards on purpose: the 500 handler (outside this middleware) reads it for its response.
        request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route, channel = route_of(scope), channel_of(scope)
            metrics.observe_request(scope.get("method", ""), route, status, channel, seconds)
            access_log.info("%s %s %s", scope.get("method", ""), route, status, extra={
                "method": scope.get("method", ""), "route": route, "status": status, "channel": channel,
                "duration_ms": round(seconds * 1000, 2)})


def forwarded_client(headers: list[tuple[bytes, bytes]], hops: int) -> tuple[str | None, str | None]:
    """(client IP, scheme) as the outermost of `hops` trusted proxies saw them, or None where the headers do not say.

    Each proxy appends the address it received from, so the entries a client wrote itself are on the left:
    only the `hops`-th entry from the right was written by a proxy we trust.
    """
    def entries(name: bytes) -> list[str]:
        joined = ",".join(v.decode("latin-1") for k, v in headers if k == name)  # a repeated header is one list
        return [e.strip() for e in joined.split(",") if e.strip()]

    forwarded, proto = entries(b"x-forwarded-for"), entries(b"x-forwarded-proto")
    ip = (forwarded[-hops] if len(forwarded) >= hops else forwarded[0]) if forwarded else None
    scheme = proto[-1].lower() if proto and proto[-1].lower() in ("http", "https") else None
    return ip, scheme


class ForwardedClientMiddleware:
    """With ADVISOR_TRUSTED_PROXY_HOPS > 0: the client IP (and scheme) from X-Forwarded-For/-Proto, for every layer inside
    (rate limits, the widget's per-visitor limit). Outermost, so all of them see one address; uvicorn's own proxy-header
    handling is off (`advisor serve`), so this setting alone decides whether the header is believed."""

    def __init__(self, app: ASGIApp, *, hops: int) -> None:
        self.app, self.hops = app, hops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.hops > 0:
            ip, scheme = forwarded_client(scope.get("headers", []), self.hops)
            if ip:
                scope["client"] = (ip, 0)
            if scheme:
                scope["scheme"] = scheme if scope["type"] == "http" else {"http": "ws", "https": "wss"}[scheme]
        await self.app(scope, receive, send)
