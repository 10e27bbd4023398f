"""Resolve a model reference to the architecture numbers the formulas need."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from service.catalog import Catalog, ModelArch
from service.errors import InputError, Problem
from service.sizing.base import ModelRef
from service.sizing.work import Ledger


class ModelShape(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    params: float
    active_params: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    gated_ffn: bool
    vocab: int
    tied_embeddings: bool
    context_length: int
    is_moe: bool = False
    mla_latent_dim: int | None = None  # kv_lora_rank + rope dim, for the MLA KV cache
    estimated: bool = False  # True when derived from a bare parameter count

    @property
    def embedding_params(self) -> float:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def layer_params(self) -> float:
        """Parameters of one transformer block (dense FFN; MoE models: total over experts)."""
        return (self.params - self.embedding_params) / self.layers

    def linear_dims(self, targets: str) -> list[tuple[int, int]]:
        """(d_in, d_out) of the linear layers LoRA adapts, per block."""
        q_out, kv_out = self.heads * self.head_dim, self.kv_heads * self.head_dim
        attention = [(self.hidden, q_out), (self.hidden, kv_out), (self.hidden, kv_out), (q_out, self.hidden)]
        if targets == "attention":
            return attention
        mlp = [(self.hidden, self.ffn), (self.ffn, self.hidden)]
        if self.gated_ffn:
            mlp.append((self.hidden, self.ffn))
        return attention + mlp


def _from_arch(arch: ModelArch) -> ModelShape:
    mla = arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim if arch.mla else None
    return ModelShape(
        name=arch.id,
        params=arch.params,
        active_params=arch.active_params,
        layers=arch.layers,
        hidden=arch.hidden_size,
        heads=arch.attention_heads,
        kv_heads=arch.kv_heads,
        head_dim=arch.head_dim,
        ffn=arch.ffn_hidden_size,
        gated_ffn=arch.ffn_type in ("swiglu", "geglu"),
        vocab=arch.vocab_size,
        tied_embeddings=arch.tied_embeddings,
        context_length=arch.context_length,
        is_moe=arch.moe is not None,
        mla_latent_dim=mla,
    )


def estimate_shape(params: float) -> ModelShape:
    """A Llama-like dense shape for a bare parameter count.

    Uses P ~= 12*L*h^2 with the aspect ratio h/L ~= 128 seen in Llama 2/3, a
    32k vocabulary, head dim 128, grouped-query attention above 30B and
    SwiGLU with ffn = 8/3 h.
    """
    hidden = (params * 128 / 12) ** (1 / 3)
    # Above 30B the heads are grouped 8 to a KV head, so the head count must divide by 8: a 70B would otherwise get
    # 71 heads and full multi-head attention, a KV cache about 9x what the GQA models of that size have.
    step = 1024 if params > 30e9 else 128
    hidden = max(256, int(round(hidden / step)) * step)
    layers = max(2, int(round(params / (12 * hidden * hidden))))
    heads = max(1, hidden // 128)
    kv_heads = 8 if params > 30e9 and heads % 8 == 0 else heads
    return ModelShape(
        name=f"{params / 1e9:g}B (estimated shape)",
        params=params,
        active_params=params,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=hidden // heads,
        ffn=int(hidden * 8 / 3),
        gated_ffn=True,
        vocab=32000,
        tied_embeddings=False,
        context_length=4096,
        estimated=True,
    )


def resolve_shape(ref: ModelRef, catalog: Catalog, ledger: Ledger) -> ModelShape:
    if ref.model:
        arch = catalog.model(ref.model)
        shape = _from_arch(arch)
        ledger.from_catalog("model", arch.id, "", f"{arch.name}: {arch.sources[0].url}")
        if ref.params_b is not None:
            ledger.given("params_b", ref.params_b, "B")
            shape = shape.model_copy(update={"params": ref.params_b * 1e9, "active_params": min(shape.active_params, ref.params_b * 1e9)})
        else:
            ledger.from_catalog("params_b", round(arch.params_b, 3), "B", arch.id)
        if arch.moe:
            ledger.from_catalog("active_params_b", round(arch.active_params_b, 3), "B", arch.id)
        return shape
    if ref.params_b is None:
        raise InputError([Problem("model", "give a model name (e.g. llama-3-8b) or params_b (parameters in billions)",
                                  "请给出模型名称（如 llama-3-8b）或参数量 params_b（单位：十亿）", allowed="a catalog model name, or params_b > 0")])
    shape = estimate_shape(ref.params_b * 1e9)
    ledger.given("params_b", ref.params_b, "B")
    ledger.assume(
        "shape_estimated",
        f"Architecture estimated from the parameter count (Llama-like: {shape.layers} layers, hidden {shape.hidden}); name a catalog model for exact activation and KV-cache figures.",
        f"模型结构由参数量估算（类 Llama：{shape.layers} 层，隐藏维度 {shape.hidden}）；给出目录中的模型名称可得到更准确的激活与 KV 缓存数值。",
    )
    return shape


def gib(num_bytes: float) -> float:
    return num_bytes / 2**30


def ceil_div(a: float, b: float) -> int:
    return int(math.ceil(a / b - 1e-9))
