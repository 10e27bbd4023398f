"""Catalog entries as validated data: GPUs, model architectures, cloud instances, tiers.

Every entry names where its figures come from (``sources``) and when they were
last checked (``checked``). Throughput figures are DENSE tensor-core peaks;
vendors' "with sparsity" figures live only in the ``sparse_*`` fields.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Confidence = Literal["high", "medium", "low"]
# Architectures older than Ampere: no BF16, no TF32, no FP8, and FlashAttention-2 does not run on them.
PRE_AMPERE_ARCHITECTURES = frozenset({"pascal", "volta", "turing"})
# Pascal has no tensor cores: its FP16 figure is packed half precision (P100) or the FP32 rate (GP102 cards, see their notes).
NO_TENSOR_CORE_ARCHITECTURES = frozenset({"pascal"})


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(Strict):
    title: str = Field(min_length=3)
    url: str = Field(pattern=r"^https?://")


class Sourced(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    aliases: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(min_length=1)
    checked: dt.date
    confidence: Confidence = "high"
    notes: str | None = None


def _positive(value: float | None, name: str) -> None:
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise ValueError(f"{name} must be a positive finite number")


class ScaleUpLink(Strict):
    """GPU-to-GPU link inside a server (NVLink, NVLink bridge, Infinity Fabric, HCCS)."""

    name: str
    bandwidth_gbps_bidir: float = Field(gt=0, description="GB/s per GPU, both directions added")
    max_gpus: int = Field(ge=2, description="GPUs one domain of this link connects")

    @property
    def bandwidth_gbps_per_direction(self) -> float:
        return self.bandwidth_gbps_bidir / 2


class GpuSpec(Sourced):
    name: str
    vendor: Literal["nvidia", "amd", "huawei"]
    architecture: str
    form_factor: Literal["sxm", "pcie", "oam", "mezzanine", "nvl"]
    memory_gb: float = Field(gt=0)
    memory_type: str
    memory_bandwidth_gbps: float = Field(gt=0, description="GB/s")
    fp16_dense_tflops: float = Field(gt=0)
    bf16_dense_tflops: float | None = Field(default=None, gt=0)
    tf32_dense_tflops: float | None = Field(default=None, gt=0)
    fp8_dense_tflops: float | None = Field(default=None, gt=0)
    int8_dense_tops: float | None = Field(default=None, gt=0)
    fp32_tflops: float | None = Field(default=None, gt=0, description="CUDA-core FP32, never sparse")
    sparse_fp16_tflops: float | None = Field(default=None, gt=0)
    sparse_fp8_tflops: float | None = Field(default=None, gt=0)
    scale_up: ScaleUpLink | None = None
    pcie_gen: int = Field(ge=3, le=6)
    tdp_w: float = Field(gt=0)
    supports_bf16: bool
    supports_fp8: bool
    # Entry-class cards are sold for inference and light fine-tuning.
    training_class: Literal["entry", "datacenter"] = "datacenter"

    @model_validator(mode="after")
    def _consistent(self) -> GpuSpec:
        if self.supports_bf16 != (self.bf16_dense_tflops is not None):
            raise ValueError("bf16_dense_tflops must be set exactly when supports_bf16 is true")
        if self.supports_fp8 != (self.fp8_dense_tflops is not None):
            raise ValueError("fp8_dense_tflops must be set exactly when supports_fp8 is true")
        if self.architecture.lower() in PRE_AMPERE_ARCHITECTURES and (self.supports_bf16 or self.supports_fp8 or self.tf32_dense_tflops):
            raise ValueError(f"{self.architecture} is older than Ampere: no BF16, FP8 or TF32 (supports_bf16/supports_fp8 false, tf32 null)")
        if self.sparse_fp16_tflops is not None and self.sparse_fp16_tflops < 1.5 * self.fp16_dense_tflops:
            raise ValueError("sparse_fp16_tflops should be about twice the dense figure; is a dense number in the sparse field?")
        return self

    @property
    def supports_flash_attention_2(self) -> bool:
        """FlashAttention-2 needs Ampere or newer (NVIDIA) or CDNA 2+ (AMD, through ROCm)."""
        return self.architecture.lower() not in PRE_AMPERE_ARCHITECTURES

    @property
    def has_tensor_cores(self) -> bool:
        return self.architecture.lower() not in NO_TENSOR_CORE_ARCHITECTURES

    @property
    def pcie_gbps_per_direction(self) -> float:
        return {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}[self.pcie_gen]

    def dense_tflops(self, precision: str) -> float | None:
        return {
            "fp32": self.tf32_dense_tflops or self.fp32_tflops,
            "tf32": self.tf32_dense_tflops,
            "fp16": self.fp16_dense_tflops,
            "bf16": self.bf16_dense_tflops,
            "fp8": self.fp8_dense_tflops,
        }.get(precision)


class MoeSpec(Strict):
    experts: int = Field(ge=2)
    experts_per_token: int = Field(ge=1)
    shared_experts: int = Field(default=0, ge=0)
    expert_ffn_hidden_size: int = Field(gt=0)
    dense_layers: int = Field(default=0, ge=0, description="leading layers with a dense FFN")


class MlaSpec(Strict):
    """Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent."""

    kv_lora_rank: int = Field(gt=0)
    qk_rope_head_dim: int = Field(gt=0)


class ModelArch(Sourced):
    name: str
    family: str
    params_b: float = Field(gt=0, description="total parameters, billions")
    active_params_b: float = Field(gt=0, description="parameters used per token, billions")
    layers: int = Field(gt=0)
    hidden_size: int = Field(gt=0)
    attention_heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    ffn_hidden_size: int = Field(gt=0)
    ffn_type: Literal["swiglu", "geglu", "gelu", "relu"]
    vocab_size: int = Field(gt=0)
    context_length: int = Field(gt=0)
    tied_embeddings: bool = False
    pretraining_tokens: float | None = Field(default=None, gt=0, description="tokens of the published pre-training run (for claim checks)")
    moe: MoeSpec | None = None
    mla: MlaSpec | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ModelArch:
        if self.active_params_b > self.params_b * 1.0001:
            raise ValueError("active_params_b cannot exceed params_b")
        if self.attention_heads % self.kv_heads:
            raise ValueError("attention_heads must be a multiple of kv_heads")
        if self.moe is None and abs(self.active_params_b - self.params_b) > 1e-6 * self.params_b:
            raise ValueError("a dense model's active_params_b must equal params_b")
        return self

    @property
    def attention_kind(self) -> str:
        if self.mla is not None:
            return "mla"
        if self.kv_heads == 1:
            return "mqa"
        if self.kv_heads < self.attention_heads:
            return "gqa"
        return "mha"

    @property
    def params(self) -> float:
        return self.params_b * 1e9

    @property
    def active_params(self) -> float:
        return self.active_params_b * 1e9

    @property
    def embedding_params(self) -> float:
        """Input embedding plus, when untied, the output head."""
        return self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)


class Price(Strict):
    on_demand_per_hour: float = Field(gt=0, description="whole instance, in `currency`")
    currency: Literal["USD", "CNY"]
    region: str
    as_of: dt.date
    spot_per_hour: float | None = Field(default=None, gt=0)
    reserved_1y_per_hour: float | None = Field(default=None, gt=0)


class InstanceType(Sourced):
    provider: Literal["aws", "gcp", "azure", "tencent", "alibaba", "lambda", "other"]
    name: str
    gpu: str = Field(description="id of a GpuSpec")
    gpu_count: int = Field(ge=1)
    vcpus: int = Field(ge=1)
    ram_gb: float = Field(gt=0)
    local_nvme_tb: float = Field(default=0, ge=0)
    network_gbps: float = Field(gt=0, description="instance network, Gbit/s")
    rdma: Literal["none", "efa", "infiniband", "roce", "gpudirect-tcpx"] = "none"
    price: Price


class TierProfile(Strict):
    """One of the seed article's three tiers, with its hardware profile."""

    id: Literal["entry", "mid", "production"]
    name_en: str
    name_zh: str
    audience_en: str
    audience_zh: str
    cpu: str
    cpu_cores_min: int = Field(ge=1)
    ram_gb: int = Field(ge=1)
    gpu_options: list[str] = Field(min_length=1, description="GpuSpec ids")
    gpus_per_node: int = Field(ge=1)
    storage: str
    storage_read_gbps: float = Field(gt=0, description="aggregate read, GB/s")
    network: str
    network_gbps: float = Field(gt=0)
    sources: list[Source] = Field(min_length=1)
    checked: dt.date

    @field_validator("gpu_options")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        return [v.strip().lower() for v in value]
