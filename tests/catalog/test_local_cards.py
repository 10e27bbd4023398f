"""Cards users own or buy for local work (GeForce, workstation, China-market, previous generation): found by the
spellings users type, never confused with their neighbours, and with data-sheet figures in the catalog's conventions."""

from __future__ import annotations

import pytest

from service.catalog import default_catalog
from service.catalog.names import catalog_names, find_all


def _gpus(text: str) -> list[str]:
    return [g for g, _, _ in find_all(catalog_names(default_catalog()).gpu, text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3060 12G的卡能跑啥", ["rtx-3060"]),
        ("my RTX3060 12G", ["rtx-3060"]),
        ("rtx 4060 8gb laptop", ["rtx-4060"]),
        ("4060Ti 16G 够吗", ["rtx-4060-ti-16gb"]),
        ("a 4060 ti 8gb", ["rtx-4060-ti-8gb"]),
        ("RTX 4070 Ti Super", ["rtx-4070-ti-super"]),
        ("4080 or 4080 super", ["rtx-4080", "rtx-4080-super"]),
        ("4090 和 A6000 怎么选", ["rtx-4090", "rtx-a6000"]),
        ("RTX A6000 vs RTX 6000 Ada", ["rtx-a6000", "rtx-6000-ada"]),
        ("6000 Ada 48GB", ["rtx-6000-ada"]),
        ("an RTX A6000 Ada", ["rtx-6000-ada"]),  # the Ada card, however it is spelled, is not the Ampere A6000
        ("L20 还是 L40S", ["l20", "l40s"]),
        ("V100 32G 八卡", ["v100-32gb"]),
        ("Tesla V100 16GB", ["v100-16gb"]),
        ("8xV100", ["v100-32gb"]),
    ],
)
def test_local_cards_are_found_by_the_spellings_users_type(text, expected):
    assert _gpus(text) == expected


def test_neighbours_keep_their_own_names():
    assert _gpus("4090") == ["rtx-4090"] and _gpus("3090") == ["rtx-3090"]
    assert _gpus("L40S 48GB") == ["l40s"] and _gpus("A100 40G") == ["a100-40gb-sxm"]
    assert _gpus("model L200 and gpt4060") == []  # digits inside longer words are not cards


def test_figures_follow_the_catalog_conventions():
    gpus = default_catalog().gpus
    a6000, ada, l20, v100 = gpus["rtx-a6000"], gpus["rtx-6000-ada"], gpus["l20"], gpus["v100-32gb"]
    # Data sheets print sparse tensor peaks: dense is half (A6000: 309.7 FP16 sparse; 6000 Ada: 1,457 FP8 sparse).
    assert a6000.sparse_fp16_tflops == 309.7 and a6000.fp16_dense_tflops == pytest.approx(309.7 / 2, abs=0.1)
    assert ada.sparse_fp8_tflops == 2 * ada.fp8_dense_tflops == 1457
    assert (a6000.memory_gb, ada.memory_gb, l20.memory_gb) == (48, 48, 48)
    assert a6000.scale_up is not None and a6000.scale_up.max_gpus == 2  # NVLink bridge for a pair
    assert ada.scale_up is None and l20.scale_up is None
    assert not v100.supports_bf16 and v100.bf16_dense_tflops is None and v100.tf32_dense_tflops is None
    assert v100.scale_up is not None and v100.scale_up.bandwidth_gbps_bidir == 300
    assert {g.memory_gb for g in (gpus["rtx-3060"], gpus["rtx-4060"], gpus["rtx-4060-ti-16gb"])} == {12, 8, 16}
    for card in ("rtx-4060", "rtx-4060-ti-16gb", "rtx-4070-ti-super", "rtx-4080", "rtx-4080-super"):
        assert "P2P disabled" in (gpus[card].notes or ""), card
    assert "BF16" in (v100.notes or "") and l20.confidence == "low"
