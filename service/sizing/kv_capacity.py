"""KV-cache capacity as a serving engine counts it (vLLM): what is left of the memory fraction after the weights on
each tensor-parallel rank, the profiled activation peak and the non-torch (CUDA context, NCCL) memory, in whole
blocks of `block_size` tokens.

    available = total_gpu_memory · gpu_memory_utilization − weights/tp − activation_peak − non_torch [− CUDA graphs]
    tokens    = floor(available / (block_size · kv_bytes_per_token_per_rank)) · block_size

The activation peak is the larger of the dummy forward pass over max_num_batched_tokens and the dummy sampler
run over max_num_seqs (fp32 logits and their copies over the whole vocabulary, which is what sets it in vLLM V1).
`kv_capacity(request, catalog)` is the function callers use; it is also the registered tool `kv-capacity`.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from service.catalog import Catalog, GpuSpec
from service.sizing import references as ref
from service.sizing.base import ModelRef, SizingResult
from service.sizing.shapes import gib, resolve_shape
from service.sizing.work import Ledger, sig

Engine = Literal["vllm-v1", "vllm-v0"]
WeightDtype = Literal["bf16", "fp16", "fp8", "int8", "int4", "fp32"]
KvDtype = Literal["auto", "fp8", "fp16", "bf16"]
WEIGHT_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 4.25 / 8}

# Memory CUDA reports as total (torch.cuda.mem_get_info), below the marketing figure; from vLLM start-up logs.
CUDA_TOTAL_GIB = {"h100-sxm": 79.19, "h800": 79.19, "h100-pcie": 79.19, "a100-80gb-sxm": 79.15, "a100-80gb-pcie": 79.15,
                  "a100-40gb-sxm": 39.39, "a100-40gb-pcie": 39.39, "rtx-4090": 23.58, "rtx-3090": 23.58, "l40s": 44.39, "l4": 22.06}
CUDA_TOTAL_SOURCE = "vLLM start-up logs: 'total_memory=79.19GiB' (H100 80GB, llm-d-planner accuracy logs), 'total_gpu_memory=23.58GiB' (RTX 3090/4090, vllm#10517)"
# The sampler's dummy run holds fp32 logits for max_num_seqs rows and about three more vocabulary-wide copies
# (probabilities, log-probabilities, the sorted top-p buffer): fitted on logged activation peaks of vLLM 0.19
# (Llama-3.1-8B 1.89 GiB, Qwen2.5-7B 2.21 GiB with 1,024 sequences).
SAMPLER_COPIES = 3.8
# The dummy forward pass keeps the MLP's gate/up output and activation (3·f) and a few hidden-size tensors (3·h) per token, 16-bit.
FORWARD_FFN_TENSORS, FORWARD_HIDDEN_TENSORS = 3.0, 3.0
NON_TORCH_GIB = 0.3  # CUDA context and cuBLAS workspaces on one GPU
NON_TORCH_TP_NVLINK_GIB = 1.8  # extra at tp > 1 over NVLink: NCCL and custom all-reduce buffers (~2.1 GiB per GPU logged)


class KvCapacityRequest(ModelRef):
    """The serving engine's own arguments."""

    gpu: str = Field(min_length=1, max_length=80)
    tp: int = Field(default=1, ge=1, le=64, description="--tensor-parallel-size")
    dtype: WeightDtype = Field(default="bf16", description="weight format (--dtype, or the checkpoint's quantisation)")
    kv_cache_dtype: KvDtype = Field(default="auto", description="--kv-cache-dtype; auto = the activation dtype")
    gpu_memory_utilization: float = Field(default=0.9, ge=0.05, le=1.0, description="--gpu-memory-utilization")
    max_model_len: int | None = Field(default=None, ge=16, le=10_000_000, description="--max-model-len; default the model's context")
    block_size: int = Field(default=16, ge=1, le=1024, description="--block-size (tokens per KV block)")
    max_num_batched_tokens: int | None = Field(default=None, ge=16, le=10_000_000,
                                               description="default: V1 serve 8192 on 70+ GB GPUs other than A100, else 2048; V0 max_model_len")
    max_num_seqs: int | None = Field(default=None, ge=1, le=100_000, description="default: 1024 (V1 serve on 70+ GB GPUs other than A100), else 256")
    engine: Engine = "vllm-v1"
    cuda_graphs_in_budget: bool = Field(default=False, description="vLLM >= 0.21 profiles CUDA graphs before sizing the cache")
    cuda_graph_gib: float = Field(default=1.0, ge=0, le=64, description="CUDA-graph pool when it counts against the budget")


class KvCapacityResult(SizingResult):
    tool: Literal["kv-capacity"] = "kv-capacity"
    model: str
    gpu: str
    tp: int
    total_gpu_memory_gib: float
    budget_gib: float
    weights_gib: float = Field(description="per tensor-parallel rank")
    activation_peak_gib: float
    non_torch_gib: float
    kv_cache_gib: float = Field(description="per GPU")
    kv_bytes_per_token: float = Field(description="per rank")
    num_gpu_blocks: int
    kv_cache_tokens: int
    max_model_len: int
    max_concurrency: float = Field(description="kv_cache_tokens / max_model_len")
    fits_max_model_len: bool


def total_memory_gib(gpu: GpuSpec, ledger: Ledger) -> float:
    if gpu.id in CUDA_TOTAL_GIB:
        return ledger.from_catalog("total_gpu_memory", CUDA_TOTAL_GIB[gpu.id], "GiB", CUDA_TOTAL_SOURCE)
    return ledger.derived("total_gpu_memory", round(gpu.memory_gb * 0.99, 2), "GiB", "catalog memory less ~1% CUDA does not report")


def kv_capacity(req: KvCapacityRequest, catalog: Catalog) -> KvCapacityResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    tp = ledger.field(req, "tp")
    engine = ledger.field(req, "engine")
    dtype = ledger.field(req, "dtype")
    kv_dtype = ledger.field(req, "kv_cache_dtype")
    util = ledger.field(req, "gpu_memory_utilization", "", "vLLM's default")
    max_len = ledger.field(req, "max_model_len", "tokens", "the model's context length", default=shape.context_length)
    block = ledger.field(req, "block_size", "tokens")
    # vLLM's own defaults (engine/arg_utils.py, V1 `vllm serve`): GPUs of 70+ GiB other than the A100 get 8192 batched tokens and
    # 1024 sequences; every other GPU 2048 and 256 ("larger defaults regress throughput on A100", vLLM PR #17885).
    big_gpu = gpu.memory_gb >= 70 and not gpu.id.startswith("a100")
    batched = ledger.field(req, "max_num_batched_tokens", "tokens", "V1 serve default: 8192 on 70+ GB GPUs (not A100), else 2048; V0 profiles a whole max_model_len prompt",
                           default=(8192 if big_gpu else 2048) if engine == "vllm-v1" else max_len)
    seqs = ledger.field(req, "max_num_seqs", "", "V1 serve on 70+ GB GPUs (not A100): 1024; otherwise 256", default=1024 if engine == "vllm-v1" and big_gpu else 256)
    total = total_memory_gib(gpu, ledger)
    budget = ledger.step("kv.budget_gib", "total_gpu_memory · gpu_memory_utilization", total * util, "GiB")

    per_param = WEIGHT_BYTES[dtype]
    if dtype in ("int8", "int4", "fp8"):
        # Embeddings and the LM head stay 16-bit in quantised checkpoints.
        weights = ((shape.params - shape.embedding_params) * per_param + shape.embedding_params * 2) / tp
    else:
        weights = shape.params * per_param / tp
    weights_gib = ledger.step("kv.weights_gib", "params·bytes/tp (16-bit embeddings when quantised)", gib(weights), "GiB")
    forward = batched * 2 * (FORWARD_FFN_TENSORS * shape.ffn / tp + FORWARD_HIDDEN_TENSORS * shape.hidden)
    sampler = seqs * shape.vocab * 4 * SAMPLER_COPIES
    ledger.step("kv.forward_peak_gib", "max_num_batched_tokens·2·(3·f/tp + 3·h)", gib(forward), "GiB")
    ledger.step("kv.sampler_peak_gib", "max_num_seqs·V·4 bytes·3.8 copies", gib(sampler), "GiB")
    activation_gib = ledger.step("kv.activation_peak_gib", "max(forward, sampler)", gib(max(forward, sampler)), "GiB")
    nvlink = gpu.scale_up is not None
    non_torch = NON_TORCH_GIB + (NON_TORCH_TP_NVLINK_GIB if tp > 1 and nvlink else 0.0)
    ledger.default("non_torch_gib", non_torch, "GiB", "CUDA context; plus NCCL/custom all-reduce buffers at tp > 1 over NVLink")
    graphs = ledger.field(req, "cuda_graph_gib", "GiB", "typical CUDA-graph pool") if req.cuda_graphs_in_budget else 0.0
    if not req.cuda_graphs_in_budget:
        ledger.assume("cuda_graphs_after", "CUDA graphs are captured after the cache is sized (vLLM before 0.21), so they do not reduce it.",
                      "CUDA graph 在 KV 缓存分配之后才捕获（vLLM 0.21 之前），因此不占用 KV 缓存的预算。")
    kv_gib = ledger.step("kv.cache_gib", "budget − weights − activation − non_torch − CUDA graphs", budget - weights_gib - activation_gib - non_torch - graphs, "GiB")
    kv_bytes = 1.0 if kv_dtype == "fp8" else 2.0
    if shape.mla_latent_dim:
        per_token = ledger.step("kv.bytes_per_token", "(kv_lora_rank + rope_dim)·L·bytes (MLA, replicated on every rank)",
                                shape.mla_latent_dim * shape.layers * kv_bytes, "bytes")
    else:
        heads = max(1, math.ceil(shape.kv_heads / tp))
        per_token = ledger.step("kv.bytes_per_token", "2·L·ceil(kv_heads/tp)·head_dim·bytes", 2 * shape.layers * heads * shape.head_dim * kv_bytes, "bytes")
    blocks = max(0, math.floor(kv_gib * 2**30 / (per_token * block)))
    tokens = ledger.step("kv.tokens", "floor(cache / (block_size·bytes_per_token))·block_size", blocks * block, "tokens")
    fits = tokens >= max_len
    if not fits:
        ledger.warn("max_len_too_long", f"The cache holds {int(tokens):,} tokens, fewer than max_model_len {max_len:,}: vLLM refuses to start; lower --max-model-len or raise --gpu-memory-utilization.",
                    f"KV 缓存只能容纳 {int(tokens):,} 个 token，少于 max_model_len {max_len:,}：vLLM 会拒绝启动；请调低 --max-model-len 或调高 --gpu-memory-utilization。", "critical")
    ledger.cite(ref.PAGED_ATTENTION.title, ref.PAGED_ATTENTION.url)
    ledger.cite(ref.LLM_D_PLANNER.title, ref.LLM_D_PLANNER.url)
    return KvCapacityResult(
        model=shape.name, gpu=gpu.id, tp=tp, total_gpu_memory_gib=total, budget_gib=sig(budget), weights_gib=sig(weights_gib),
        activation_peak_gib=sig(activation_gib), non_torch_gib=non_torch, kv_cache_gib=sig(kv_gib), kv_bytes_per_token=per_token,
        num_gpu_blocks=blocks, kv_cache_tokens=int(tokens), max_model_len=max_len, max_concurrency=sig(tokens / max_len, 4),
        fits_max_model_len=fits, work=ledger.work(),
    )
