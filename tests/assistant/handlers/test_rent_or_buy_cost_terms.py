"""Rent-or-buy answers name the cost terms an expert weighs (depreciation, power and cooling, operations, upfront capex
against flexibility and utilisation) with the values the break-even tool used; spot questions are not priced as a purchase."""

from __future__ import annotations

from tests.assistant.asking import ask


def _break_even(answer):
    return next(c for c in answer.tool_calls if c.tool == "break-even")


def _inputs(call) -> dict:
    return {i["name"]: i["value"] for i in call.output["work"]["inputs"]}


def test_the_break_even_names_each_cost_term_with_the_values_used(advisor) -> None:
    answer = ask(advisor, "Own or rent 16 H100s for our training team over the next three years, at 80% utilization?")
    used = _inputs(_break_even(answer))
    text = answer.answer
    for term in ("depreciation", "power and cooling", "PUE", "operations", "colocation", "upfront capex", "flexibility"):
        assert term in text, (term, text[:900])
    assert f"over {used['years']:g} years" in text
    assert f"PUE of {used['pue']:g}" in text


def test_a_user_given_tariff_shows_up_in_the_cost_terms(advisor) -> None:
    answer = ask(advisor, "Buy or rent 8 A100s at 70% utilization, power costs us $0.25 per kWh?")
    call = _break_even(answer)
    if call.input.get("power_price_kwh") == 0.25:  # the tariff was read: the sentence must use it, not the default
        assert "$0.25 per kWh" in answer.answer, answer.answer[:900]
    else:
        assert "$0.1 per kWh" in answer.answer, answer.answer[:900]


def test_the_chinese_break_even_names_the_terms_in_chinese(advisor) -> None:
    answer = ask(advisor, "年利用率70%，8卡H100自建还是租云更划算？")
    _break_even(answer)
    for term in ("折旧", "电费", "运维", "托管", "资本支出", "灵活"):
        assert term in answer.answer, (term, answer.answer[:900])
    assert "depreciation" not in answer.answer and "colocation" not in answer.answer


def test_buying_a_server_against_a_gpu_cloud_names_what_decides_it(advisor) -> None:
    answer = ask(advisor, "Early-stage company: purchase our own DGX or stick with a GPU cloud like RunPod?")
    text = answer.answer.lower()
    for term in ("utilization", "upfront", "capex", "flexibility"):
        assert term in text, (term, answer.answer[:900])


def test_a_spot_question_is_not_answered_with_a_purchase_break_even(advisor) -> None:
    answer = ask(advisor, "Renting spot GPUs for a two-day LLM fine-tune: silly idea or fine?")
    assert not any(c.tool == "break-even" for c in answer.tool_calls), answer.answer[:600]
    assert "checkpoint" in answer.answer.lower(), answer.answer[:900]


def test_a_card_no_cloud_lists_gets_the_deciding_terms_and_a_request_for_the_rate(advisor) -> None:
    answer = ask(advisor, "Should we lease or purchase an 8x H800 machine for this year's work?")
    call = _break_even(answer)
    if "error" not in call.output:  # the catalog gained an H800 rental: the usual break-even answers it
        assert "depreciation" in answer.answer
        return
    assert "per GPU-hour" in answer.blocks[0].text, answer.answer[:600]
    assert "utilization" in answer.answer and "capex" in answer.answer, answer.answer[:900]
