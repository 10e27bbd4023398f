"""Turn pydantic validation errors into bilingual, field-named problems.

Shared by every face (REST, CLI, chat) so a bad value gets the same message everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from service.errors import Problem


class BilingualValueError(ValueError):
    """Raise from validators to give users a message in both languages."""

    def __init__(self, en: str, zh: str, allowed: str | None = None) -> None:
        super().__init__(en)
        self.en, self.zh, self.allowed = en, zh, allowed


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


_TEMPLATES: dict[str, tuple[str, str]] = {
    "missing": ("is required", "为必填项"),
    "extra_forbidden": ("is not a known field", "不是可识别的字段"),
    "greater_than": ("must be greater than {gt}", "必须大于 {gt}"),
    "greater_than_equal": ("must be at least {ge}", "必须不小于 {ge}"),
    "less_than": ("must be less than {lt}", "必须小于 {lt}"),
    "less_than_equal": ("must be at most {le}", "必须不大于 {le}"),
    "finite_number": ("must be a finite number (not NaN or infinity)", "必须是有限数值（不能是 NaN 或无穷大）"),
    "float_parsing": ("must be a number", "必须是数字"),
    "float_type": ("must be a number", "必须是数字"),
    "int_parsing": ("must be a whole number", "必须是整数"),
    "int_type": ("must be a whole number", "必须是整数"),
    "int_from_float": ("must be a whole number", "必须是整数"),
    "bool_parsing": ("must be true or false", "必须是 true 或 false"),
    "bool_type": ("must be true or false", "必须是 true 或 false"),
    "string_type": ("must be text", "必须是文本"),
    "string_too_short": ("is too short (at least {min_length} characters)", "太短（至少 {min_length} 个字符）"),
    "string_too_long": ("is too long (at most {max_length} characters)", "太长（最多 {max_length} 个字符）"),
    "string_pattern_mismatch": ("has an invalid format", "格式不正确"),
    "literal_error": ("must be one of {expected}", "必须是以下之一：{expected}"),
    "enum": ("must be one of {expected}", "必须是以下之一：{expected}"),
    "json_invalid": ("is not valid JSON", "不是有效的 JSON"),
    "model_attributes_type": ("must be a JSON object", "必须是 JSON 对象"),
    "dict_type": ("must be a JSON object", "必须是 JSON 对象"),
    "list_type": ("must be a list", "必须是列表"),
    "too_short": ("needs at least {min_length} items", "至少需要 {min_length} 项"),
    "too_long": ("allows at most {max_length} items", "最多允许 {max_length} 项"),
}

_ALLOWED = {
    "greater_than": "> {gt}",
    "greater_than_equal": ">= {ge}",
    "less_than": "< {lt}",
    "less_than_equal": "<= {le}",
    "literal_error": "{expected}",
    "enum": "{expected}",
    "finite_number": "a finite number",
}


def _field_name(loc: Iterable[Any], strip: Iterable[str]) -> str:
    parts = [str(p) for p in loc]
    strip_set = set(strip)
    while parts and parts[0] in strip_set:
        parts = parts[1:]
    return ".".join(parts) or "body"


def problems_from_errors(errors: Iterable[Mapping[str, Any]], *, strip: Iterable[str] = ("body", "query", "path")) -> list[Problem]:
    problems: list[Problem] = []
    for err in errors:
        # A JSON syntax error is located by byte offset; the field at fault is the body itself.
        field = "body" if err.get("type") == "json_invalid" else _field_name(err.get("loc", ()), strip)
        ctx = dict(err.get("ctx") or {})
        original = ctx.get("error")
        if isinstance(original, BilingualValueError):
            problems.append(Problem(field, original.en, original.zh, original.allowed))
            continue
        kind = err.get("type", "")
        params = {k: _fmt(v) for k, v in ctx.items() if k != "error"}
        if kind in ("greater_than", "less_than", "greater_than_equal", "less_than_equal"):
            value = err.get("input")
            if isinstance(value, float) and not math.isfinite(value):
                kind = "finite_number"
        if kind in _TEMPLATES:
            en, zh = _TEMPLATES[kind]
            try:
                en, zh = en.format(**params), zh.format(**params)
            except (KeyError, IndexError):
                pass
            allowed = _ALLOWED.get(kind)
            if allowed:
                try:
                    allowed = allowed.format(**params)
                except (KeyError, IndexError):
                    allowed = None
            problems.append(Problem(field, en, zh, allowed))
        else:
            message = str(err.get("msg", "is invalid"))
            message = message.removeprefix("Value error, ")
            problems.append(Problem(field, message, message))
    return problems
