"""Which language to answer an HTTP request's errors in."""

from __future__ import annotations

from fastapi import Request


def request_language(request: Request) -> str:
    explicit = request.query_params.get("lang")
    if explicit in ("zh", "en"):
        return explicit
    accept = request.headers.get("accept-language", "").lower()
    return "zh" if accept.startswith("zh") else "en"
