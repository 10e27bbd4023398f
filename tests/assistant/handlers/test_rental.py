"""Rental bills for a period on a named platform (handlers/rental.py)."""

from __future__ import annotations

from service.assistant.handlers.rental import hours_a_day, period_days, platform_in
from tests.assistant.asking import ask


def test_periods_duty_cycles_and_platforms_are_read() -> None:
    assert period_days("for a month, 10 hours a day") == 30
    assert hours_a_day("for a month, 10 hours a day") == 10
    assert period_days("租 3 个月") == 90 and period_days("一年") == 365
    assert hours_a_day("每天 8 小时") == 8
    assert platform_in("on AutoDL") == ("AutoDL", None)
    assert platform_in("腾讯云上") == ("Tencent Cloud", "tencent")


def test_a_platform_outside_the_catalog_is_echoed_and_priced_by_a_stated_assumption(advisor) -> None:
    answer = ask(advisor, "If we rent 4 H100 on AutoDL for 3 months at 12 hours a day, what's the bill?")
    assert "AutoDL" in answer.blocks[0].text
    hours = next(c for c in answer.tool_calls if c.tool == "rental-hours")
    assert hours.output["gpu_hours"] == 4 * 12 * 90
    assert "4,320 GPU-hours" in answer.answer
    assert any(b.type == "notice" and "not in the catalog" in b.text for b in answer.blocks)


def test_a_listed_provider_uses_its_own_price(advisor) -> None:
    answer = ask(advisor, "在阿里云上租 8 张 A100 80GB 两周，每天 24 小时，多少钱？")
    cost = next(c for c in answer.tool_calls if c.tool == "cost")
    assert cost.input.get("provider") == "alibaba"
    assert "目录" in answer.answer and "alibaba" in answer.answer


def test_a_follow_up_rents_the_configuration_just_recommended(advisor) -> None:
    answer = ask(advisor, "Recommend 8x H100 for Llama 3 70B LoRA fine-tuning", "and renting that on RunPod for two weeks, 6 hours a day?")
    hours = next(c for c in answer.tool_calls if c.tool == "rental-hours")
    assert hours.input == {"gpus": 8, "hours_per_day": 6.0, "days": 14.0}
    assert "RunPod" in answer.blocks[0].text


def test_every_platform_with_a_provider_id_has_prices_in_the_catalog() -> None:
    from service.assistant.handlers.rental import _platforms
    from service.catalog import default_catalog

    providers = {i.provider for i in default_catalog().instances.values()}
    listed = [provider for _, _, provider in _platforms() if provider is not None]
    assert listed and set(listed) <= providers, set(listed) - providers
