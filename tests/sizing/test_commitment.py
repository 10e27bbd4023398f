"""Reserved (committed-use) against on-demand: the break-even utilisation is reserved ÷ on-demand, a reservation bills every
hour and on-demand only the hours used; bad inputs are refused naming the field."""

from __future__ import annotations

import pytest

from service.errors import InputError
from service.sizing.cost import HOURS_PER_YEAR, RESERVED_DISCOUNT


def test_quoted_prices_give_the_break_even_and_both_yearly_bills(size) -> None:
    r = size("reserved-vs-on-demand", on_demand_price_per_gpu_hour=4.0, reserved_price_per_gpu_hour=2.4, utilization=0.45, gpus=8, term_years=3)
    assert r.break_even_utilization == pytest.approx(0.6)
    assert r.on_demand_yearly_cost == pytest.approx(4.0 * 8 * HOURS_PER_YEAR * 0.45, rel=1e-3)
    assert r.reserved_yearly_cost == pytest.approx(2.4 * 8 * HOURS_PER_YEAR, rel=1e-3)
    assert r.cheaper == "on-demand"
    assert r.yearly_saving == pytest.approx((2.4 - 4.0 * 0.45) * 8 * HOURS_PER_YEAR, rel=1e-3)
    assert r.term_saving == pytest.approx(3 * r.yearly_saving, rel=1e-3)
    assert r.reserved_term_commitment == pytest.approx(3 * r.reserved_yearly_cost, rel=1e-3)
    assert r.reserved_price_per_used_gpu_hour == pytest.approx(2.4 / 0.45, rel=1e-3)
    assert r.discount == pytest.approx(0.4)
    steps = {s.name: s for s in r.work.steps}
    assert steps["break_even_utilization"].formula == "reserved ÷ on_demand"
    assert "8760" in steps["reserved.yearly"].formula and "utilization" in steps["on_demand.yearly"].formula


def test_above_the_break_even_the_reservation_wins(size) -> None:
    r = size("reserved-vs-on-demand", on_demand_price_per_gpu_hour=4.0, reserved_price_per_gpu_hour=2.4, utilization=0.8)
    assert r.cheaper == "reserved"
    assert r.yearly_saving == pytest.approx((4.0 * 0.8 - 2.4) * HOURS_PER_YEAR, rel=1e-3)
    assert r.gpus == 1 and r.term_years == 1


def test_a_discount_is_applied_to_the_on_demand_price(size) -> None:
    r = size("reserved-vs-on-demand", on_demand_price_per_gpu_hour=10.0, discount=0.4, utilization=0.5)
    assert r.reserved_price_per_gpu_hour == pytest.approx(6.0)
    assert r.break_even_utilization == pytest.approx(0.6)
    assert {i.name: i.provenance for i in r.work.inputs}["discount"] == "user"


def test_catalog_prices_for_a_gpu_with_the_default_discount_stated(size, catalog) -> None:
    r = size("reserved-vs-on-demand", gpu="H100", utilization=0.45, gpus=8)
    cheapest = min((i for i in catalog.instances.values() if i.gpu == "h100-sxm"), key=lambda i: i.price.on_demand_per_hour / i.gpu_count)
    assert r.price_source.instance == cheapest.id
    inputs = {i.name: i for i in r.work.inputs}
    assert inputs["on_demand_price_per_gpu_hour"].provenance == "catalog"
    if cheapest.price.reserved_1y_per_hour is None:
        assert r.break_even_utilization == pytest.approx(1 - RESERVED_DISCOUNT, abs=2e-3)
        assert any("35%" in a.en for a in r.work.assumptions)


def test_a_cny_quote_is_converted_for_a_usd_result(size) -> None:
    r = size("reserved-vs-on-demand", on_demand_price_per_gpu_hour=28.4, reserved_price_per_gpu_hour=17.04, price_currency="CNY", currency="USD",
             fx_cny_per_usd=7.1, utilization=0.5)
    assert r.on_demand_price_per_gpu_hour == pytest.approx(4.0, rel=1e-3)
    assert r.break_even_utilization == pytest.approx(0.6, rel=1e-3)


def test_a_reserved_rate_at_or_above_on_demand_never_pays(size) -> None:
    r = size("reserved-vs-on-demand", on_demand_price_per_gpu_hour=2.0, reserved_price_per_gpu_hour=2.5, utilization=1.0)
    assert not r.reservation_can_pay and r.cheaper == "on-demand"
    assert any(w.code == "reserved_not_cheaper" for w in r.work.warnings)


@pytest.mark.parametrize(("payload", "field"), [
    ({"on_demand_price_per_gpu_hour": 4.0, "utilization": 0}, "utilization"),
    ({"on_demand_price_per_gpu_hour": 4.0, "utilization": 1.2}, "utilization"),
    ({"on_demand_price_per_gpu_hour": 0, "utilization": 0.5}, "on_demand_price_per_gpu_hour"),
    ({"on_demand_price_per_gpu_hour": 4.0, "reserved_price_per_gpu_hour": -1, "utilization": 0.5}, "reserved_price_per_gpu_hour"),
    ({"on_demand_price_per_gpu_hour": 4.0, "discount": 1.0, "utilization": 0.5}, "discount"),
    ({"on_demand_price_per_gpu_hour": 4.0, "discount": -0.1, "utilization": 0.5}, "discount"),
    ({"on_demand_price_per_gpu_hour": 4.0, "discount": 0.3, "reserved_price_per_gpu_hour": 2.0, "utilization": 0.5}, "discount"),
    ({"utilization": 0.5}, "on_demand_price_per_gpu_hour"),
    ({"on_demand_price_per_gpu_hour": 4.0}, "utilization"),
])
def test_bad_inputs_are_refused_naming_the_field(size, payload, field) -> None:
    with pytest.raises(InputError) as info:
        size("reserved-vs-on-demand", **payload)
    assert any(field in p.field for p in info.value.problems), info.value.problems
