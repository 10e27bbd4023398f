"""The catalog expansion: names users paste (Hugging Face repo ids, local paths, nvidia-smi names) resolve to the right entry
and to no neighbour, pre-Ampere cards are told apart, and the new architectures add up to their published sizes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from service.catalog import Catalog, default_catalog, load_catalog
from service.catalog.models import PRE_AMPERE_ARCHITECTURES
from service.catalog.names import catalog_names, find_all
from service.errors import CatalogError
from service.retrieval.cards import spec_cards
from service.sizing import get_tool

HARDWARE_DIR = Path(__file__).resolve().parents[2] / "knowledge" / "hardware"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(HARDWARE_DIR)


# --------------------------------------------------------------------------- model names users paste


@pytest.mark.parametrize(
    ("spelling", "model_id"),
    [
        # Hugging Face repo ids: the organisation prefix is not a family ("Qwen/" is not Qwen v1).
        ("Qwen/Qwen1.5-14B-Chat", "qwen1.5-14b"), ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"), ("THUDM/chatglm3-6b", "chatglm3-6b"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"), ("meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "deepseek-r1-distill-qwen-14b"), ("google/gemma-3-27b-it", "gemma-3-27b"),
        ("mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"), ("internlm/internlm2_5-7b-chat", "internlm2.5-7b"),
        ("01-ai/Yi-1.5-34B-Chat", "yi-1.5-34b"), ("baichuan-inc/Baichuan2-7B-Chat", "baichuan2-7b"), ("microsoft/phi-4", "phi-4"),
        ("tiiuae/falcon-40b", "falcon-40b"), ("bigscience/bloom", "bloom-176b"), ("facebook/opt-30b", "opt-30b"),
        ("openai-community/gpt2-xl", "gpt-2-1.5b"), ("lmsys/vicuna-7b-v1.5", "llama-2-7b"), ("lmsys/vicuna-13b-v1.5", "llama-2-13b"),
        # Local checkpoints: a path's last part (with or without a trailing slash), or the basename alone.
        ("/data/models/Qwen1.5-14B-Chat", "qwen1.5-14b"), ("/mnt/llm/DeepSeek-R1-Distill-Llama-8B/", "deepseek-r1-distill-llama-8b"),
        (r"D:\models\chatglm3-6b", "chatglm3-6b"), ("chatglm3-6b", "chatglm3-6b"), ("Qwen1.5-14B-Chat", "qwen1.5-14b"),
        ("qwen2-7b", "qwen2-7b"), ("Qwen2-72B", "qwen2-72b"), ("Qwen3-30B-A3B", "qwen3-30b-a3b"), ("Qwen3 235B", "qwen3-235b-a22b"),
        ("Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"), ("DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1-distill-qwen-32b"),
        ("Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3"), ("Baichuan-13B-Chat", "baichuan-13b"), ("Phi-4-mini-instruct", "phi-4-mini"),
        ("gpt2", "gpt-2-124m"), ("Qwen2.5-Coder-32B-Instruct", "qwen2.5-32b"), ("DeepSeek-R1", "deepseek-v3"),
        # Family plus size in free word order, as before.
        ("Qwen3 的 8B", "qwen3-8b"), ("Llama 3.3 的 70B", "llama-3.3-70b"), ("Gemma 2 的 2B", "gemma-2-2b"),
    ],
)
def test_pasted_model_names_resolve(catalog: Catalog, spelling: str, model_id: str) -> None:
    found = catalog.find_model(spelling)
    assert found is not None and found.id == model_id, (spelling, found and found.id)


@pytest.mark.parametrize(
    ("spelling", "not_model"),
    [
        ("Mixtral-8x7B-Instruct-v0.1", "mistral-7b"),  # an 8x7B MoE, not the dense 7B
        ("DeepSeek-R1-Distill-Qwen-32B", "deepseek-v3"),  # a dense 32B, not the 671B MoE it is distilled from
        ("Qwen/Qwen1.5-14B-Chat", "qwen-14b"),  # Qwen1.5, not Qwen (v1)
        ("qwen2-7b", "qwen2.5-7b"),
        ("Baichuan2-13B-Chat", "baichuan-13b"),
        ("Llama 3.1 的 70B", "llama-3.3-70b"),
    ],
)
def test_neighbouring_models_are_not_confused(catalog: Catalog, spelling: str, not_model: str) -> None:
    found = catalog.find_model(spelling)
    assert found is not None and found.id != not_model


def test_a_family_that_continues_is_another_model(catalog: Catalog) -> None:
    # "Falcon3-7B" is a Llama-like 7.5B, not Falcon-7B; the fuzzy family match must end where the family does.
    assert catalog.find_model("Falcon3-7B-Instruct") is None
    assert catalog.find_model("Falcon 的 7B").id == "falcon-7b"


def test_free_text_model_names(catalog: Catalog) -> None:
    names = catalog_names(catalog)
    assert [m for m, *_ in find_all(names.model, "部署 DeepSeek-R1-Distill-Qwen-14B 要几张卡")] == ["deepseek-r1-distill-qwen-14b"]
    assert [m for m, *_ in find_all(names.model, "Phi-4-mini on a laptop, Phi-4 on a server")] == ["phi-4-mini", "phi-4"]
    assert find_all(names.model, "a bloom filter over the dataset") == []  # BLOOM is named with its size or repo id only


# --------------------------------------------------------------------------- GPU names (nvidia-smi, free text)


@pytest.mark.parametrize(
    ("nvidia_smi", "gpu_id"),
    [
        ("NVIDIA A40", "a40"), ("NVIDIA A30", "a30"), ("NVIDIA A2", "a2-16gb"), ("NVIDIA L40", "l40"), ("NVIDIA L40S", "l40s"),
        ("NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti"), ("NVIDIA GeForce GTX 1080 Ti", "gtx-1080-ti"), ("NVIDIA GeForce RTX 3080", "rtx-3080"),
        ("NVIDIA GeForce RTX 3080 Ti", "rtx-3080-ti"), ("NVIDIA GeForce RTX 3090 Ti", "rtx-3090-ti"), ("NVIDIA GeForce RTX 4090 D", "rtx-4090-d"),
        ("NVIDIA GeForce RTX 5090", "rtx-5090"), ("NVIDIA GeForce RTX 4070", "rtx-4070"), ("NVIDIA RTX A4000", "rtx-a4000"),
        ("NVIDIA RTX A5000", "rtx-a5000"), ("Tesla P40", "p40"), ("Tesla P100-PCIE-16GB", "p100-pcie-16gb"),
        ("Tesla V100-PCIE-32GB", "v100-pcie-32gb"), ("Tesla V100-PCIE-16GB", "v100-pcie-16gb"), ("Tesla V100-SXM2-32GB", "v100-32gb"),
        ("Tesla V100-SXM2-16GB", "v100-16gb"), ("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA H100 NVL", "h100-nvl"), ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"), ("NVIDIA A100 80GB PCIe", "a100-80gb-pcie"),
        ("NVIDIA GH200 480GB", "gh200"), ("Tesla T4", "t4"), ("AMD Instinct MI250X", "mi250x"), ("AMD Instinct MI210", "mi210"),
    ],
)
def test_nvidia_smi_names_resolve(catalog: Catalog, nvidia_smi: str, gpu_id: str) -> None:
    found = catalog.find_gpu(nvidia_smi)
    assert found is not None and found.id == gpu_id, (nvidia_smi, found and found.id)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a 4070 for 1440p", ["rtx-4070"]),
        ("RTX 4070 Ti 12GB", []),  # the 4070 Ti is not in the catalog and is not read as the 4070
        ("4070 Super or 4070Ti", []),
        ("RTX 4070 Ti Super", ["rtx-4070-ti-super"]),
        ("3080 Ti vs 3080", ["rtx-3080-ti", "rtx-3080"]),
        ("3090Ti 和 3090", ["rtx-3090-ti", "rtx-3090"]),
        ("4090D 24G 还是 4090", ["rtx-4090-d", "rtx-4090"]),
        ("8x A40, two L40 and an L40S", ["a40", "l40", "l40s"]),
        ("GCP a2-highgpu-1g", ["a100-40gb-sxm"]),  # the instance type, not the A2 card
        ("GCP A2 machines", []),  # a bare "A2" is GCP's machine series as often as the card
        ("NVIDIA A2 for video analytics", ["a2-16gb"]),
        ("P40 or P100", ["p40", "p100-pcie-16gb"]),
        ("V100 PCIe 32GB vs V100", ["v100-pcie-32gb", "v100-32gb"]),
        ("MI250X vs MI210", ["mi250x", "mi210"]),
    ],
)
def test_free_text_gpu_names(catalog: Catalog, text: str, expected: list[str]) -> None:
    assert [g for g, *_ in find_all(catalog_names(catalog).gpu, text)] == expected


# --------------------------------------------------------------------------- precision and kernels by architecture


def test_pre_ampere_cards_have_no_bf16_fp8_tf32_or_flash_attention_2(catalog: Catalog) -> None:
    old = [g for g in catalog.gpus.values() if g.architecture.lower() in PRE_AMPERE_ARCHITECTURES]
    assert {g.id for g in old} >= {"t4", "v100-32gb", "v100-16gb", "v100-pcie-32gb", "v100-pcie-16gb", "rtx-2080-ti", "gtx-1080-ti",
                                    "p40", "p100-pcie-16gb"}
    for g in old:
        assert not g.supports_bf16 and g.bf16_dense_tflops is None, g.id
        assert not g.supports_fp8 and g.tf32_dense_tflops is None and g.sparse_fp16_tflops is None, g.id
        assert not g.supports_flash_attention_2, g.id
        assert "FlashAttention-2" in (g.notes or "") and "BF16" in (g.notes or ""), g.id
    for g in catalog.gpus.values():
        if g.architecture.lower() not in PRE_AMPERE_ARCHITECTURES:
            assert g.supports_flash_attention_2, g.id


def test_fp8_on_ada_hopper_and_blackwell(catalog: Catalog) -> None:
    for g in catalog.gpus.values():
        if g.vendor == "nvidia" and g.architecture in ("Ada Lovelace", "Hopper", "Blackwell"):
            assert g.supports_fp8 and g.fp8_dense_tflops, g.id
        if g.architecture in ("Ampere", "CDNA 2"):
            assert not g.supports_fp8, g.id


def test_a_pre_ampere_card_claiming_bf16_stops_start_up(tmp_path: Path) -> None:
    for name in ("gpus.yaml", "models.yaml", "instances.yaml", "tiers.yaml"):
        shutil.copy(HARDWARE_DIR / name, tmp_path / name)
    data = yaml.safe_load((tmp_path / "gpus.yaml").read_text(encoding="utf-8"))
    card = next(g for g in data if g["id"] == "rtx-2080-ti")
    card["supports_bf16"], card["bf16_dense_tflops"] = True, 53.8
    (tmp_path / "gpus.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(CatalogError, match="rtx-2080-ti") as info:
        load_catalog(tmp_path)
    assert "gpus.yaml" in str(info.value) and "older than Ampere" in str(info.value)


def test_memory_tool_turns_flash_attention_off_on_pascal(catalog: Catalog) -> None:
    run = get_tool("training-memory")
    old = run({"model": "qwen2-1.5b", "method": "lora", "gpu": "p40"}, catalog)
    new = run({"model": "qwen2-1.5b", "method": "lora", "gpu": "a40"}, catalog)
    assert old.flash_attention is False and new.flash_attention is True


# --------------------------------------------------------------------------- figures


def test_new_card_figures(catalog: Catalog) -> None:
    g = catalog.gpus
    assert (g["a40"].fp16_dense_tflops, g["a40"].sparse_fp16_tflops, g["a40"].memory_bandwidth_gbps) == (149.7, 299.4, 696)
    assert (g["a30"].bf16_dense_tflops, g["a30"].memory_gb, g["a30"].memory_type) == (165, 24, "HBM2")
    assert g["l40"].fp16_dense_tflops == pytest.approx(g["l40s"].fp16_dense_tflops / 2, rel=0.01)  # half-rate FP32 accumulate
    assert g["rtx-4090-d"].fp16_dense_tflops < g["rtx-4090"].fp16_dense_tflops
    assert (g["rtx-5090"].memory_gb, g["rtx-5090"].pcie_gen, g["rtx-5090"].architecture) == (32, 5, "Blackwell")
    assert (g["mi250x"].bf16_dense_tflops, g["mi250x"].memory_gb, g["mi210"].bf16_dense_tflops) == (383, 128, 181)
    assert g["gh200"].bf16_dense_tflops == g["h100-sxm"].bf16_dense_tflops and g["gh200"].memory_gb == 96
    assert (g["p100-pcie-16gb"].fp16_dense_tflops, g["p100-pcie-16gb"].fp32_tflops) == (18.7, 9.3)  # packed FP16 at twice FP32
    for pascal in ("gtx-1080-ti", "p40"):  # no tensor cores: the FP16 field holds the FP32 rate, and says so
        assert g[pascal].fp16_dense_tflops == g[pascal].fp32_tflops and g[pascal].confidence == "low", pascal
        assert not g[pascal].has_tensor_cores


def _moe_params(m) -> tuple[float, float]:
    """Total and active parameters of a MoE model without MLA, from its shapes (attention, experts, router, norms, embeddings)."""
    h, d = m.hidden_size, m.head_dim
    attention = h * m.attention_heads * d + 2 * h * m.kv_heads * d + m.attention_heads * d * h
    router, expert = m.moe.experts * h, 3 * h * m.moe.expert_ffn_hidden_size
    embeddings = m.vocab_size * h * (1 if m.tied_embeddings else 2)
    total = m.layers * (attention + m.moe.experts * expert + router + 2 * h) + embeddings + h
    active = m.layers * (attention + m.moe.experts_per_token * expert + router + 2 * h) + embeddings + h
    return total / 1e9, active / 1e9


@pytest.mark.parametrize(("model_id", "total", "active"), [("qwen3-30b-a3b", 30.5, 3.3), ("qwen3-235b-a22b", 235, 22),
                                                           ("mixtral-8x22b", 141, 39), ("mixtral-8x7b", 46.7, 12.9)])
def test_moe_totals_follow_from_the_experts(catalog: Catalog, model_id: str, total: float, active: float) -> None:
    m = catalog.models[model_id]
    counted_total, counted_active = _moe_params(m)
    assert counted_total == pytest.approx(m.params_b, rel=0.01) and counted_active == pytest.approx(m.active_params_b, rel=0.01)
    assert m.params_b == pytest.approx(total, rel=0.01) and m.active_params_b == pytest.approx(active, rel=0.03)  # published


def test_deepseek_v2_lite_is_a_small_mla_moe(catalog: Catalog) -> None:
    m = catalog.models["deepseek-v2-lite"]
    assert m.attention_kind == "mla" and (m.mla.kv_lora_rank, m.mla.qk_rope_head_dim) == (512, 64)
    assert (m.moe.experts, m.moe.experts_per_token, m.moe.shared_experts, m.moe.dense_layers) == (64, 6, 2, 1)
    assert (m.params_b, m.active_params_b) == (15.7, 2.4)


@pytest.mark.parametrize(
    ("model_id", "published_b"),
    [
        ("qwen1.5-7b", 7.72), ("qwen1.5-72b", 72.3), ("qwen2-72b", 72.7), ("qwen3-8b", 8.2), ("llama-3.2-1b", 1.24),
        ("llama-3.2-3b", 3.21), ("chatglm3-6b", 6.24), ("internlm2-20b", 19.86), ("yi-1.5-34b", 34.39), ("gemma-7b", 8.54),
        ("gemma-2-2b", 2.61), ("phi-4", 14.66), ("deepseek-llm-67b", 67.4), ("deepseek-r1-distill-qwen-1.5b", 1.78),
        ("falcon-7b", 6.92), ("bloom-176b", 176.2), ("opt-66b", 65.7), ("gpt-2-124m", 0.124), ("gpt-2-1.5b", 1.56), ("minicpm-2b", 2.72),
    ],
)
def test_parameter_counts_match_published_sizes(catalog: Catalog, model_id: str, published_b: float) -> None:
    assert catalog.models[model_id].params_b == pytest.approx(published_b, rel=0.01)


def test_distilled_models_are_dense_and_keep_their_bases_shapes(catalog: Catalog) -> None:
    m = catalog.models
    for size, base in (("1.5b", "qwen2.5-1.5b"), ("7b", "qwen2.5-7b"), ("14b", "qwen2.5-14b"), ("32b", "qwen2.5-32b")):
        d, b = m[f"deepseek-r1-distill-qwen-{size}"], m[base]
        assert d.moe is None and d.mla is None
        assert (d.layers, d.hidden_size, d.attention_heads, d.kv_heads, d.ffn_hidden_size) == (
            b.layers, b.hidden_size, b.attention_heads, b.kv_heads, b.ffn_hidden_size)
    # The 1.5B distill unties the output head Qwen2.5-1.5B ties: 0.23B more parameters.
    assert m["qwen2.5-1.5b"].tied_embeddings and not m["deepseek-r1-distill-qwen-1.5b"].tied_embeddings
    assert (m["deepseek-r1-distill-llama-70b"].layers, m["deepseek-r1-distill-llama-70b"].params_b) == (80, m["llama-3.3-70b"].params_b)


# --------------------------------------------------------------------------- spec cards


def test_every_gpu_has_a_spec_card_in_both_languages() -> None:
    catalog = default_catalog()
    cards = {(c.id, c.language): c for c in spec_cards(catalog)}
    for gpu_id in catalog.gpus:
        assert (f"gpu-{gpu_id}", "en") in cards and (f"gpu-{gpu_id}", "zh") in cards, gpu_id
    p40 = cards[("gpu-p40", "en")].body
    assert "no tensor cores on Pascal" in p40 and "FlashAttention-2: not supported" in p40 and "DP4A" in p40
    assert "FlashAttention-2" not in cards[("gpu-a40", "en")].body.split("Notes:")[0]  # Ampere: nothing to warn about
    assert "FlashAttention-2：Pascal 架构不支持" in cards[("gpu-gtx-1080-ti", "zh")].body
