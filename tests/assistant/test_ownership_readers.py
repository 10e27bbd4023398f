"""The figures of an ownership decision read from the question: a purchase price, the depreciation years and the
running costs a month — and what is not one (a budget, an hourly rate)."""

from __future__ import annotations

import pytest

from service.assistant.ownership_readers import depreciation_years, purchase_price, running_cost_per_month


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("整机报价180万，要不要买", 1_800_000, "CNY"),
        ("an HGX server is quoted at $310k", 310_000, "USD"),
        ("the box costs $250,000 all in", 250_000, "USD"),
        ("采购价 95 万元一台 8 卡 A800", 950_000, "CNY"),
    ],
)
def test_a_price_of_the_hardware(text, value, currency) -> None:
    price = purchase_price(text)
    assert price is not None and price.value == pytest.approx(value) and price.currency == currency


@pytest.mark.parametrize("text", ["预算200万，买还是租", "we have a $300k budget for GPUs", "H100 rents for $2/hr", "每月电费2万"])
def test_what_is_not_a_purchase_price(text) -> None:
    assert purchase_price(text) is None


@pytest.mark.parametrize(
    ("text", "monthly"),
    [
        ("托管加电费每个月大概3万", 30_000),
        ("power and ops run about $5k a month", 5_000),
        ("colocation is $2,000/month", 2_000),
        ("运维人力每年24万", 20_000),  # a yearly figure, as a month's
    ],
)
def test_running_costs_a_month(text, monthly) -> None:
    cost = running_cost_per_month(text)
    assert cost is not None and cost.value == pytest.approx(monthly)


@pytest.mark.parametrize(("text", "years"), [("按五年折旧的话", 5), ("折旧期3年", 3), ("depreciated over 4 years", 4), ("a 3-year depreciation", 3)])
def test_depreciation_years(text, years) -> None:
    found = depreciation_years(text)
    assert found is not None and found[0] == years


def test_a_training_deadline_is_not_a_depreciation() -> None:
    assert depreciation_years("train it within 3 weeks") is None and depreciation_years("用三年的数据训练") is None


@pytest.mark.parametrize("text", ["power costs us $0.25 per kWh", "the card costs $2/hr to rent", "电费每度0.8元"])
def test_a_rate_is_not_a_purchase_price(text) -> None:
    assert purchase_price(text) is None



@pytest.mark.parametrize(
    ("text", "per_gpu"),
    [("buy at $25k per card", True), ("H100每张报价22万", True), ("the HGX server is quoted at $310k", False), ("buy at $25k, 3 years", False)],
)
def test_a_price_per_card_is_told_from_a_whole_purchase(text, per_gpu) -> None:
    assert purchase_price(text).per_gpu is per_gpu


@pytest.mark.parametrize(
    ("text", "years"), [("rent at $2/hr vs buy at $25k, 3 years", 3), ("a server costs $250,000, over the next five years", 5), ("买下来用三年划算吗", 3)]
)
def test_with_a_purchase_weighed_a_period_is_the_years_it_is_spread_over(text, years) -> None:
    assert depreciation_years(text)[0] == years


def test_a_tariff_is_not_a_months_running_cost() -> None:
    assert running_cost_per_month("64张H100一年电费多少，电价0.6元/度") is None
    assert running_cost_per_month("electricity is $0.12 per kWh") is None
