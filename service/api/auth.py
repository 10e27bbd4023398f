"""API keys: when ADVISOR_API_KEYS is set, every /v1 route needs one (X-API-Key or Authorization: Bearer)."""

from __future__ import annotations

import hmac

from fastapi import Depends, HTTPException, Request

from service.api.lang import request_language


def require_api_key(request: Request) -> None:
    keys = request.app.state.runtime.settings.api_keys
    if not keys:
        return
    presented = request.headers.get("x-api-key")
    if presented is None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        presented = token.strip() if scheme.lower() == "bearer" else None
    if presented and any(hmac.compare_digest(presented.encode(), key.encode()) for key in keys):
        return
    message = "需要有效的 API 密钥（X-API-Key 或 Authorization: Bearer）。" if request_language(request) == "zh" \
        else "A valid API key is required (X-API-Key or Authorization: Bearer)."
    raise HTTPException(status_code=401, detail=message, headers={"WWW-Authenticate": "Bearer"})


ApiKey = Depends(require_api_key)
