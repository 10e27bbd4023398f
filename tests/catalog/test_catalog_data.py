"""The shipped catalogs (knowledge/hardware/*.yaml) load, and their figures are right.

These tests check the DATA, not the loader's mechanics: dense vs sparse peaks, precision support,
name resolution for the spellings users and the reference cases use, architecture consistency
(KV-cache fields, parameter counts) and that a broken copy of a file fails with a message that
names the file, the entry and the field.
"""

from __future__ import annotations

import datetime as dt
import math
import shutil
from pathlib import Path

import pytest
import yaml

from service.catalog import Catalog, ModelArch, default_catalog, load_catalog, normalize
from service.errors import CatalogError, UnknownNameError

HARDWARE_DIR = Path(__file__).resolve().parents[2] / "knowledge" / "hardware"
FILES = ("gpus.yaml", "models.yaml", "instances.yaml", "tiers.yaml")
# Cards users own or buy for local work, added for "what can this card run / fine-tune" questions.
NEW_CARDS = ("rtx-3060", "rtx-4060", "rtx-4060-ti-16gb", "rtx-4060-ti-8gb", "rtx-4070-ti-super", "rtx-4080", "rtx-4080-super",
             "rtx-a6000", "rtx-6000-ada", "l20", "v100-32gb", "v100-16gb")
# The catalog expansion: data-centre, workstation, consumer and previous-generation cards users ask about.
EXPANSION_ENTRY_CARDS = ("a40", "a2-16gb", "l40", "rtx-a4000", "rtx-a5000", "rtx-2080-ti", "gtx-1080-ti", "rtx-3080", "rtx-3080-ti",
                         "rtx-3090-ti", "rtx-4070", "rtx-4090-d", "rtx-5090", "p40")
EXPANSION_DATACENTER_CARDS = ("a30", "p100-pcie-16gb", "v100-pcie-32gb", "v100-pcie-16gb", "mi250x", "mi210", "gh200")
EXPANSION_CARDS = EXPANSION_ENTRY_CARDS + EXPANSION_DATACENTER_CARDS
EXPANSION_MODELS = (
    "qwen1.5-7b", "qwen1.5-14b", "qwen1.5-32b", "qwen1.5-72b", "qwen2-0.5b", "qwen2-1.5b", "qwen2-7b", "qwen2-72b",
    "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
    "llama-3.2-1b", "llama-3.2-3b", "llama-3.3-70b", "chatglm2-6b", "chatglm3-6b", "baichuan2-7b", "baichuan-13b",
    "internlm2-7b", "internlm2-20b", "internlm2.5-7b", "yi-6b", "yi-1.5-9b", "yi-1.5-34b", "mistral-7b-v0.3", "mixtral-8x22b",
    "deepseek-v2-lite", "deepseek-r1-distill-qwen-1.5b", "deepseek-r1-distill-qwen-7b", "deepseek-r1-distill-qwen-14b",
    "deepseek-r1-distill-qwen-32b", "deepseek-r1-distill-llama-8b", "deepseek-r1-distill-llama-70b", "deepseek-llm-7b",
    "deepseek-llm-67b", "deepseek-coder-6.7b", "deepseek-coder-33b", "gemma-2b", "gemma-7b", "gemma-2-2b", "gemma-3-4b",
    "gemma-3-12b", "gemma-3-27b", "phi-3-medium", "phi-4", "phi-4-mini", "falcon-7b", "falcon-40b", "bloom-7b1", "bloom-176b",
    "opt-6.7b", "opt-30b", "opt-66b", "gpt-2-124m", "gpt-2-1.5b", "minicpm-2b",
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(HARDWARE_DIR)


# --------------------------------------------------------------------------- loading


def test_all_files_load_with_expected_ids(catalog: Catalog) -> None:
    assert set(catalog.gpus) == {
        "t4", "a10", "a10g", "l4", "l40s", "a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie",
        "a100-80gb-sxm", "a800", "h100-pcie", "h100-sxm", "h100-nvl", "h800", "h20", "h200", "b200",
        "mi300x", "ascend-910b", "rtx-4090", "rtx-3090", *NEW_CARDS, *EXPANSION_CARDS,
    }
    required_models = {
        "llama-7b", "llama-2-7b", "llama-2-13b", "llama-2-34b", "llama-2-70b", "llama-3-8b",
        "llama-3-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen-7b", "qwen-14b",
        "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b",
        "qwen2.5-72b", "mistral-7b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b", "gemma-2-27b",
        "tinyllama-1.1b", "gpt-3-175b", "opt-13b", "opt-175b", "bert-base-cased", "yi-34b",
        "baichuan2-13b", "glm-4-9b", "phi-3-mini", *EXPANSION_MODELS,
    }
    assert required_models <= set(catalog.models)
    assert (len(catalog.gpus), len(catalog.models)) == (54, 94)  # README "Catalogs" states these counts
    assert set(catalog.tiers) == {"entry", "mid", "production"}
    required_instances = {
        "aws-p5.48xlarge", "aws-p4d.24xlarge", "aws-p4de.24xlarge", "aws-g5.xlarge",
        "aws-g5.12xlarge", "aws-g4dn.xlarge", "aws-g6.xlarge", "aws-g6e.xlarge",
        "gcp-a3-highgpu-8g", "gcp-a2-highgpu-1g", "gcp-a2-highgpu-8g", "gcp-a2-ultragpu-8g",
        "gcp-g2-standard-8", "azure-nd96isr-h100-v5", "azure-nd96asr-v4",
        "azure-nd96amsr-a100-v4", "azure-nc24ads-a100-v4", "azure-nc4as-t4-v3",
        "lambda-gpu-1x-a10", "lambda-gpu-1x-a100-sxm4", "lambda-gpu-8x-a100-80gb-sxm4",
        "lambda-gpu-1x-h100-pcie", "lambda-gpu-8x-h100-sxm5", "lambda-gpu-8x-b200-sxm6",
    }
    assert required_instances <= set(catalog.instances)
    providers = {i.provider for i in catalog.instances.values()}
    assert {"aws", "gcp", "azure", "tencent", "alibaba", "lambda"} <= providers
    assert any(i.provider == "gcp" and i.gpu == "t4" for i in catalog.instances.values())


def test_packaged_default_catalog_loads() -> None:
    assert "h100-sxm" in default_catalog().gpus


def test_every_entry_is_sourced_and_dated(catalog: Catalog) -> None:
    entries = [*catalog.gpus.values(), *catalog.models.values(), *catalog.instances.values(), *catalog.tiers.values()]
    for entry in entries:
        assert entry.sources, entry.id
        assert all(s.url.startswith("https://") for s in entry.sources), entry.id
        assert dt.date(2020, 1, 1) <= entry.checked <= dt.date(2026, 12, 31), entry.id
    for entry in [*catalog.gpus.values(), *catalog.models.values(), *catalog.instances.values()]:
        if entry.confidence != "high":
            assert entry.notes and len(entry.notes) > 40, f"{entry.id}: a {entry.confidence}-confidence entry must say why"


# --------------------------------------------------------------------------- GPU figures


def test_h100_sxm_dense_and_sparse_bf16(catalog: Catalog) -> None:
    h100 = catalog.gpus["h100-sxm"]
    assert h100.bf16_dense_tflops == 989.5
    assert h100.fp16_dense_tflops == 989.5
    assert h100.sparse_fp16_tflops == 1979
    assert h100.fp8_dense_tflops == 1979
    assert h100.sparse_fp8_tflops == 3958
    assert h100.dense_tflops("bf16") == 989.5
    assert h100.scale_up is not None and h100.scale_up.bandwidth_gbps_bidir == 900
    assert h100.scale_up.bandwidth_gbps_per_direction == 450


@pytest.mark.parametrize("gpu_id", ["a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm"])
def test_a100_dense_312_and_no_fp8(catalog: Catalog, gpu_id: str) -> None:
    gpu = catalog.gpus[gpu_id]
    assert gpu.bf16_dense_tflops == 312
    assert gpu.sparse_fp16_tflops == 624
    assert gpu.supports_fp8 is False and gpu.fp8_dense_tflops is None
    assert gpu.dense_tflops("fp8") is None


def test_every_sparse_figure_is_about_twice_its_dense_one(catalog: Catalog) -> None:
    checked = 0
    for gpu in catalog.gpus.values():
        if gpu.sparse_fp16_tflops is not None:
            assert gpu.sparse_fp16_tflops / gpu.fp16_dense_tflops == pytest.approx(2.0, rel=0.05), gpu.id
            checked += 1
        if gpu.sparse_fp8_tflops is not None:
            assert gpu.fp8_dense_tflops is not None, gpu.id
            assert gpu.sparse_fp8_tflops / gpu.fp8_dense_tflops == pytest.approx(2.0, rel=0.05), gpu.id
            checked += 1
    assert checked >= 20


def test_dense_figures_are_not_sparse_ones(catalog: Catalog) -> None:
    # Guard against the classic mistake: no dense BF16/FP16 peak above the B200's 2,250 TFLOPS,
    # and BF16 (when present) equals the FP16 tensor rate on every part in the catalog.
    for gpu in catalog.gpus.values():
        assert gpu.fp16_dense_tflops <= 2250, gpu.id
        if gpu.bf16_dense_tflops is not None:
            assert gpu.bf16_dense_tflops == gpu.fp16_dense_tflops, gpu.id
        if gpu.fp8_dense_tflops is not None:
            assert gpu.fp8_dense_tflops >= gpu.fp16_dense_tflops, gpu.id
        if gpu.tf32_dense_tflops is not None:
            assert gpu.tf32_dense_tflops <= gpu.fp16_dense_tflops, gpu.id


def test_t4_has_no_bf16_no_fp8_and_says_why(catalog: Catalog) -> None:
    t4 = catalog.gpus["t4"]
    assert t4.supports_bf16 is False and t4.bf16_dense_tflops is None
    assert t4.supports_fp8 is False and t4.fp8_dense_tflops is None
    assert t4.tf32_dense_tflops is None
    assert t4.fp16_dense_tflops == 65
    assert t4.memory_gb == 16 and t4.memory_bandwidth_gbps == 320
    assert t4.scale_up is None and t4.pcie_gen == 3
    notes = t4.notes or ""
    assert "BF16" in notes and "Turing" in notes and "FlashAttention-2" in notes


def test_fp8_support_by_architecture(catalog: Catalog) -> None:
    with_fp8 = {g.id for g in catalog.gpus.values() if g.supports_fp8}
    assert with_fp8 == {"l4", "l40s", "h100-pcie", "h100-sxm", "h100-nvl", "h800", "h20", "h200", "b200", "mi300x", "rtx-4090",
                        "rtx-4060", "rtx-4060-ti-16gb", "rtx-4060-ti-8gb", "rtx-4070-ti-super", "rtx-4080", "rtx-4080-super",
                        "rtx-6000-ada", "l20", "l40", "rtx-4070", "rtx-4090-d", "rtx-5090", "gh200"}


def test_training_class_and_confidence(catalog: Catalog) -> None:
    entry = {g.id for g in catalog.gpus.values() if g.training_class == "entry"}
    assert entry == {"t4", "a10", "a10g", "l4", "rtx-4090", "rtx-3090", *(set(NEW_CARDS) - {"v100-32gb", "v100-16gb"}), *EXPANSION_ENTRY_CARDS}
    assert catalog.gpus["ascend-910b"].confidence == "low"
    assert catalog.gpus["a10g"].confidence == "low"
    assert catalog.gpus["h20"].confidence in {"low", "medium"}
    assert catalog.gpus["rtx-4090"].confidence in {"low", "medium"}


def test_interconnects(catalog: Catalog) -> None:
    gpus = catalog.gpus
    assert gpus["a100-80gb-sxm"].scale_up.bandwidth_gbps_bidir == 600  # type: ignore[union-attr]
    assert gpus["h800"].scale_up.bandwidth_gbps_bidir == 400  # type: ignore[union-attr]
    assert gpus["b200"].scale_up.bandwidth_gbps_bidir == 1800  # type: ignore[union-attr]
    for gpu_id in ("t4", "a10", "a10g", "l4", "l40s", "rtx-4090"):
        assert gpus[gpu_id].scale_up is None, gpu_id
    for gpu_id in ("a100-40gb-pcie", "a100-80gb-pcie", "h100-pcie", "h100-nvl"):
        assert gpus[gpu_id].scale_up.max_gpus == 2, gpu_id  # type: ignore[union-attr]


def test_memory_figures(catalog: Catalog) -> None:
    expected = {
        "a100-40gb-sxm": (40, 1555), "a100-80gb-sxm": (80, 2039), "a100-80gb-pcie": (80, 1935),
        "h100-sxm": (80, 3350), "h200": (141, 4800), "h20": (96, 4000), "mi300x": (192, 5300),
        "l40s": (48, 864), "l4": (24, 300), "a10": (24, 600), "rtx-4090": (24, 1008),
    }
    for gpu_id, (mem, bw) in expected.items():
        gpu = catalog.gpus[gpu_id]
        assert (gpu.memory_gb, gpu.memory_bandwidth_gbps) == (mem, bw), gpu_id


# --------------------------------------------------------------------------- name resolution


@pytest.mark.parametrize(
    ("spelling", "gpu_id"),
    [
        ("H100", "h100-sxm"), ("h100", "h100-sxm"), ("H100 SXM5", "h100-sxm"), ("H100-SXM5-80GB", "h100-sxm"),
        ("H100 80G", "h100-sxm"), ("NVIDIA H100", "h100-sxm"), ("H100 PCIe", "h100-pcie"),
        ("A100", "a100-80gb-sxm"), ("A100 80G", "a100-80gb-sxm"), ("A100-SXM4-80GB", "a100-80gb-sxm"),
        ("A100 40G", "a100-40gb-sxm"), ("a100-40gb", "a100-40gb-sxm"), ("A100-SXM4-40GB", "a100-40gb-sxm"),
        ("a100 pcie", "a100-80gb-pcie"), ("910B", "ascend-910b"), ("昇腾910B", "ascend-910b"),
        ("4090", "rtx-4090"), ("RTX4090", "rtx-4090"), ("RTX 4090", "rtx-4090"), ("L40S", "l40s"),
        ("MI300X", "mi300x"), ("A10G", "a10g"), ("A10", "a10"), ("Tesla T4", "t4"), ("H800", "h800"),
    ],
)
def test_gpu_aliases(catalog: Catalog, spelling: str, gpu_id: str) -> None:
    assert catalog.gpu(spelling).id == gpu_id


@pytest.mark.parametrize(
    ("spelling", "model_id"),
    [
        ("llama3-70b", "llama-3-70b"), ("Llama-3-70B", "llama-3-70b"), ("Llama 3 70B", "llama-3-70b"),
        ("llama3 70b", "llama-3-70b"), ("Meta-Llama-3-70B", "llama-3-70b"), ("70B 的 Llama 3", "llama-3-70b"),
        ("Llama 3.1 的 8B", "llama-3.1-8b"), ("Llama 3.1 70B", "llama-3.1-70b"), ("Llama 3 405B", "llama-3.1-405b"),
        ("LLaMA 7B", "llama-7b"), ("Llama 2 7B", "llama-2-7b"), ("Llama 2 34B", "llama-2-34b"),
        ("Llama 2 70B", "llama-2-70b"), ("Llama 3 8B", "llama-3-8b"), ("Llama 3.1 8B", "llama-3.1-8b"),
        ("GPT-3 175B", "gpt-3-175b"), ("GPT-3", "gpt-3-175b"), ("OPT-13B", "opt-13b"), ("OPT-175B", "opt-175b"),
        ("TinyLlama 1.1B", "tinyllama-1.1b"), ("bert-base-cased", "bert-base-cased"),
        ("Qwen-14B", "qwen-14b"), ("千问14B", "qwen-14b"), ("通义千问14B", "qwen-14b"),
        ("Mixtral 8x7B", "mixtral-8x7b"), ("DeepSeek V3", "deepseek-v3"), ("Qwen2.5 的 7B", "qwen2.5-7b"),
    ],
)
def test_model_aliases(catalog: Catalog, spelling: str, model_id: str) -> None:
    assert catalog.model(spelling).id == model_id


def test_llama_3_is_not_llama_3_1(catalog: Catalog) -> None:
    assert catalog.model("Llama 3 70B").id != "llama-3.1-70b"
    assert catalog.model("Llama 3 8B").id != "llama-3.1-8b"
    assert catalog.model("Llama 3 70B").context_length == 8192
    assert catalog.model("Llama 3.1 70B").context_length == 131072


def test_reference_case_names_resolve(catalog: Catalog) -> None:
    # Spellings used by the reference cases (sizing_cases.dev.jsonl).
    for gpu in ("A100-SXM4-80GB", "H100-SXM5-80GB", "A100-SXM4-40GB"):
        catalog.gpu(gpu)
    for model in (
        "Llama 2 7B", "Llama 2 34B", "Llama 2 70B", "Llama 3 8B", "Llama 3.1 8B", "Llama 3.1 70B",
        "Llama 3 405B", "LLaMA 7B", "GPT-3 175B", "OPT-175B", "OPT-13B", "TinyLlama 1.1B", "bert-base-cased",
    ):
        catalog.model(model)


def test_unknown_gpu_suggests_close_names(catalog: Catalog) -> None:
    with pytest.raises(UnknownNameError) as info:
        catalog.gpu("H1OO")
    suggestions = info.value.problems[0].suggestions
    assert suggestions and all(s.startswith("h100") for s in suggestions)
    assert "H1OO" in info.value.problems[0].en and "H1OO" in info.value.problems[0].zh


def test_unknown_model_suggests_close_names(catalog: Catalog) -> None:
    with pytest.raises(UnknownNameError) as info:
        catalog.model("Lama-3-70B")
    assert "llama-3-70b" in info.value.problems[0].suggestions


def test_instance_aliases(catalog: Catalog) -> None:
    assert catalog.instance("p5.48xlarge").id == "aws-p5.48xlarge"
    assert catalog.instance("gpu_8x_h100_sxm5").id == "lambda-gpu-8x-h100-sxm5"
    assert catalog.instance("Standard_ND96isr_H100_v5").gpu == "h100-sxm"


def test_no_alias_shadows_another_entry_id(catalog: Catalog) -> None:
    # The loader rejects an alias naming two entries; also make sure no alias equals another id.
    for entries in (catalog.gpus, catalog.models, catalog.instances):
        ids = {normalize(i): i for i in entries}
        for entry in entries.values():
            for alias in entry.aliases:
                owner = ids.get(normalize(alias))
                assert owner in (None, entry.id), f"alias {alias!r} of {entry.id} is the id of {owner}"


# --------------------------------------------------------------------------- model architecture


def _count_params(m: ModelArch) -> float:
    """Decoder-only transformer with gated (SwiGLU) MLP, RMSNorm, no biases; in parameters."""
    h, d = m.hidden_size, m.head_dim
    attention = h * m.attention_heads * d + 2 * h * m.kv_heads * d + m.attention_heads * d * h
    mlp = 3 * h * m.ffn_hidden_size
    norms = 2 * h
    embeddings = m.vocab_size * h * (1 if m.tied_embeddings else 2)
    return m.layers * (attention + mlp + norms) + embeddings + h


def test_param_counts_match_architecture_for_dense_llama_qwen_mistral(catalog: Catalog) -> None:
    families = {"llama", "qwen", "mistral", "yi"}
    checked = 0
    for m in catalog.models.values():
        if m.family not in families or m.moe is not None:
            continue
        assert _count_params(m) / 1e9 == pytest.approx(m.params_b, rel=0.03), m.id
        checked += 1
    assert checked >= 18


def test_brief_param_counts(catalog: Catalog) -> None:
    expected = {"llama-3-70b": 70.55, "llama-3-8b": 8.03, "qwen-14b": 14.2, "llama-2-7b": 6.738, "llama-2-70b": 68.977}
    for model_id, params in expected.items():
        assert catalog.models[model_id].params_b == params, model_id


def test_kv_cache_fields_are_consistent(catalog: Catalog) -> None:
    # head_dim is independent of hidden_size in Gemma 2 (documented in its notes) and meaningless
    # for the KV cache of MLA models (they cache a latent); everything else must satisfy h = a*d.
    documented_exceptions = {"gemma-2-9b", "gemma-2-27b", "gemma-7b", "gemma-2-2b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b",
                             "qwen3-0.6b", "qwen3-4b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b"}
    for m in catalog.models.values():
        assert m.attention_heads % m.kv_heads == 0, m.id
        if m.id in documented_exceptions or m.mla is not None:
            assert m.notes, f"{m.id} is an exception and must say why"
            continue
        assert m.hidden_size == m.attention_heads * m.head_dim, m.id


def test_attention_kinds(catalog: Catalog) -> None:
    assert catalog.models["llama-2-7b"].attention_kind == "mha"
    assert catalog.models["llama-3-70b"].attention_kind == "gqa"
    assert catalog.models["deepseek-v3"].attention_kind == "mla"
    # KV cache per token (BF16) for Llama 3 70B: 2 * 80 layers * 8 heads * 128 dims * 2 bytes = 320 KiB.
    m = catalog.models["llama-3-70b"]
    assert 2 * m.layers * m.kv_heads * m.head_dim * 2 == 327_680


def test_moe_models(catalog: Catalog) -> None:
    mixtral = catalog.models["mixtral-8x7b"]
    assert mixtral.moe is not None and mixtral.moe.experts == 8 and mixtral.moe.experts_per_token == 2
    assert mixtral.active_params_b == pytest.approx(12.88, rel=0.01)
    ds = catalog.models["deepseek-v3"]
    assert ds.moe is not None and ds.mla is not None
    assert (ds.moe.experts, ds.moe.experts_per_token, ds.moe.shared_experts, ds.moe.dense_layers) == (256, 8, 1, 3)
    assert (ds.mla.kv_lora_rank, ds.mla.qk_rope_head_dim) == (512, 64)
    assert (ds.params_b, ds.active_params_b) == (671, 37)
    for m in catalog.models.values():
        if m.moe is None:
            assert m.active_params_b == m.params_b, m.id
        else:
            assert m.active_params_b < m.params_b, m.id


def test_mixtral_total_params_from_experts(catalog: Catalog) -> None:
    m = catalog.models["mixtral-8x7b"]
    assert m.moe is not None
    h, d = m.hidden_size, m.head_dim
    attention = h * m.attention_heads * d + 2 * h * m.kv_heads * d + m.attention_heads * d * h
    experts = m.moe.experts * 3 * h * m.moe.expert_ffn_hidden_size
    router = m.moe.experts * h
    total = m.layers * (attention + experts + router + 2 * h) + 2 * m.vocab_size * h + h
    assert total / 1e9 == pytest.approx(m.params_b, rel=0.01)


# --------------------------------------------------------------------------- instances and tiers


def test_instance_prices(catalog: Catalog) -> None:
    inst = catalog.instances
    assert inst["lambda-gpu-8x-h100-sxm5"].price.on_demand_per_hour == 31.92
    assert inst["lambda-gpu-8x-h100-sxm5"].price.on_demand_per_hour / 8 == pytest.approx(3.99)
    for i in inst.values():
        expected_currency = "CNY" if i.provider in {"tencent", "alibaba"} else "USD"
        assert i.price.currency == expected_currency, i.id
        if i.price.spot_per_hour is not None and i.confidence == "high":
            assert i.price.spot_per_hour < i.price.on_demand_per_hour, i.id
        per_gpu = i.price.on_demand_per_hour / i.gpu_count
        per_gpu_usd = per_gpu * (0.138 if i.price.currency == "CNY" else 1)
        assert 0.05 < per_gpu_usd < 20, f"{i.id}: {per_gpu_usd:.2f} USD per GPU-hour is implausible"


def test_instance_gpus_match_their_hardware(catalog: Catalog) -> None:
    inst = catalog.instances
    assert (inst["aws-p5.48xlarge"].gpu, inst["aws-p5.48xlarge"].gpu_count) == ("h100-sxm", 8)
    assert inst["aws-p4d.24xlarge"].gpu == "a100-40gb-sxm"
    assert inst["aws-p4de.24xlarge"].gpu == "a100-80gb-sxm"
    assert inst["aws-g5.xlarge"].gpu == "a10g" and inst["aws-g4dn.xlarge"].gpu == "t4"
    assert inst["gcp-a3-highgpu-8g"].rdma == "gpudirect-tcpx"
    assert inst["azure-nd96isr-h100-v5"].gpu_count == 8 and inst["azure-nd96isr-h100-v5"].rdma == "infiniband"
    for i in inst.values():
        assert i.gpu in catalog.gpus, i.id
        if i.gpu_count == 8 and i.provider in {"aws", "azure"}:
            assert i.rdma in {"efa", "infiniband"}, i.id


def test_tiers_follow_the_article(catalog: Catalog) -> None:
    entry, mid, prod = (catalog.tiers[t] for t in ("entry", "mid", "production"))
    assert entry.gpu_options == ["t4", "a10", "a10g", "l4"]
    assert (entry.cpu_cores_min, entry.ram_gb, entry.gpus_per_node, entry.network_gbps) == (8, 64, 1, 1)
    assert mid.gpu_options[0] == "a100-80gb-sxm" and {"a100-40gb-sxm", "l40s", "h100-pcie"} <= set(mid.gpu_options)
    assert (mid.ram_gb, mid.gpus_per_node, mid.network_gbps) == (256, 4, 200)
    assert prod.gpu_options == ["h100-sxm", "h200", "h800", "b200"]
    assert (prod.ram_gb, prod.gpus_per_node, prod.network_gbps, prod.storage_read_gbps) == (512, 8, 400, 10)
    for tier in (entry, mid, prod):
        for gpu_id in tier.gpu_options:
            assert gpu_id in catalog.gpus
        assert tier.name_zh and tier.audience_zh and tier.name_en and tier.audience_en
    # Figures the article does not give are flagged in the text, not passed off as the article's.
    assert "assumption" in entry.storage and "assumption" in mid.storage and "assumption" in prod.cpu


# --------------------------------------------------------------------------- broken copies


@pytest.fixture()
def broken_dir(tmp_path: Path) -> Path:
    for name in FILES:
        shutil.copy(HARDWARE_DIR / name, tmp_path / name)
    return tmp_path


def _edit(directory: Path, name: str, change) -> None:  # noqa: ANN001 - a small callback
    path = directory / name
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _entry(data: list[dict], entry_id: str) -> dict:
    return next(e for e in data if e["id"] == entry_id)


def _expect_error(directory: Path, file_name: str, entry: str, field: str) -> CatalogError:
    with pytest.raises(CatalogError) as info:
        load_catalog(directory)
    err = info.value
    message = str(err)
    assert file_name in message and entry in message and field in message, message
    assert err.path.endswith(file_name) and err.entry == entry and err.field_name == field
    return err


def test_unmodified_copy_loads(broken_dir: Path) -> None:
    assert len(load_catalog(broken_dir).gpus) == 21 + len(NEW_CARDS) + len(EXPANSION_CARDS)


def test_missing_field_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "gpus.yaml", lambda d: _entry(d, "l4").pop("memory_gb"))
    _expect_error(broken_dir, "gpus.yaml", "l4", "memory_gb")


def test_negative_bandwidth_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "gpus.yaml", lambda d: _entry(d, "h100-sxm").__setitem__("memory_bandwidth_gbps", -3350))
    _expect_error(broken_dir, "gpus.yaml", "h100-sxm", "memory_bandwidth_gbps")


def test_negative_nested_link_bandwidth_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "gpus.yaml", lambda d: _entry(d, "a100-80gb-sxm")["scale_up"].__setitem__("bandwidth_gbps_bidir", -600))
    _expect_error(broken_dir, "gpus.yaml", "a100-80gb-sxm", "scale_up.bandwidth_gbps_bidir")


def test_sparse_figure_in_dense_field_is_rejected(broken_dir: Path) -> None:
    def dense_is_sparse(data: list[dict]) -> None:
        gpu = _entry(data, "h100-sxm")
        gpu["fp16_dense_tflops"] = gpu["bf16_dense_tflops"] = 1979

    _edit(broken_dir, "gpus.yaml", dense_is_sparse)
    with pytest.raises(CatalogError, match="h100-sxm"):
        load_catalog(broken_dir)


def test_instance_naming_unknown_gpu_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "instances.yaml", lambda d: _entry(d, "aws-p5.48xlarge").__setitem__("gpu", "h900"))
    err = _expect_error(broken_dir, "instances.yaml", "aws-p5.48xlarge", "gpu")
    assert "h900" in err.reason


def test_tier_naming_unknown_gpu_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "tiers.yaml", lambda d: _entry(d, "mid")["gpu_options"].append("a200"))
    _expect_error(broken_dir, "tiers.yaml", "mid", "gpu_options")


def test_duplicate_alias_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "gpus.yaml", lambda d: _entry(d, "h200")["aliases"].append("H100"))
    err = _expect_error(broken_dir, "gpus.yaml", "h200", "aliases")
    assert "h100-sxm" in err.reason


def test_duplicate_model_alias_is_reported(broken_dir: Path) -> None:
    _edit(broken_dir, "models.yaml", lambda d: _entry(d, "llama-3.1-70b")["aliases"].append("Llama 3 70B"))
    _expect_error(broken_dir, "models.yaml", "llama-3.1-70b", "aliases")


def test_extra_field_is_rejected(broken_dir: Path) -> None:
    _edit(broken_dir, "models.yaml", lambda d: _entry(d, "qwen-14b").__setitem__("num_params", 14))
    _expect_error(broken_dir, "models.yaml", "qwen-14b", "num_params")


def test_missing_file_is_reported(broken_dir: Path) -> None:
    (broken_dir / "tiers.yaml").unlink()
    with pytest.raises(CatalogError, match="tiers.yaml"):
        load_catalog(broken_dir)


def test_sparse_ratio_helper_sanity() -> None:
    # The dense/sparse convention in one line: NVIDIA's starred figure halves to the dense peak.
    assert math.isclose(1979 / 2, 989.5)
