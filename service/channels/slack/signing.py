"""Slack's v0 request signature, checked without ever raising, and the 401 for every /slack request that lacks it.

slack_sdk's `SignatureVerifier.is_valid` reads X-Slack-Request-Timestamp with int(): a missing or non-numeric header
raised ValueError (a 500, from the rate limiter and from Bolt alike). `signed` accepts only a whole number of seconds
(at most 12 ASCII digits), then lets slack_sdk check the window and the HMAC.

`SlackSignatureMiddleware` refuses unsigned /slack requests before Bolt sees them, with the API's error body in the
request's language. It sits inside the rate limiter, so a refused request has already been counted against its address.
Bolt still checks the signature itself; this layer only makes sure nothing unsigned gets as far as its int().
"""

from __future__ import annotations

import json
import re

from slack_sdk.signature import SignatureVerifier
from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.middleware import language_of, read_body
from service.channels.slack.strings import text as say

PREFIX = "/slack/"
_TIMESTAMP = re.compile(r"[0-9]{1,12}")


class SlackSignature:
    def __init__(self, signing_secret: str) -> None:
        self._verifier = SignatureVerifier(signing_secret)

    def signed(self, body: bytes, headers: dict[str, str]) -> bool:
        """True for a body signed with the secret within Slack's five-minute window; headers have lower-case names."""
        timestamp, signature = headers.get("x-slack-request-timestamp", ""), headers.get("x-slack-signature", "")
        if not _TIMESTAMP.fullmatch(timestamp) or not signature:
            return False
        return self._verifier.is_valid(body, timestamp, signature)


class SlackSignatureMiddleware:
    """Plain ASGI: a /slack request (any method, any path below it) goes on only when Slack signed it."""

    def __init__(self, app: ASGIApp, *, signing_secret: str) -> None:
        self.app = app
        self.signature = SlackSignature(signing_secret)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        body, receive = await read_body(receive)
        if self.signature.signed(body, headers):
            await self.app(scope, receive, send)
            return
        message = say(language_of(scope), "unsigned")
        payload = json.dumps({"error": "unauthorized", "message": message, "detail": message}, ensure_ascii=False).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": payload})
