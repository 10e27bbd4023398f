"""Check a search request before anything is embedded: every face (REST, CLI, pipeline) calls this.

Problems are collected, not raised one at a time, so a user sees everything
wrong with a request at once, in both languages, each naming its field.
"""

from __future__ import annotations

import unicodedata

from service.errors import InputError, Problem
from service.retrieval.documents import LANGUAGES, TOPICS

MAX_QUERY_CHARS = 2000
MAX_K = 50
_ALLOWED_CONTROLS = {"\n", "\t"}


def validate_query(query: str, k: int, language: str | None, *, topics: list[str] | None = None) -> None:
    """Raise InputError (HTTP 422, CLI exit 2) listing every problem with the request."""
    problems = _query_problems(query)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        problems.append(Problem("k", f"must be a whole number from 1 to {MAX_K}", f"必须是 1 到 {MAX_K} 之间的整数", f"1..{MAX_K}"))
    if language is not None and language not in LANGUAGES:
        problems.append(
            Problem(
                "lang",
                f"unsupported language '{language}': only Chinese (zh) and English (en) are supported",
                f"不支持的语言“{language}”：仅支持中文（zh）和英文（en）",
                ", ".join(LANGUAGES),
            )
        )
    for topic in topics or []:
        if topic not in TOPICS:
            problems.append(Problem("topic", f"unknown topic '{topic}'", f"未知的主题“{topic}”", ", ".join(TOPICS)))
    if problems:
        raise InputError(problems)


def _query_problems(query: str) -> list[Problem]:
    if not isinstance(query, str) or not query.strip():
        return [Problem("q", "must not be empty", "不能为空")]
    if len(query) > MAX_QUERY_CHARS:
        return [
            Problem(
                "q",
                f"is too long: {len(query)} characters, at most {MAX_QUERY_CHARS}",
                f"太长：{len(query)} 个字符，最多 {MAX_QUERY_CHARS} 个",
                f"<= {MAX_QUERY_CHARS} characters",
            )
        ]
    if any(unicodedata.category(ch) == "Cc" and ch not in _ALLOWED_CONTROLS for ch in query):
        return [Problem("q", "contains control characters", "包含控制字符", "text, newlines and tabs")]
    letters = [ch for ch in query if ch.isalpha()]
    if not letters and not any(ch.isdigit() for ch in query):
        return [Problem("q", "contains no words to search for", "没有可检索的文字")]
    supported = sum(1 for ch in letters if _is_latin(ch) or _is_han(ch))
    if letters and supported * 2 <= len(letters):
        return [
            Problem(
                "q",
                "is written in a language that is not supported: only Chinese and English are supported",
                "使用了不支持的语言：仅支持中文和英文",
                "Chinese, English",
            )
        ]
    return []


def _is_latin(ch: str) -> bool:
    return "LATIN" in unicodedata.name(ch, "")


def _is_han(ch: str) -> bool:
    code = ord(ch)
    return (
        0x3400 <= code <= 0x4DBF  # CJK Extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK Unified Ideographs
        or 0xF900 <= code <= 0xFAFF  # CJK Compatibility Ideographs
        or 0x20000 <= code <= 0x3134F  # Extensions B-G
    )
