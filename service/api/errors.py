"""Map the advisor's errors to HTTP responses: 4xx with field-named bilingual messages, never a 500.

One error body everywhere (`ErrorBody`): `{"error": code, "message": text, "detail": [problems]}`, in the
request's language. The OpenAPI spec documents exactly this body for 400, 413 and 422 on every operation.
"""

from __future__ import annotations

import http
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.api.lang import request_language
from service.assistant.faults import index_message, store_chat_body
from service.errors import InputError, RetrievalError, StoreDamagedError, StoreUnavailableError
from service.i18n import problems_from_errors

log = logging.getLogger("advisor.api")

_INVALID = {"en": "The request has invalid input.", "zh": "请求中有无效的输入。"}

# Status -> (code, en, zh) for errors Starlette/FastAPI raise themselves (unknown route, wrong method, unreadable body).
_HTTP_MESSAGES: dict[int, tuple[str, str, str]] = {
    400: ("invalid_body", "The request body could not be read: send UTF-8 encoded JSON, nested at most a few hundred levels deep.",
          "无法读取请求体：请发送 UTF-8 编码的 JSON，嵌套层级不要过深。"),
    401: ("unauthorized", "A valid key is required.", "需要有效的密钥。"),
    403: ("forbidden", "This key may not use this route.", "该密钥无权访问此路由。"),
    404: ("not_found", "No such route. The API is under /v1; see /docs.", "没有这个路由。API 位于 /v1 下，参见 /docs。"),
    405: ("method_not_allowed", "This route does not accept that HTTP method.", "该路由不接受此 HTTP 方法。"),
    413: ("payload_too_large", "The request body is too large.", "请求体过大。"),
    415: ("unsupported_media_type", "Send the body as application/json.", "请以 application/json 发送请求体。"),
    429: ("rate_limited", "Too many requests; retry later.", "请求过于频繁，请稍后再试。"),
}
_INTERNAL = {"en": "Something went wrong on our side; the error has been logged. Try again, or report it with the X-Request-ID.",
             "zh": "服务器内部出错，已记录。请重试，或附上 X-Request-ID 反馈。"}


class ProblemItem(BaseModel):
    model_config = ConfigDict(extra="allow")

    field: str = Field(description="the input at fault: a JSON field name (dotted for nested ones), or 'body'")
    message: str = Field(description="what is wrong, in the request's language")
    allowed: str | None = Field(default=None, description="the allowed values or range")
    suggestions: list[str] | None = Field(default=None, description="closest known names, for an unknown GPU or model")


class ErrorBody(BaseModel):
    """Every error the API sends: 400, 401, 404, 405, 413, 422, 429, 500 and 503."""

    model_config = ConfigDict(extra="allow")

    error: str = Field(description="machine-readable code, e.g. invalid_input, invalid_body, payload_too_large, not_found")
    message: str = Field(description="human-readable, in the request's language (Accept-Language: zh, or ?lang=zh)")
    detail: list[ProblemItem] | str | None = Field(default=None, description="one entry per field at fault (422); the message again (401)")


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": code, "message": message, **extra}


def problem_response(request: Request, problems: list, status: int = 422) -> JSONResponse:
    lang = request_language(request)
    detail = [p.as_dict(lang) for p in problems]
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in detail)
    return JSONResponse(status_code=status, content=error_body("invalid_input", f"{_INVALID[lang]} {summary}", detail=detail))


def http_error_response(request: Request, status: int, detail: Any = None, headers: dict[str, str] | None = None) -> JSONResponse:
    """A Starlette/FastAPI HTTP error in our format and the request's language (their own detail is English only)."""
    lang = request_language(request)
    code, en, zh = _HTTP_MESSAGES.get(status, ("http_error", http.HTTPStatus(status).phrase, http.HTTPStatus(status).phrase))
    generic = detail is None or detail in (http.HTTPStatus(status).phrase, "There was an error parsing the body")
    message = (zh if lang == "zh" else en) if generic else str(detail)
    return JSONResponse(status_code=status, content=error_body(code, message), headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return problem_response(request, problems_from_errors(exc.errors()))

    @app.exception_handler(ValidationError)
    async def _inner_validation(request: Request, exc: ValidationError) -> JSONResponse:
        # A calculator built an inner request (e.g. recommend -> inference) from values that passed the outer
        # schema but not the inner one: still the caller's input, so 422 with the field named, not 500.
        log.warning("inner validation error in %s: %s", request.url.path, exc.error_count())
        return problem_response(request, problems_from_errors(exc.errors(), strip=()))

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        return problem_response(request, exc.problems)

    @app.exception_handler(RetrievalError)
    async def _retrieval(request: Request, exc: RetrievalError) -> JSONResponse:
        lang = request_language(request)
        if getattr(exc, "permanent", False):
            # A damaged index (or one /readyz reports as failed) does not heal by retrying: say so, and how to repair it.
            repair = getattr(exc, "repair", None) or "advisor ingest --rebuild"
            log.error("knowledge index unusable: %s", exc)
            message = index_message(lang, permanent=True, repair=repair)
            return JSONResponse(status_code=503, content=error_body("index_corrupt", message, part="index", repair=repair))
        log.warning("retrieval unavailable: %s", exc)
        return JSONResponse(status_code=503, content=error_body("index_unavailable", index_message(lang, permanent=False, repair="")),
                            headers={"Retry-After": "5"})

    @app.exception_handler(StoreUnavailableError)
    async def _store_unavailable(request: Request, exc: StoreUnavailableError) -> JSONResponse:
        lang = request_language(request)
        message = "会话数据库暂时无法连接，请稍后再试。" if lang == "zh" else "The conversation database cannot be reached right now; try again shortly."
        log.warning("conversation store unavailable: %s", exc)
        return JSONResponse(status_code=503, content=error_body("store_unavailable", message), headers={"Retry-After": "5"})

    @app.exception_handler(StoreDamagedError)
    async def _store_damaged(request: Request, exc: StoreDamagedError) -> JSONResponse:
        # Permanent until repaired: no Retry-After, and the repair /readyz names for the same fault.
        log.error("conversation store unusable: %s", exc)
        return JSONResponse(status_code=503, content=store_chat_body(exc, request_language(request)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return http_error_response(request, exc.status_code, exc.detail, exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug: logged with its traceback; the client gets a clean body and `Connection: close`, because the
        # server drops this connection after a 500 and a pooled client must not reuse it.
        log.error("unhandled %s on %s %s", type(exc).__name__, request.method, request.url.path, exc_info=exc)
        lang = request_language(request)
        return JSONResponse(status_code=500, content=error_body("internal_error", _INTERNAL[lang]), headers={"Connection": "close"})


def _error_content(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}


_RATE_LIMITED = {
    **_error_content("too many requests: per API key (ADVISOR_RATE_LIMIT_PER_KEY) or per client IP (ADVISOR_RATE_LIMIT_PER_IP); "
                     "error `rate_limited`, with `retry_after_s`"),
    "headers": {"Retry-After": {"description": "seconds to wait before retrying", "schema": {"type": "integer", "minimum": 1}}},
}


def _sse_event(data_schema: dict[str, Any] | None) -> dict[str, Any]:
    """One server-sent event as clients parse it: an event name and a data line whose JSON text has `data_schema`."""
    data: dict[str, Any] = {"type": "string"}
    if data_schema:
        data.update(contentMediaType="application/json", contentSchema=data_schema)
    return {"type": "object", "properties": {"event": {"type": "string"}, "data": data, "id": {"type": "string"}}, "required": ["data"]}


def _document_event_stream(response: dict[str, Any]) -> None:
    """FastAPI documents an SSE route's 200 as JSON (or as the decoded event model): describe the events really sent."""
    content = response.get("content") or {}
    declared = (content.get("text/event-stream") or content.get("application/json") or {}).get("schema")
    if declared and "data" in (declared.get("properties") or {}):
        return  # already an event envelope
    response["content"] = {"text/event-stream": {"schema": _sse_event(declared)}}


def _streaming_route_names(routes: list[Any]) -> set[str]:
    """Names of routes that answer text/event-stream, also inside included routers."""
    names: set[str] = set()
    for route in routes:
        inner = getattr(getattr(route, "original_router", None), "routes", None) or getattr(route, "routes", None)
        if inner and route is not None and not hasattr(route, "endpoint"):
            names |= _streaming_route_names(list(inner))
        response_class = getattr(route, "response_class", None)
        # sse-starlette's EventSourceResponse sets its media type per instance, not on the class
        if getattr(response_class, "media_type", None) == "text/event-stream" or getattr(response_class, "__name__", "") == "EventSourceResponse":
            names.add(route.name)
    return names


def document_error_responses(app: FastAPI) -> None:
    """Make /openapi.json describe the error body really sent (FastAPI documents its own HTTPValidationError)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}").pop("$defs", {}))
        components["ErrorBody"] = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
        components["ErrorBody"].pop("$defs", None)
        streaming = _streaming_route_names(list(app.routes))
        for path_item in schema.get("paths", {}).values():
            for operation in path_item.values():
                responses = operation.setdefault("responses", {})
                ok = responses.get("200", {})
                if any(operation.get("operationId", "").startswith(f"{name}_") for name in streaming):
                    _document_event_stream(ok)
                has_input = "requestBody" in operation or operation.get("parameters")
                if has_input or "422" in responses:
                    responses["422"] = _error_content(responses.get("422", {}).get("description") or "invalid input: each field at fault, named")
                if "requestBody" in operation:
                    responses.setdefault("400", _error_content("unreadable body: not UTF-8, not JSON, or nested too deep"))
                    responses.setdefault("413", _error_content("body larger than ADVISOR_MAX_BODY_BYTES"))
                for status in ("404", "503"):
                    if status in responses and "content" not in responses[status]:
                        responses[status] = _error_content(responses[status].get("description", "error"))
        for path, path_item in schema.get("paths", {}).items():
            if path.startswith("/v1/"):  # the routes service/api/ratelimit.py limits
                for operation in path_item.values():
                    operation.setdefault("responses", {}).setdefault("429", _RATE_LIMITED)
        for unused in ("HTTPValidationError", "ValidationError"):
            components.pop(unused, None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
