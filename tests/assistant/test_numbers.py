"""Numbers as people write them: 万/亿, K/M/B/T suffixes, Chinese numerals."""

import pytest

from service.assistant.numbers import cn_to_int, parse_number, quantities


@pytest.mark.parametrize(("text", "value"), [
    ("3000亿", 3e11), ("50万", 5e5), ("1.5万亿", 1.5e12), ("15T", 15e12), ("20k", 2e4), ("1.5e12", 1.5e12),
    ("1,024", 1024), ("两", 2), ("十", 10), ("二十五", 25), ("三百", 300), ("五十万", 5e5), ("8", 8),
])
def test_parse_number(text, value):
    assert parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "abc", "H100", "万", "1.2.3"])
def test_not_numbers(text):
    assert parse_number(text) is None


def test_cn_to_int_rejects_other_characters():
    assert cn_to_int("十天") is None
    assert cn_to_int("一百零五") == 105


def test_quantities_skip_digits_inside_names():
    found = [v for v, _, _ in quantities("64台8卡H100服务器10天 bf16 p5.48xlarge 396天")]
    assert found == [64, 8, 10, 396]


@pytest.mark.parametrize(("text", "value"), [("3千亿", 3e11), ("5百万", 5e6), ("2千万", 2e7), ("三千亿", 3e11)])
def test_an_arabic_digit_before_a_compound_unit(text, value) -> None:
    assert parse_number(text) == value
