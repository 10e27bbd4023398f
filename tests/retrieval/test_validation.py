"""validate_query: bilingual, field-named problems before anything is embedded."""

from __future__ import annotations

import pytest

from service.errors import InputError
from service.retrieval import validate_query


@pytest.mark.parametrize(
    "query",
    [
        "H100 SXM 的显存带宽是多少？",
        "how much memory does an L40S have",
        "70B模型用LoRA微调需要几张A100 80G？",
        "Adam β1 and β2 for LoRA",  # a few Greek letters inside English are fine
        "80",
        "line one\n\tline two",
    ],
)
def test_supported_queries_pass(query: str) -> None:
    validate_query(query, 5, None)


@pytest.mark.parametrize(
    ("query", "en", "zh"),
    [
        ("", "must not be empty", "不能为空"),
        ("   \n\t ", "must not be empty", "不能为空"),
        ("x" * 2001, "too long: 2001 characters", "太长"),
        ("H100\x00 memory", "control characters", "控制字符"),
        ("H100\x1b[31m", "control characters", "控制字符"),
        ("???!!!", "no words", "没有可检索的文字"),
        ("Какая память у H100?", "only Chinese and English are supported", "仅支持中文和英文"),
        ("ما هي ذاكرة H100", "only Chinese and English are supported", "仅支持中文和英文"),
        ("หน่วยความจำของ H100", "only Chinese and English are supported", "仅支持中文和英文"),
        ("メモリはどれくらい", "only Chinese and English are supported", "仅支持中文和英文"),
    ],
)
def test_bad_queries_name_the_field_in_both_languages(query: str, en: str, zh: str) -> None:
    with pytest.raises(InputError) as caught:
        validate_query(query, 5, None)
    [problem] = caught.value.problems
    assert problem.field == "q"
    assert en in problem.en
    assert zh in problem.zh


def test_a_100_kb_query_is_refused_by_length() -> None:
    with pytest.raises(InputError, match="at most 2000"):
        validate_query("显存" * 51_200, 5, None)


@pytest.mark.parametrize("k", [0, -1, 51, 10_000])
def test_k_outside_1_to_50(k: int) -> None:
    with pytest.raises(InputError) as caught:
        validate_query("memory", k, None)
    assert [p.field for p in caught.value.problems] == ["k"]
    assert "1 到 50" in caught.value.problems[0].zh


def test_unsupported_language_and_topic_and_all_problems_at_once() -> None:
    with pytest.raises(InputError) as caught:
        validate_query("", 0, "fr", topics=["memory", "astrology"])
    fields = [p.field for p in caught.value.problems]
    assert fields == ["q", "k", "lang", "topic"]
    assert "only Chinese (zh) and English (en)" in caught.value.problems[2].en
    assert "仅支持中文（zh）和英文（en）" in caught.value.problems[2].zh
    assert "astrology" in caught.value.problems[3].en


def test_known_languages_and_topics_pass() -> None:
    validate_query("memory", 1, "zh", topics=["memory", "hardware"])
    validate_query("memory", 50, "en")
