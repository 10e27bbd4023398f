"""The request id of the work in progress, carried by a contextvar into every log record.

Set by the HTTP middleware from X-Request-ID (or a new one); copied into threads that
Starlette runs sync endpoints in, because `run_in_threadpool` copies the context.
"""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

request_id_var: ContextVar[str | None] = ContextVar("advisor_request_id", default=None)

# A caller's id is echoed into logs and headers: only a short, plain token is accepted.
_SAFE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def current_request_id() -> str | None:
    return request_id_var.get()


def accept_or_make_request_id(presented: str | None) -> str:
    if presented and _SAFE_ID.fullmatch(presented.strip()):
        return presented.strip()
    return uuid.uuid4().hex
