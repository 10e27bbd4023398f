"""A run priced at the user's own rate: every instance at that rate, converted once when quoted in another currency."""

from __future__ import annotations

import pytest


def test_a_quoted_rate_replaces_the_catalog_prices(size) -> None:
    listed = size("cost", gpu_hours=1000, gpu="h100-sxm", gpus=8)
    quoted = size("cost", gpu_hours=1000, gpu="h100-sxm", gpus=8, cloud_price_per_gpu_hour=1.5)
    assert quoted.cheapest.total_cost == pytest.approx(1000 * 1.5)
    assert {o.price.price_basis for o in quoted.options} == {"quoted"}
    assert {o.price.price_per_gpu_hour for o in quoted.options} == {1.5}
    assert listed.cheapest.price.price_basis == "catalog" and listed.cheapest.total_cost != quoted.cheapest.total_cost
    inputs = {i.name: i for i in quoted.work.inputs}
    assert inputs["cloud_price_per_gpu_hour"].provenance == "user"


def test_a_yuan_rate_is_converted_into_the_result_currency(size) -> None:
    fx = 7.0
    r = size("cost", gpu_hours=800, gpu="a100-80gb-sxm", gpus=8, cloud_price_per_gpu_hour=14.0, cloud_price_currency="CNY", currency="USD",
             fx_cny_per_usd=fx)
    assert r.cheapest.price.price_per_gpu_hour == pytest.approx(2.0)
    assert r.cheapest.total_cost == pytest.approx(1600.0)
    assert any(step.name == "cloud_price_per_gpu_hour_converted" for step in r.work.steps)


def test_a_quoted_rate_prices_a_gpu_no_listed_instance_carries(size) -> None:
    # No catalog instance carries an RTX 4090; the user's rate alone prices the hours.
    assert size("cost", gpu_hours=1200, gpu="rtx-4090", gpus=4).cheapest is None
    r = size("cost", gpu_hours=1200, gpu="rtx-4090", gpus=4, cloud_price_per_gpu_hour=2.0, cloud_price_currency="CNY", currency="CNY")
    assert r.cheapest.total_cost == pytest.approx(2400.0)
    assert r.cheapest.price.price_basis == "quoted" and r.cheapest.instances == 4
