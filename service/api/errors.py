"""Map the advisor's errors to HTTP responses: 4xx with field-named bilingual messages, never a 500."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from service.api.lang import request_language
from service.errors import InputError, RetrievalError
from service.i18n import problems_from_errors

log = logging.getLogger("advisor.api")

_INVALID = {"en": "The request has invalid input.", "zh": "请求中有无效的输入。"}


def problem_response(request: Request, problems: list, status: int = 422) -> JSONResponse:
    lang = request_language(request)
    detail = [p.as_dict(lang) for p in problems]
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in detail)
    return JSONResponse(
        status_code=status,
        content={"error": "invalid_input", "message": f"{_INVALID[lang]} {summary}", "detail": detail},
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return problem_response(request, problems_from_errors(exc.errors()))

    @app.exception_handler(ValidationError)
    async def _inner_validation(request: Request, exc: ValidationError) -> JSONResponse:
        # A calculator built an inner request (e.g. recommend -> inference) from values that passed the
        # outer schema but not the inner one: still the caller's input, so 422 with the field named, not 500.
        log.warning("inner validation error in %s: %s", request.url.path, exc)
        return problem_response(request, problems_from_errors(exc.errors(), strip=()))

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        return problem_response(request, exc.problems)

    @app.exception_handler(RetrievalError)
    async def _retrieval(request: Request, exc: RetrievalError) -> JSONResponse:
        lang = request_language(request)
        message = "知识库索引暂不可用，请稍后再试。" if lang == "zh" else "The knowledge index is not available yet; try again shortly."
        log.warning("retrieval unavailable: %s", exc)
        return JSONResponse(status_code=503, content={"error": "index_unavailable", "message": message})
