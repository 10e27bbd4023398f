"""Security headers for HTML pages, kept in one place (the widget demo, /docs and any admin page use it).

The policy allows scripts and styles from this origin only. Inline `<script>` blocks of a page are
allowed by their SHA-256 hash, computed from the page itself, so a page needs no 'unsafe-inline' for
scripts; styles allow inline (the widget styles its shadow DOM at run time). Pages may not be framed.
"""

from __future__ import annotations

import base64
import hashlib
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.IGNORECASE | re.DOTALL)
# FastAPI's /docs and /redoc load Swagger UI / ReDoc from this CDN (only reachable when online).
_DOCS_CDN = "https://cdn.jsdelivr.net"
_DOCS_PATHS = ("/docs", "/redoc")

BASE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def script_hashes(page: str) -> list[str]:
    """'sha256-…' sources for every inline <script> of an HTML page."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'" for body in _INLINE_SCRIPT.findall(page)]


def content_security_policy(page: str = "", *, extra_script_src: tuple[str, ...] = (), extra_style_src: tuple[str, ...] = (),
                            extra_img_src: tuple[str, ...] = ()) -> str:
    scripts = " ".join(["'self'", *script_hashes(page), *extra_script_src])
    styles = " ".join(["'self'", "'unsafe-inline'", *extra_style_src])
    images = " ".join(["'self'", "data:", *extra_img_src])
    return "; ".join([
        "default-src 'self'", f"script-src {scripts}", f"style-src {styles}", f"img-src {images}", "connect-src 'self'",
        "font-src 'self' data:", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
    ])


def html_security_headers(page: str = "", path: str = "") -> dict[str, str]:
    """Every header an HTML response should carry; call it for a page you build, or let the middleware do it."""
    if path.startswith(_DOCS_PATHS):
        csp = content_security_policy(page, extra_script_src=(_DOCS_CDN,), extra_style_src=(_DOCS_CDN,),
                                      extra_img_src=("https://fastapi.tiangolo.com",))
    else:
        csp = content_security_policy(page)
    return {**BASE_HEADERS, "Content-Security-Policy": csp}


class SecurityHeadersMiddleware:
    """Adds the headers to every text/html response that does not already set its own CSP; `nosniff` to all."""

    MAX_HTML_BYTES = 2 * 1024 * 1024

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []
        size = 0

        async def wrapped(message: Message) -> None:
            nonlocal start, size
            if message["type"] == "http.response.start":
                headers = dict((k.lower(), v) for k, v in message.get("headers", []))
                is_html = headers.get(b"content-type", b"").startswith(b"text/html") and b"content-security-policy" not in headers
                if not is_html:
                    extra = [] if b"x-content-type-options" in headers else [(b"x-content-type-options", b"nosniff")]
                    await send({**message, "headers": [*message.get("headers", []), *extra]})
                    return
                start = message  # hold it: the CSP hashes need the page
                return
            if start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if message.get("more_body", False) and size < self.MAX_HTML_BYTES:
                return
            page = b"".join(chunks)
            added = html_security_headers(page.decode("utf-8", "replace"), scope.get("path", ""))
            names = {k.lower().encode() for k in added}
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in names]
            headers += [(k.lower().encode(), v.encode()) for k, v in added.items()]
            await send({**start, "headers": headers})
            start_sent_more = message.get("more_body", False)
            await send({"type": "http.response.body", "body": page, "more_body": start_sent_more})
            chunks.clear()
            if start_sent_more:  # an oversized page: stream the rest through unchanged
                start = None

        await self.app(scope, receive, wrapped)
