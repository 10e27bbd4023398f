"""Bursty demand (a small baseline, large peaks): own the baseline, rent the peak, each half priced by the break-even
tool at its own utilisation; a usage change after a rent-or-buy answer re-runs the break-even. Questions written for
these tests."""

from __future__ import annotations

from service.assistant.handlers.burst import counts
from tests.assistant.asking import ask


def _break_evens(answer) -> list:
    return [c for c in answer.tool_calls if c.tool == "break-even"]


def test_a_baseline_and_a_peak_get_a_hybrid_plan_priced_in_two_halves(advisor) -> None:
    answer = ask(advisor, "most months 24 A100s are plenty but every quarter-end we need about 160, buy or rent?")
    assert answer.intent == "cloud_vs_onprem"
    baseline, peak = _break_evens(answer)
    assert baseline.input["gpus"] == 24 and peak.input["gpus"] == 160 - 24
    assert baseline.input["utilization"] > peak.input["utilization"]
    assert "hybrid" in answer.answer.lower()
    assert baseline.output["cheaper"] == "on-prem" and peak.output["cheaper"] == "cloud"


def test_the_chinese_plan_reads_vague_counts_and_says_hybrid_in_chinese(advisor) -> None:
    answer = ask(advisor, "平常二十几张卡够用，年底旺季要几百张，算力怎么规划")
    assert answer.intent == "cloud_vs_onprem"
    assert [c.input["gpus"] for c in _break_evens(answer)] == [25, 275]
    assert "混合" in answer.answer and "弹性" in answer.answer


def test_counts_take_units_vague_words_and_a_bare_second_count() -> None:
    assert counts("we run 12 gpus normally and 96 at month-end") == [12, 96]
    assert counts("平时十几张卡，月底上百张") == [15, 100]
    assert counts("about 16 H100s but 128 during crunch time") == [16, 128]
    assert counts("we need 64 gpus for 3 days") == [64]  # days are not a count


def test_a_new_usage_after_a_break_even_re_runs_it(advisor) -> None:
    answer = ask(advisor, "should we buy or rent 8 H100s, they're busy maybe 30% of the year", "new contract: now they will run 24/7 for three years")
    assert answer.intent == "cloud_vs_onprem"
    (call,) = _break_evens(answer)
    assert call.input["utilization"] == 1.0 and call.input["gpus"] == 8
