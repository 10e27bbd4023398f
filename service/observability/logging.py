"""Structured JSON logs, configured once when the server starts.

Every record carries the request id of the request being served (see context.py). Message and
query text are confidential by default: code logs them through `content()`, which redacts unless
ADVISOR_LOG_CONTENT=true.
"""

from __future__ import annotations

import json
import logging
import logging.config
import time
from typing import Any

from service.observability.context import current_request_id

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "request_id", "taskName"}
_log_content = False


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = current_request_id()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, any `extra=` fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or current_request_id()
        if request_id:
            out["request_id"] = request_id
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def content(text: str | None) -> str:
    """User text for a log line: itself only when ADVISOR_LOG_CONTENT=true, else its length."""
    if text is None:
        return ""
    return text if _log_content else f"[{len(text)} chars redacted]"


def logging_config(level: str = "info", fmt: str = "json") -> dict[str, Any]:
    """A dictConfig for the app's loggers and uvicorn's (which `advisor serve` passes to uvicorn.run)."""
    formatter = {"()": "service.observability.logging.JsonFormatter"} if fmt == "json" else \
        {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    handler = {"class": "logging.StreamHandler", "formatter": "default", "filters": ["request_id"], "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "service.observability.logging.RequestIdFilter"}},
        "formatters": {"default": formatter},
        "handlers": {"default": handler},
        "loggers": {
            "advisor": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            # uvicorn's access log prints the raw request line (query strings, keys in ?api_key=, ids):
            # it is off; advisor.access logs the route template instead (service/api/middleware.py).
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


def set_log_content(enabled: bool) -> None:
    global _log_content
    _log_content = enabled


def configure_logging(level: str = "info", fmt: str = "json", *, log_content: bool = False) -> dict[str, Any]:
    """Process-wide: call once when the server starts (`advisor serve`), never from library code."""
    set_log_content(log_content)
    config = logging_config(level, fmt)
    logging.config.dictConfig(config)
    return config
