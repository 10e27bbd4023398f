"""Spec cards: every figure in words with its unit, dense and sparse told apart, in both languages."""

from __future__ import annotations

from service.retrieval.cards import spec_cards
from service.retrieval.chunking import chunk_document
from tests.retrieval.conftest import small_catalog


def cards_by_key() -> dict[tuple[str, str], str]:
    return {(c.id, c.language): c.body for c in spec_cards(small_catalog())}


def test_a_card_per_gpu_and_instance_in_both_languages() -> None:
    cards = spec_cards(small_catalog())
    assert sorted((c.id, c.language) for c in cards) == [
        ("gpu-testgpu-x1", "en"),
        ("gpu-testgpu-x1", "zh"),
        ("instance-testcloud-x1.8xl", "en"),
        ("instance-testcloud-x1.8xl", "zh"),
    ]
    for card in cards:
        assert card.topics == ("hardware",)
        assert card.sources == ({"title": "Test data sheet", "url": "https://example.com/spec"},)
        assert card.kind == "card"
    titles = {(c.id, c.language): c.title for c in cards}
    assert titles[("gpu-testgpu-x1", "en")] == "NVIDIA TestGPU X1 specifications"
    assert titles[("gpu-testgpu-x1", "zh")] == "NVIDIA TestGPU X1 规格参数"


def test_gpu_card_spells_out_figures_with_units() -> None:
    en = cards_by_key()[("gpu-testgpu-x1", "en")]
    for phrase in (
        "96 GB of HBM3",
        "4000 GB/s (4 TB/s)",
        "FP16 tensor throughput, dense (no sparsity): 500 TFLOPS",
        "FP16 with 2:4 structured sparsity",
        "NVLink 4, 900 GB/s per GPU in both directions combined (450 GB/s each direction), up to 8 GPUs",
        "PCIe Gen 5, 64 GB/s each direction",
        "TDP (board power) 600 W",
        "also written X1",
        "x1.8xl (8 GPUs)",
        "## Memory",
    ):
        assert phrase in en, phrase
    zh = cards_by_key()[("gpu-testgpu-x1", "zh")]
    for phrase in ("显存容量：96 GB HBM3", "显存带宽：4000 GB/s", "（稠密，不含稀疏）：500 TFLOPS", "2:4 结构化稀疏", "600 W"):
        assert phrase in zh, phrase


def test_instance_card_totals_and_prices() -> None:
    en = cards_by_key()[("instance-testcloud-x1.8xl", "en")]
    assert "8 × NVIDIA TestGPU X1 GPUs (768 GB of GPU memory in total)" in en
    assert "80 USD/hour for the whole instance (10 USD per GPU-hour)" in en
    assert "3200 Gbit/s, InfiniBand RDMA" in en
    zh = cards_by_key()[("instance-testcloud-x1.8xl", "zh")]
    assert "配备 8 张 NVIDIA TestGPU X1 GPU（共 768 GB 显存）" in zh
    assert "每卡每小时 10 USD" in zh


def test_cards_chunk_like_documents() -> None:
    card = next(c for c in spec_cards(small_catalog()) if c.language == "zh" and c.id.startswith("gpu-"))
    chunks = chunk_document(card)
    assert chunks[0].id.startswith("gpu-testgpu-x1.zh#")
    assert all(c.kind == "card" and c.title == "NVIDIA TestGPU X1 规格参数" for c in chunks)
