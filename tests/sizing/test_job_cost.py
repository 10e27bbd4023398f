"""Cost per job: options ranked by the whole job's price (validated time × GPUs × dated price), not by price per hour."""

from __future__ import annotations

import pytest

from service.errors import InputError
from service.sizing.job_cost import STEP_TIME_BAND

LAYOUT = {"tp": 8, "pp": 2, "global_batch": 512}


def test_a_gpu_cheaper_per_hour_loses_on_cost_per_job(size) -> None:
    # Lambda's 8x A100 80GB rents for $2.79/GPU-h, its 8x H100 for $3.99; the H100 trains a 70B model ~3x faster.
    r = size("cost", model="llama-2-70b", tokens=1e11, gpus=64, provider="lambda", min_gpu_memory_gib=80)
    by_gpu = {o.price.gpu: o for o in r.options}
    a100, h100 = by_gpu["a100-80gb-sxm"], by_gpu["h100-sxm"]
    assert a100.price.price_per_gpu_hour < h100.price.price_per_gpu_hour
    assert h100.total_cost < a100.total_cost
    order = [o.price.gpu for o in r.options]
    assert order.index("h100-sxm") < order.index("a100-80gb-sxm")


def test_on_a_stated_layout_the_fabric_decides_the_job_cost(size) -> None:
    # The same 64 H100s: Lambda's instance is 42% cheaper per hour but has a 10 Gb/s network and no RDMA, so pipeline and
    # data-parallel traffic crawl; AWS p5's EFA finishes the job for far less. The step-time model sees the difference.
    r = size("cost", model="llama-2-70b", tokens=1e11, gpus=64, gpu="h100-sxm", layout=LAYOUT)
    by = {o.price.instance: o for o in r.options}
    lam, p5 = by["lambda-gpu-8x-h100-sxm5"], by["aws-p5.48xlarge"]
    assert lam.price.price_per_gpu_hour < p5.price.price_per_gpu_hour
    assert {lam.time_basis, p5.time_basis} == {"step-time"}
    assert p5.hours < lam.hours and p5.total_cost < lam.total_cost
    assert r.options[0].price.instance == "aws-p5.48xlarge"
    # The band is the step-time model's held-out error.
    assert p5.hours_band.high == pytest.approx(p5.hours * (1 + STEP_TIME_BAND), rel=1e-3)
    steps = {s.name for s in r.work.steps}
    assert "step_time.aws-p5.48xlarge.step_s" in steps and "job_hours.aws-p5.48xlarge" in steps


def test_every_option_names_its_price_date_and_source_and_its_cost_band(size) -> None:
    r = size("cost", model="llama-3-8b", tokens=1e10, gpus=8)
    inputs = {i.name: i for i in r.work.inputs}
    steps = {s.name: s.value for s in r.work.steps}
    for o in r.options:
        assert o.time_basis == "mfu-band"
        assert o.cost.low < o.total_cost == o.cost.typical < o.cost.high
        price = inputs[f"price.{o.price.instance}.on-demand"]
        assert price.provenance == "catalog" and o.price.as_of in price.source and o.price.source_url in price.source
        assert steps[f"job_cost.{o.price.instance}.on-demand"] == pytest.approx(o.total_cost, rel=1e-4)
        assert steps[f"job_cost.{o.price.instance}.on-demand.high"] == pytest.approx(o.cost.high, rel=1e-4)


def test_spot_rows_stand_beside_on_demand_only_where_the_catalog_lists_them(size, catalog) -> None:
    r = size("cost", model="llama-3-8b", tokens=1e10, gpus=8, gpu="h100-sxm")
    for o in r.options:
        inst = catalog.instances[o.price.instance]
        spot = [p for p in o.other_pricing if p.price.pricing == "spot"]
        assert bool(spot) == (inst.price.spot_per_hour is not None)
        for row in spot:
            assert row.price.price_basis == "catalog"
            assert row.cost.typical == pytest.approx(row.instances * row.price.price_per_hour * o.hours, rel=1e-3)
    # The catalog lists no reserved prices: no reserved row, and the work says why.
    assert not any(p.price.pricing == "reserved" for o in r.options for p in o.other_pricing)
    assert "no_reserved_prices" in {a.code for a in r.work.assumptions}


def test_a_layout_must_divide_the_gpus(size) -> None:
    with pytest.raises(InputError):
        size("cost", model="llama-2-70b", tokens=1e9, gpus=12, layout={"tp": 8})


def test_the_recommendation_ranks_every_gpu_type_by_cost_per_job(size) -> None:
    r = size("recommend", model="llama-2-70b", tokens=2e11, task="pretrain")
    costs = [j.cost.typical for j in r.ranking]
    assert len(costs) >= 3 and costs == sorted(costs)
    assert min(o.cost.typical for o in [r.recommended, *r.alternatives]) == pytest.approx(costs[0], rel=1e-3)  # "cheapest" is per job
    per_hour = {j.gpu: j.prices[0].price.price_per_gpu_hour for j in r.ranking}
    # Ranked by the job, not the hour: some faster GPU type that costs more per hour comes out ahead of a cheaper one.
    ranked = [j.gpu for j in r.ranking]
    assert any(per_hour[a] > per_hour[b] for i, a in enumerate(ranked) for b in ranked[i + 1:])
    assert all(j.time_basis == "mfu-band" for j in r.ranking)


def test_a_stated_layout_times_the_recommendation_with_the_step_time_model(size) -> None:
    r = size("recommend", model="llama-2-70b", tokens=2e11, task="pretrain", layout=LAYOUT)
    assert {j.time_basis for j in r.ranking} == {"step-time"}
    assert all(j.gpus % 16 == 0 for j in r.ranking)
    assert r.recommended.hours.high == pytest.approx(r.recommended.hours.typical * (1 + STEP_TIME_BAND), rel=1e-3)
    # Spot rows come from the same instance the time was computed on (another instance has other links).
    for j in r.ranking:
        assert len({p.price.instance for p in j.prices}) == 1
