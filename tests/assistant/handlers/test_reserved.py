"""Reserved / committed-use against on-demand: answered with the reserved-vs-on-demand tool at the user's stated usage (not the
rent-vs-buy capex break-even), leading with the verdict and the break-even utilisation; a follow-up that changes only the usage
re-runs it; a buy-or-rent question still gets the capex break-even."""

from __future__ import annotations

import re

from service.assistant.handlers.reserved import discount, term_years
from service.sizing.work import sig
from tests.assistant.asking import ask, lead

TOOL = "reserved-vs-on-demand"
LATIN_WORDS = re.compile(r"[A-Za-z]{4,}")


def _call(answer):
    calls = [c for c in answer.tool_calls if c.tool == TOOL]
    assert calls, (answer.intent, [c.tool for c in answer.tool_calls], answer.answer[:600])
    return calls[-1]


def _pct(value: float) -> str:
    return f"{sig(value * 100, 2):g}%"


def test_an_english_question_gets_the_verdict_at_its_usage_and_the_break_even(advisor) -> None:
    answer = ask(advisor, "Is a 1-year reserved H100 worth it vs on-demand? Our usage is around 45%.")
    assert answer.intent == "cloud_vs_onprem"
    call = _call(answer)
    assert call.input["utilization"] == 0.45 and call.input["gpu"] == "h100-sxm"
    out = call.output
    assert not any(c.tool == "break-even" for c in answer.tool_calls)
    head = lead(answer)
    assert "At 45% utilization" in head and _pct(out["break_even_utilization"]) in head, head
    verdict = "on-demand is cheaper" if out["cheaper"] == "on-demand" else "reservation is cheaper"
    assert verdict in head, head
    assert "What to do" in answer.answer and "baseline" in answer.answer
    assert any("billing" in c.title.lower() for c in answer.citations), [c.title for c in answer.citations]


def test_a_chinese_question_with_a_discount_gets_the_tool_and_no_english_prose(advisor) -> None:
    answer = ask(advisor, "云上H100预留实例打6折，我们用了40%，值得吗？")
    call = _call(answer)
    assert call.input["utilization"] == 0.4 and call.input["discount"] == 0.4
    assert call.output["break_even_utilization"] == 0.6
    head = lead(answer)
    assert "40% 利用率" in head and "60%" in head and "按需付费比" in head, head
    prose = "\n".join(b.text for b in answer.blocks if b.type in ("lead", "paragraph") and getattr(b, "text", None))
    assert not LATIN_WORDS.search(re.sub(r"NVIDIA|SXM\d?|PCIe|[A-Z]\d+\w*", "", prose)), prose


def test_chinese_usage_words_are_read_as_the_utilization(advisor) -> None:
    answer = ask(advisor, "8卡A100，大概六成时间在跑，要不要买一年的预留实例？")
    call = _call(answer)
    assert call.input["utilization"] == 0.6 and call.input["gpus"] == 8 and call.input["term_years"] == 1
    answer = ask(advisor, "包年包月和按量付费哪个划算？GPU 平均只用了一半时间")
    assert _call(answer).input["utilization"] == 0.5
    assert "50% 利用率" in lead(answer)


def test_a_follow_up_that_changes_only_the_usage_reruns_it(advisor) -> None:
    answer = ask(advisor, "We use our GPUs about half the time. Should we sign a 3-year committed-use contract or stay pay-as-you-go?", "and at 80%?")
    call = _call(answer)
    assert call.input["utilization"] == 0.8 and call.input["term_years"] == 3
    assert "At 80% utilization" in lead(answer), lead(answer)
    answer = ask(advisor, "云上H100预留实例打6折，我们用了40%，值得吗？", "那如果用到八成呢")
    call = _call(answer)
    assert call.input["utilization"] == 0.8 and call.input["discount"] == 0.4
    assert call.output["cheaper"] == "reserved" and "80% 利用率" in lead(answer)


def test_rent_or_buy_still_gets_the_capex_break_even(advisor) -> None:
    answer = ask(advisor, "rent or buy 8 H100s")
    assert any(c.tool == "break-even" for c in answer.tool_calls)
    assert not any(c.tool == TOOL for c in answer.tool_calls)
    answer = ask(advisor, "Buy our own DGX or keep reserved cloud instances? We'd use them 70% of the time.")
    assert not any(c.tool == TOOL for c in answer.tool_calls), answer.answer[:400]


def test_a_gpu_util_reading_in_diagnostics_stays_one(advisor) -> None:
    answer = ask(advisor, "GPU 利用率只有 30%，怎么回事？")
    assert answer.intent == "diagnostics" and not any(c.tool == TOOL for c in answer.tool_calls)


def test_discounts_and_terms_as_written() -> None:
    assert discount("预留打6折") == 0.4 and discount("包年七五折") == 0.25 and discount("40% off for a year") == 0.4
    assert discount("discount of 30% on a 3-year plan") == 0.3 and discount("我们用了40%，省钱吗") is None
    assert term_years("3-year committed use") == 3 and term_years("签三年") == 3 and term_years("包年包月") == 1


def test_two_quoted_rates_are_told_apart() -> None:
    from service.assistant.handlers.reserved import quoted_prices

    assert quoted_prices("Reserved at $2.1/GPU-hr vs on-demand $3.5/GPU-hr") == {"reserved_price_per_gpu_hour": 2.1, "on_demand_price_per_gpu_hour": 3.5}
    assert quoted_prices("按需每卡时 28 元，包年每卡时 17 元") == {"on_demand_price_per_gpu_hour": 28.0, "reserved_price_per_gpu_hour": 17.0}
    assert quoted_prices("we pay $3/GPU-hr, is reserved worth it") == {"on_demand_price_per_gpu_hour": 3.0}


def test_a_usage_follow_up_keeps_the_rates_quoted_before(advisor) -> None:
    first = "1-year reserved L40S at $1.1/hr vs $1.8/hr on demand, we'd use them ~40% of the time"
    answer = ask(advisor, first, "what about at 85%?")
    run = [c for c in answer.tool_calls if c.tool == "reserved-vs-on-demand"][0]
    assert run.input["utilization"] == 0.85
    assert run.input.get("reserved_price_per_gpu_hour") == 1.1 and run.input.get("on_demand_price_per_gpu_hour") == 1.8


def test_a_restated_usage_is_read_from_what_is_left_after_the_filler_words() -> None:
    from service.assistant.usage_readers import usage_share

    assert usage_share("and at 80%?") == 0.8 and usage_share("那如果用到八成呢") == 0.8 and usage_share("六成的话呢") == 0.6
    assert usage_share("what if usage is 70%?") == 0.7
    # Long or blank text is not a restated usage (the earlier single pattern backtracked for seconds on such input).
    assert usage_share(" " * 40) is None and usage_share("H100 SXM vs H100 PCIe for training: is the SXM premium worth it?") is None
