"""The compute-optimal (Chinchilla) model for GPUs × time (service/sizing/compute_optimal.py)."""

from __future__ import annotations

import math

import pytest

from service.errors import InputError
from service.sizing import get_tool


def run(catalog, **payload):
    return get_tool("compute-optimal")(payload, catalog)


def test_budget_is_gpus_times_peak_times_mfu_and_the_model_is_its_square_root(catalog) -> None:
    r = run(catalog, gpu="h100-sxm", gpus=512, hours=720)
    peak = catalog.gpu("h100-sxm").bf16_dense_tflops * 1e12
    expected = 512 * peak * r.mfu.typical * r.goodput * 720 * 3600
    assert r.flops.typical == pytest.approx(expected, rel=1e-3)
    assert r.params_b.typical == pytest.approx(math.sqrt(expected / 120) / 1e9, rel=1e-3)
    assert r.tokens.typical == pytest.approx(20 * r.params_b.typical * 1e9, rel=1e-3)
    # 512 H100s for a month: a model of roughly 55-75B parameters, as published Chinchilla tables put it.
    assert 50 < r.params_b.low < r.params_b.typical < r.params_b.high < 80


def test_quadrupling_the_compute_doubles_the_model(catalog) -> None:
    one = run(catalog, gpu="h100-sxm", gpus=256, hours=720, mfu=0.4)
    four = run(catalog, gpu="h100-sxm", gpus=1024, hours=720, mfu=0.4)
    assert four.params_b.typical == pytest.approx(2 * one.params_b.typical, rel=0.05)  # goodput differs slightly with scale


def test_more_tokens_per_parameter_means_a_smaller_model(catalog) -> None:
    chinchilla = run(catalog, gpu="a100-80gb-sxm", gpus=64, hours=24 * 30)
    overtrained = run(catalog, gpu="a100-80gb-sxm", gpus=64, hours=24 * 30, tokens_per_param=200)
    assert overtrained.params_b.typical < chinchilla.params_b.typical / 3


def test_the_work_shows_the_formula_and_cites_chinchilla(catalog) -> None:
    r = run(catalog, gpu="h100-sxm", gpus=64, hours=168)
    assert any("Chinchilla" in c.title for c in r.work.sources)
    assert any(s.name == "params_b.typical" for s in r.work.steps)


def test_bad_input_names_the_field(catalog) -> None:
    with pytest.raises(InputError) as err:
        run(catalog, gpu="h100-sxm", gpus=0, hours=10)
    assert "gpus" in err.value.message("en")
