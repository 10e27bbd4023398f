"""Numeric grounding: every figure must trace to a tool output or a cited chunk."""

import pytest

from service.assistant.grounding import answer_numbers, check
from service.catalog import default_catalog


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


TOOL = {"hours": {"typical": 9510.0}, "mfu": {"typical": 0.4}, "per_gpu": {"total_gib": 60.07}, "kv_bytes_per_token": 327680.0, "tokens": 1.5e13}


@pytest.mark.parametrize("answer", [
    "约需 396 天", "about 9,510 hours", "MFU 40%", "每卡 60.1 GiB", "每 token KV 缓存 320 KiB", "15 万亿 token", "15T tokens",
    "about 1.09 years",
])
def test_converted_and_rounded_figures_are_grounded(catalog, answer):
    checked, ungrounded = check(answer, catalog, [TOOL], [])
    assert checked >= 1 and ungrounded == []


def test_an_invented_figure_is_caught(catalog):
    checked, ungrounded = check("It needs 987.6 GPUs and 396 days.", catalog, [TOOL], [])
    assert ungrounded == ["987.6"]


def test_numbers_from_cited_chunks_count(catalog):
    chunk = "Meta reports 6.4M H100 GPU-hours for Llama 3 70B."
    assert check("Meta used 6.4M GPU-hours [1].", catalog, [], [chunk])[1] == []
    assert check("Meta used 7.4M GPU-hours [1].", catalog, [], [chunk])[1] == ["7.4M"]


def test_names_markers_code_and_chinese_numerals_are_not_figures(catalog):
    text = ("1. Llama 3 70B on H100 SXM with ZeRO-3 and bf16 [2]\n"
            "```bash\nall_reduce_perf -b 8 -e 8G -f 2 -g 8\n```\n`p5.48xlarge` 一张卡 两次 https://arxiv.org/abs/2407.21783")
    assert answer_numbers(text, catalog) == []


def test_the_2_4_sparsity_pattern_is_a_name_not_a_figure(catalog):
    figures = [w for w, _, _ in answer_numbers("数据手册常印 2:4 稀疏下的数字；FP16 2:4 sparse peak 1,979 TFLOPS", catalog)]
    assert figures == ["1,979"]


@pytest.mark.parametrize("line", ["- … 73 more steps in the tool output", "- ……其余 73 步见工具输出"])
def test_the_renderers_fold_count_is_not_a_figure_but_a_figure_beside_it_is(catalog, line):
    assert check(line, catalog, [TOOL], []) == (0, [])
    assert check(f"{line}; about 77 hours", catalog, [TOOL], [])[1] == ["77"]
