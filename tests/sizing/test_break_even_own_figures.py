"""A break-even with the owner's own figures: the quoted price of the whole purchase, the depreciation period and the
running costs a month replace the tool's defaults, each converted once when quoted in yuan."""

from __future__ import annotations

import pytest

HOURS_PER_YEAR = 8760


def test_own_price_years_and_running_costs_replace_the_defaults(size) -> None:
    r = size("break-even", gpu="h100-sxm", gpus=8, utilization=0.6, capex_total=280_000, years=3, opex_per_month=4_000, cloud_price_per_gpu_hour=2.5)
    assert r.capex == pytest.approx(280_000)
    assert r.onprem_yearly_cost == pytest.approx(280_000 / 3 + 12 * 4_000, rel=1e-3)
    assert r.cloud_yearly_cost == pytest.approx(2.5 * 8 * HOURS_PER_YEAR * 0.6, rel=1e-3)
    # On-demand cloud bills used hours; the owner's costs are fixed: break-even where they meet.
    assert r.break_even_utilization == pytest.approx((280_000 / 3 + 48_000) / (2.5 * 8 * HOURS_PER_YEAR), rel=1e-2)
    inputs = {i.name: i for i in r.work.inputs}
    assert {"capex_total", "opex_per_month"} <= inputs.keys() and inputs["years"].provenance == "user"
    assert not {"power_price_kwh", "pue", "ops_fraction", "capex_per_gpu"} & inputs.keys()  # the estimates it replaced are gone
    assert "capex_assumed" not in {w.code for w in r.work.warnings}


def test_yuan_figures_are_converted_once(size) -> None:
    fx = 7.0
    r = size(
        "break-even",
        gpu="h100-sxm",
        gpus=8,
        utilization=0.7,
        capex_total=2_100_000,
        capex_currency="CNY",
        opex_per_month=14_000,
        opex_currency="CNY",
        years=3,
        cloud_price_per_gpu_hour=14,
        cloud_price_currency="CNY",
        currency="CNY",
        fx_cny_per_usd=fx,
    )
    assert r.capex == pytest.approx(2_100_000, rel=1e-3)
    assert r.onprem_yearly_cost == pytest.approx(2_100_000 / 3 + 12 * 14_000, rel=1e-3)
    steps = {s.name for s in r.work.steps}
    assert {"onprem.capex", "opex_per_month_usd", "cloud_price_per_gpu_hour_usd"} <= steps


def test_without_own_running_costs_the_power_estimate_stays(size) -> None:
    r = size("break-even", gpu="h100-sxm", gpus=8, utilization=0.6, capex_total=280_000, cloud_price_per_gpu_hour=2.5)
    assert any(s.name == "onprem.energy_per_year" for s in r.work.steps)
    assert r.onprem_yearly_cost > 280_000 / 4 + 0.1 * 280_000  # depreciation over the default 4 years + ops + energy
