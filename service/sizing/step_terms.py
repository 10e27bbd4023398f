"""The physics of one training step for a stated layout: FLOPs and bytes per layer, and how fast a GPU runs them.

Kept apart from step_time.py (the request, the result and the order of the terms) so the arithmetic can be
read, and tested, on its own. Everything here is per GPU and per micro-batch unless a name says otherwise.

The efficiency constants below were fitted once, by hand, on the development half of
evaluators/datasets/step_time_runs.jsonl (never on the held-out half that `advisor validate` scores) and are
the only tuned numbers of the model: the matmul efficiency a GPU generation reaches on large GEMMs and the
GEMM size at which it reaches half of that, the HBM efficiency of element-wise kernels, and how many
passes over memory those kernels make.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.catalog import GpuSpec
from service.sizing.shapes import ModelShape

# Share of the dense tensor peak that large, well-shaped GEMMs reach in training (cuBLAS, bf16/fp16).
# Ampere ~0.82 (A100: ~255 of 312 TFLOP/s), Hopper ~0.72 (H100 SXM: ~710 of 989), FP8 on Hopper ~0.55 of its FP8 peak.
MATMUL_EFFICIENCY = {"volta": 0.80, "turing": 0.75, "ampere": 0.82, "ada lovelace": 0.70, "hopper": 0.72, "blackwell": 0.70}
MATMUL_EFFICIENCY_FP8 = 0.55
DEFAULT_MATMUL_EFFICIENCY = 0.70
# GEMM work (GFLOP per call, per GPU) at which the efficiency is half of the large-GEMM figure: small shards run slower.
HALF_EFFICIENCY_GFLOP = 1.5
# FlashAttention's fused kernels reach a lower share of peak than plain GEMMs (FlashAttention-2 paper: 50-73% on A100 forward,
# less backward); applied on top of the GEMM efficiency.
FLASH_ATTENTION_FACTOR = 0.75
# Eager PyTorch with FSDP (torchtitan) runs its GEMMs and attention at this share of what Megatron-Core's fused kernels
# reach (the efficiencies above were swept on Megatron runs); fitted on the development half's three torchtitan runs only
# (dev median error 1.5%), once the data-parallel collectives move at NCCL's multi-rail bandwidth.
FRAMEWORK_FACTOR = {"megatron": 1.0, "pytorch-fsdp": 0.85}
# Element-wise kernels (layer norm, dropout, bias, residual add, activation, softmax) are bound by HBM bandwidth.
HBM_EFFICIENCY = 0.70
# Passes over memory of 16-bit tensors per layer in the forward pass (each read or write of an s·b·h tensor is one pass):
# two layer norms (read, write), two dropouts (read, write, mask), two residual adds (2 reads, 1 write), QKV/output bias.
PASSES_HIDDEN = 20.0
# Over the FFN's s·b·f tensor: bias + GeLU (read, write) or SwiGLU (two reads, one write), plus bias.
PASSES_FFN = 4.0
# Over the s² attention scores when they are materialised (no FlashAttention): fused scale+mask+softmax (read, write),
# fused dropout (read, write); the byte-wide mask is ignored.
PASSES_SCORES = 4.0
# The backward pass of element-wise kernels moves about twice the forward's bytes (gradient in, gradient out, saved input).
BACKWARD_BYTES_FACTOR = 2.0
# Adam's step per parameter shard: read fp32 master, m, v and the gradient, write master, m, v and the 16-bit copy.
OPTIMIZER_BYTES_PER_PARAM = 30.0


@dataclass(frozen=True)
class LayerWork:
    """One transformer layer, one micro-batch, on one GPU (already divided by tensor and context parallelism)."""

    linear_flops: float  # QKV, output projection and MLP GEMMs, forward
    attention_flops: float  # Q·Kᵀ and A·V, forward (halved for causal FlashAttention, which skips masked blocks)
    largest_gemm_gflop: float  # the MLP up-projection: sets the GEMM efficiency
    elementwise_bytes: float  # forward
    scores_bytes: float  # forward, the materialised s² scores (0 with FlashAttention)


def layer_work(shape: ModelShape, *, seq: int, micro_batch: int, tp: int, cp: int, sequence_parallel: bool, flash: bool,
               act_bytes: float = 2.0) -> LayerWork:
    """FLOPs and bytes of one layer's forward pass on one GPU."""
    h, a, g, d, f = shape.hidden, shape.heads, shape.kv_heads, shape.head_dim, shape.ffn
    tokens = micro_batch * seq / cp  # tokens this GPU holds (context parallelism splits the sequence)
    q_out, kv_out = a * d, g * d
    mlp_mats = 3 if shape.gated_ffn else 2
    linear = 2 * tokens * h * (q_out + 2 * kv_out + q_out) + 2 * tokens * h * f * mlp_mats
    # Each of this GPU's tokens attends to the whole sequence (context parallelism exchanges K and V around a ring).
    scores = 4 * tokens * seq * q_out
    if flash:
        scores /= 2  # causal: the kernel skips the masked upper triangle
    # Without sequence parallelism every TP rank repeats the norms, dropouts and residual adds on the whole s·b·h tensor.
    hidden_bytes = PASSES_HIDDEN * tokens * h * act_bytes / (tp if sequence_parallel else 1)
    ffn_bytes = PASSES_FFN * tokens * f * (1.5 if shape.gated_ffn else 1.0) * act_bytes / tp
    score_bytes = 0.0 if flash else PASSES_SCORES * micro_batch * (a / tp) * (seq / cp) * seq * act_bytes
    return LayerWork(linear_flops=linear / tp, attention_flops=scores / tp, largest_gemm_gflop=2 * tokens * h * f / tp / 1e9,
                     elementwise_bytes=hidden_bytes + ffn_bytes, scores_bytes=score_bytes)


def matmul_efficiency(gpu: GpuSpec, precision: str, gemm_gflop: float) -> float:
    """Share of the dense peak a GEMM of this size reaches: the generation's large-GEMM figure, less for small GEMMs."""
    top = MATMUL_EFFICIENCY_FP8 if precision == "fp8" else MATMUL_EFFICIENCY.get(gpu.architecture.lower(), DEFAULT_MATMUL_EFFICIENCY)
    return top * gemm_gflop / (gemm_gflop + HALF_EFFICIENCY_GFLOP)


def ring_collective_seconds(size_bytes: float, ranks: int, bandwidth_gbps: float, latency_us: float, *, all_reduce: bool) -> float:
    """NCCL ring: an all-reduce moves 2(n−1)/n of the message per GPU, an all-gather or reduce-scatter (n−1)/n."""
    if ranks <= 1 or size_bytes <= 0:
        return 0.0
    steps = 2 * (ranks - 1) if all_reduce else ranks - 1
    return steps / ranks * size_bytes / (bandwidth_gbps * 1e9) + steps * latency_us * 1e-6
