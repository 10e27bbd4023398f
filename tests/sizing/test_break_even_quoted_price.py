"""Break-even with the user's own rental rate, quoted in either currency."""

from __future__ import annotations

import pytest

from service.errors import InputError


def test_a_cny_rate_is_converted_once_and_reported_back_in_cny(size) -> None:
    fx = 7.0
    r = size(
        "break-even", gpu="a100-80gb-sxm", gpus=8, utilization=0.5, cloud_price_per_gpu_hour=10.5, cloud_price_currency="CNY", currency="CNY", fx_cny_per_usd=fx
    )
    assert r.cloud_price_per_gpu_hour == pytest.approx(10.5)
    assert r.cloud_yearly_cost == pytest.approx(10.5 * 8 * 8760 * 0.5, rel=1e-3)
    inputs = {i.name: i for i in r.work.inputs}
    assert inputs["cloud_price_per_gpu_hour"].provenance == "user" and inputs["cloud_price_per_gpu_hour"].value == 10.5
    assert "fx_cny_per_usd" in inputs
    usd = size("break-even", gpu="a100-80gb-sxm", gpus=8, utilization=0.5, cloud_price_per_gpu_hour=10.5 / fx, fx_cny_per_usd=fx)
    assert usd.cloud_yearly_cost == pytest.approx(r.cloud_yearly_cost / fx, rel=1e-3)  # the same rate in dollars


def test_the_rate_currency_is_closed(size) -> None:
    with pytest.raises(InputError) as info:
        size("break-even", gpu="h100-sxm", cloud_price_per_gpu_hour=2.0, cloud_price_currency="EUR")
    assert "cloud_price_currency" in info.value.problems[0].field
