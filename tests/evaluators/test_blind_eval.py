"""The blind-set scorer: keyword groups, numeric ranges with unit conversion, expectations."""

from __future__ import annotations

from types import SimpleNamespace

from evaluators.blind_eval import answer_text, judge_turn, numbers_in


def _answer(text: str, *, intent: str = "faq", clarification=None, tool_calls=(), recommendation=None):
    return SimpleNamespace(answer=text, intent=intent, clarification=clarification, tool_calls=list(tool_calls), recommendation=recommendation)


def test_numbers_convert_between_units_of_one_family() -> None:
    assert 1100.0 in numbers_in("the checkpoint is 1.1 TB", "GB")
    assert 3.35 in numbers_in("HBM3 at 3,350 GB/s", "TB/s")
    assert 33000.0 in numbers_in("约 3.3万美元", "USD")
    assert not any(abs(v - 400 / 8) < 1e-9 for v in numbers_in("400 Gb/s", "GB"))  # a rate is not a size


def test_an_answer_passes_when_every_group_and_range_is_met() -> None:
    turn = {"expect": "answer", "must": [["InfiniBand", "RDMA"], ["checkpoint", "检查点"]], "ranges": [{"min": 300, "max": 500, "unit": "days"}]}
    ok, problems = judge_turn(turn, _answer("Use InfiniBand and save a checkpoint hourly; about 1.1 years."))
    assert ok, problems
    ok, problems = judge_turn(turn, _answer("Use InfiniBand; about 1.1 years."))
    assert not ok and "checkpoint" in problems[0]


def test_sources_do_not_count_as_the_answer() -> None:
    text = "Short answer.\n\n**Sources**\n[1] InfiniBand guide"
    assert "InfiniBand" not in answer_text(text)
    ok, _ = judge_turn({"expect": "answer", "must": [["InfiniBand"]]}, _answer(text))
    assert not ok


def test_clarifications_and_refusals_are_judged_by_expectation() -> None:
    clarification = SimpleNamespace(question="Which model?")
    assert not judge_turn({"expect": "answer", "must": []}, _answer("Which model?", clarification=clarification))[0]
    assert judge_turn({"expect": "clarify"}, _answer("Which model?", clarification=clarification))[0]
    assert judge_turn({"expect": "refuse"}, _answer("Out of scope.", intent="out_of_scope"))[0]
    assert not judge_turn({"expect": "refuse"}, _answer("Here is a recipe", intent="faq"))[0]
    assert not judge_turn({"expect": "answer", "must": []}, _answer("Out of scope.", intent="out_of_scope"))[0]
