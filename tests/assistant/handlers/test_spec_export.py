"""A spec question about an export variant's NVLink also gives the original card's link, for contrast (handlers/spec.py)."""

from __future__ import annotations

from service.assistant.spec_facts import export_pair, full_counterpart
from service.catalog import default_catalog
from tests.assistant.asking import ask

CATALOG = default_catalog()


def test_export_variants_are_paired_with_the_card_they_derive_from() -> None:
    assert full_counterpart(CATALOG.gpus["h800"], CATALOG).id == "h100-sxm"
    assert full_counterpart(CATALOG.gpus["a800"], CATALOG).id == "a100-80gb-sxm"
    assert full_counterpart(CATALOG.gpus["h100-sxm"], CATALOG) is None
    variant, base = export_pair(["l40s", "a800"], CATALOG)
    assert (variant.id, base.id) == ("a800", "a100-80gb-sxm")


def test_the_nvlink_of_an_export_card_is_contrasted_with_the_original(advisor) -> None:
    answer = ask(advisor, "H800 卡间互联带宽有多大？")
    assert answer.intent == "spec"
    contrast = next(b.text for b in answer.blocks if b.type == "paragraph" and "NVIDIA H100 SXM5 80GB" in b.text)
    assert "900 GB/s" in contrast and "400 GB/s" in contrast and "算力相同" in contrast


def test_no_contrast_when_the_original_is_already_asked_about(advisor) -> None:
    answer = ask(advisor, "What is the NVLink bandwidth of the H800 and of the H100?")
    assert not any(b.type == "paragraph" and b.text.startswith("For contrast") for b in answer.blocks)
