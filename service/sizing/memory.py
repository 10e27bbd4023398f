"""Training memory per GPU: model states, activations, buffers and runtime overhead.

Conventions (stated in every result):
- "textbook-16": mixed-precision Adam keeps 2 (16-bit weights) + 2 (16-bit grads)
  + 4 (fp32 master) + 8 (fp32 Adam m, v) = 16 bytes/param (ZeRO paper).
- "megatron-18": gradients accumulate in fp32 (4 bytes) instead of 16-bit,
  giving 18 bytes/param (Megatron-LM, DeepSpeed implementations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.catalog import Catalog, GpuSpec
from service.errors import InputConflictError, Problem
from service.i18n import BilingualValueError
from service.sizing import references as ref
from service.sizing.base import Method, ModelRef, SizingResult, Task, TrainPrecision
from service.sizing.shapes import ModelShape, gib, resolve_shape
from service.sizing.work import Ledger, NullLedger, sig

Optimizer = Literal["adamw", "adamw-8bit", "sgd-momentum", "adafactor"]
Sharding = Literal["none", "zero1", "zero2", "zero3", "fsdp"]
Recompute = Literal["none", "selective", "full"]
# ZeRO-Offload / ZeRO-Infinity and FSDP CPU offload: what lives in host memory instead of on the GPU.
Offload = Literal["none", "optimizer", "optimizer+params"]
Convention = Literal["textbook-16", "megatron-18"]
Fit = Literal["fits", "tight", "does_not_fit"]

OPTIMIZER_BYTES = {"adamw": 8.0, "adamw-8bit": 2.0, "sgd-momentum": 4.0}
DEFAULT_OVERHEAD_GIB = 2.0
TIGHT_ABOVE = 0.90
# NF4 with block size 64 and double quantisation: 4 + 8/64 + 32/(64*256) bits per weight (QLoRA §3).
NF4_BITS_DOUBLE_QUANT = 4 + 8 / 64 + 32 / (64 * 256)
NF4_BITS = 4 + 32 / 64


class TrainingMemoryRequest(ModelRef):
    task: Task = "fine-tune"
    method: Method = Field(default="full", description="full: every weight trained; lora/qlora: adapters on a frozen (4-bit for qlora) base")
    precision: TrainPrecision | None = Field(default=None, description="default: bf16 where the GPU supports it, else fp16")
    optimizer: Optimizer = "adamw"
    sharding: Sharding = "none"
    offload: Offload = Field(default="none", description="optimizer: optimizer states and gradients in host memory (ZeRO-Offload); "
                             "optimizer+params: the weights too (ZeRO-3 offload_param, FSDP cpu_offload)")
    gpus: int = Field(default=1, ge=1, le=100_000, description="GPUs the job runs on (data x tensor x pipeline)")
    tp: int = Field(default=1, ge=1, le=64, description="tensor-parallel size")
    pp: int = Field(default=1, ge=1, le=256, description="pipeline-parallel size")
    seq_len: int = Field(default=2048, ge=16, le=2_000_000)
    micro_batch: int = Field(default=1, ge=1, le=4096)
    recompute: Recompute | None = Field(default=None, description="default: full for QLoRA, selective otherwise")
    flash_attention: bool | None = Field(default=None, description="default: on, except on GPUs that cannot run FlashAttention-2")
    lora_rank: int = Field(default=16, ge=1, le=4096)
    lora_base_bits: Literal[16, 8] = Field(default=16, description="LoRA's frozen base: 16-bit, or 8-bit (LLM.int8, load_in_8bit)")
    lora_targets: Literal["attention", "all-linear"] = "all-linear"
    double_quant: bool = True
    convention: Convention = "textbook-16"
    overhead_gib: float = Field(default=DEFAULT_OVERHEAD_GIB, ge=0, le=64)
    gpu: str | None = Field(default=None, max_length=80, description="GPU to check the fit against")
    sequence_parallel: bool = Field(default=True, description="Megatron sequence parallelism: off keeps norm inputs and dropout masks whole on every TP rank")

    @model_validator(mode="after")
    def _parallel_layout(self) -> TrainingMemoryRequest:
        if self.gpus % (self.tp * self.pp):
            raise BilingualValueError(
                f"gpus ({self.gpus}) must be a multiple of tp x pp ({self.tp * self.pp})",
                f"gpus（{self.gpus}）必须是 tp × pp（{self.tp * self.pp}）的整数倍",
                allowed="gpus = data_parallel x tp x pp",
            )
        return self


class MemoryBreakdown(BaseModel):
    model_config = ConfigDict(frozen=True)

    weights_gib: float
    gradients_gib: float
    optimizer_gib: float = Field(description="optimizer moments plus fp32 master weights")
    activations_gib: float
    buffers_gib: float = Field(description="ZeRO-3/FSDP gather or QLoRA dequantisation buffers")
    overhead_gib: float
    total_gib: float


class TrainingMemoryResult(SizingResult):
    tool: Literal["training-memory"] = "training-memory"
    model: str
    params_b: float
    trainable_params_b: float
    task: Task
    method: Method
    precision: TrainPrecision
    optimizer: Optimizer
    sharding: Sharding
    offload: Offload = "none"
    host_offload_gib: float = Field(default=0.0, description="bytes moved to host memory, all GPUs together")
    gpus: int
    tp: int
    pp: int
    data_parallel: int
    seq_len: int
    micro_batch: int
    recompute: Recompute
    flash_attention: bool
    convention: Convention
    bytes_per_param: float = Field(description="model-state bytes per parameter before sharding")
    model_states_total_gib: float = Field(description="all model states across all GPUs")
    per_gpu: MemoryBreakdown
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    memory_used_fraction: float | None = None
    fit: Fit | None = None


def fit_verdict(total_gib: float, capacity_gib: float) -> Fit:
    if total_gib > capacity_gib:
        return "does_not_fit"
    return "tight" if total_gib > TIGHT_ABOVE * capacity_gib else "fits"


def resolve_precision(requested: str | None, gpu: GpuSpec | None, ledger: Ledger, *, field: str = "precision") -> str:
    """Default to bf16 where supported; refuse formats the GPU cannot run."""
    if requested is None:
        value = "bf16" if gpu is None or gpu.supports_bf16 else "fp16"
        why = "bf16 mixed precision is the norm on Ampere and newer" if value == "bf16" else f"{gpu.name} has no bf16; fp16 mixed precision with loss scaling"
        return ledger.default("precision", value, "", why)
    if gpu is not None:
        if requested == "bf16" and not gpu.supports_bf16:
            raise InputConflictError([Problem(field, f"{gpu.name} does not support bf16; use fp16 (mixed precision with loss scaling) or fp32",
                                              f"{gpu.name} 不支持 bf16；请使用 fp16（带 loss scaling 的混合精度）或 fp32", allowed="fp16, fp32")])
        if requested == "fp8" and not gpu.supports_fp8:
            raise InputConflictError([Problem(field, f"{gpu.name} has no FP8 tensor cores (FP8 needs Hopper, Ada or Blackwell); use bf16",
                                              f"{gpu.name} 没有 FP8 张量核心（FP8 需要 Hopper、Ada 或 Blackwell 架构）；请使用 bf16", allowed="bf16, fp16, fp32")])
    return ledger.given("precision", requested)


def check_method(task: str, method: str, precision: str | None) -> None:
    """Refuse combinations that cannot be trained as asked."""
    if task == "pretrain" and method in ("lora", "qlora"):
        raise InputConflictError([Problem("method", f"{method.upper()} adapts a pre-trained model; pre-training trains every weight (method=full)",
                                          f"{method.upper()} 用于在已预训练模型上做适配；预训练需要训练全部权重（method=full）", allowed="full")])
    if method == "qlora" and precision in ("fp32", "fp8"):
        raise InputConflictError([Problem("precision", "QLoRA computes in bf16 or fp16 over 4-bit weights",
                                          "QLoRA 在 4 位权重上以 bf16 或 fp16 计算", allowed="bf16, fp16")])


def _state_bytes(precision: str, optimizer: str, convention: str, shape: ModelShape, ledger: Ledger) -> tuple[float, float, float]:
    """(weights, gradients, optimizer incl. master) bytes per trained parameter."""
    if optimizer == "adafactor":
        # Factored second moment: one row and one column vector per matrix, no first moment.
        factored = 4 * sum(a + b for a, b in shape.linear_dims("all-linear")) * shape.layers + 4 * (shape.vocab + shape.hidden)
        opt = factored / shape.params
        ledger.cite(ref.ADAFACTOR.title, ref.ADAFACTOR.url)
    else:
        opt = OPTIMIZER_BYTES[optimizer]
        if optimizer == "adamw-8bit":
            ledger.cite(ref.ADAM_8BIT.title, ref.ADAM_8BIT.url)
    if precision == "fp32":
        return 4.0, 4.0, opt
    weights = 2.0
    if precision == "fp8":
        weights = 3.0
        ledger.assume("fp8_weight_cache", "FP8 training (Transformer Engine) keeps bf16 weights plus an FP8 copy: 3 bytes per weight.",
                      "FP8 训练（Transformer Engine）同时保存 bf16 权重和一份 FP8 副本：每个权重 3 字节。")
    grads = 4.0 if convention == "megatron-18" else 2.0
    return weights, grads, opt + 4.0  # + fp32 master weights


def _layer_activations(shape: ModelShape, s: int, b: int, t: int, flash: bool, act_bytes: float, sequence_parallel: bool = True) -> tuple[float, float]:
    """Bytes one layer stores for backward: (linear part, attention-score part).

    Korthikanti et al. 2022 (sbh·(34 + 5as/h) for MHA with a 4h GeLU FFN), generalised
    to grouped-query attention (K, V shrink by g/a) and gated FFNs (one more f-wide
    tensor), with sequence parallelism dividing everything by the TP size.
    """
    h, a, f = shape.hidden, shape.heads, shape.ffn
    coeff = 14 + 4 * shape.kv_heads / a + (6.0 if shape.gated_ffn else 4.0) * f / h
    scale = act_bytes / 2  # the coefficients assume 16-bit activations
    # Without sequence parallelism the 10·sbh of layer-norm inputs and dropout masks is held whole on every TP rank.
    linear = s * b * h * coeff * scale / t if sequence_parallel else s * b * h * (10 + (coeff - 10) / t) * scale
    # FlashAttention keeps only the softmax log-sum-exp (fp32 per head and token).
    scores = 4 * a * s * b / t if flash else 5 * a * s * s * b * scale / t
    return linear, scores


def _activations(shape: ModelShape, s: int, b: int, tp: int, pp: int, recompute: str, flash: bool, act_bytes: float, ledger: Ledger,
                 sequence_parallel: bool = True) -> float:
    linear, scores = _layer_activations(shape, s, b, tp, flash, act_bytes, sequence_parallel)
    gated = "6" if shape.gated_ffn else "4"
    ledger.step("activations.layer_linear", f"s·b·h·(14 + 4·g/a + {gated}·f/h)/t" if sequence_parallel else f"s·b·h·(10 + (4 + 4·g/a + {gated}·f/h)/t)", linear, "bytes")
    ledger.step("activations.layer_attention", "4·a·s·b/t (FlashAttention)" if flash else "5·a·s²·b/t", scores, "bytes")
    if recompute == "full":
        kept = ledger.step("activations.layer_full_recompute", "2·s·b·h/t (layer input only)", 2 * s * b * shape.hidden * act_bytes / 2 / tp, "bytes")
    elif recompute == "selective":
        kept = linear + (scores if flash else 0.0)  # selective recomputation drops the s² score tensors
    else:
        kept = linear + scores
    # With 1F1B the first pipeline stage holds pp micro-batches of L/pp layers: L layers' worth.
    total = ledger.step("activations.stored", "per_layer·L", kept * shape.layers, "bytes")
    if recompute == "full":
        total += ledger.step("activations.recompute_working_set", "one layer rebuilt during backward", linear + scores, "bytes")
    if pp == 1:
        total += ledger.step("activations.logits_fp32", "4·s·b·V/t", 4 * s * b * shape.vocab / tp, "bytes")
    return total


@dataclass(frozen=True)
class MemoryPlan:
    """Per-GPU bytes before data-parallel sharding (already divided by tp·pp)."""

    trainable: float  # parameters with gradients and optimizer state
    bytes_per_param: float
    weights: float  # trained weights + frozen (LoRA base) weights
    frozen: float
    gradients: float
    optimizer: float
    gather_buffer: float  # ZeRO-3/FSDP all-gather of the largest layer, only when sharding weights
    fixed_buffers: float  # QLoRA dequantisation of one layer
    activations: float

    def per_gpu(self, sharding: str, dp: int, overhead_bytes: float, offload: str = "none") -> dict[str, float]:
        shard_w = dp if sharding in ("zero3", "fsdp") else 1
        shard_g = dp if sharding in ("zero2", "zero3", "fsdp") else 1
        shard_o = dp if sharding != "none" else 1
        # Offloaded states leave the GPU: the optimizer with its gradients (ZeRO-Offload reduces them to host memory), and with
        # offload_param the weights too, gathered a layer at a time (the DeepSpeed estimators' GPU side).
        on_gpu_w = 0.0 if offload == "optimizer+params" else 1.0
        on_gpu_o = 0.0 if offload != "none" else 1.0
        buffers = self.fixed_buffers + (self.gather_buffer if shard_w > 1 or offload == "optimizer+params" else 0.0)
        parts = {
            "weights": on_gpu_w * self.weights / shard_w,
            "gradients": on_gpu_o * self.gradients / shard_g,
            "optimizer": on_gpu_o * self.optimizer / shard_o,
            "buffers": buffers,
            "activations": self.activations,
            "overhead": overhead_bytes,
        }
        parts["total"] = sum(parts.values())
        return parts

    def min_data_parallel(self, sharding: str, budget_bytes: float, overhead_bytes: float) -> float | None:
        """Smallest data-parallel degree whose per-GPU total stays within the budget (None: never)."""
        sharded = self.optimizer if sharding != "none" else 0.0
        if sharding in ("zero2", "zero3", "fsdp"):
            sharded += self.gradients
        if sharding in ("zero3", "fsdp"):
            sharded += self.weights
        fixed = self.per_gpu("none", 1, overhead_bytes)["total"] - sharded
        if sharding in ("zero3", "fsdp"):
            fixed += self.gather_buffer
        room = budget_bytes - fixed
        if room <= 0:
            return None
        return max(1.0, sharded / room) if sharded else (1.0 if fixed <= budget_bytes else None)


def plan_memory(shape: ModelShape, *, method: str, precision: str, optimizer: str, convention: str, recompute: str, flash: bool,
                seq_len: int, micro_batch: int, tp: int = 1, pp: int = 1, lora_rank: int = 16, lora_targets: str = "all-linear",
                double_quant: bool = True, sequence_parallel: bool = True, ledger: Ledger | None = None, lora_base_bits: int = 16) -> MemoryPlan:
    """The arithmetic of training memory, recorded on `ledger` when given."""
    ledger = ledger or NullLedger()
    P = shape.params
    if method == "full":
        w_b, g_b, o_b = _state_bytes(precision, optimizer, convention, shape, ledger)
        trainable, frozen = P, 0.0
    else:
        ledger.cite(ref.LORA.title, ref.LORA.url)
        dims = shape.linear_dims(lora_targets)
        trainable = ledger.step("lora.trainable_params", "r·Σ(d_in + d_out)·L", lora_rank * sum(a + b for a, b in dims) * shape.layers, "params")
        w_b, g_b, o_b = _state_bytes("bf16" if precision == "fp8" else precision, optimizer, convention, shape, ledger)
        if method == "lora":
            base = 4 if precision == "fp32" else 1 if lora_base_bits == 8 else 2
            frozen = ledger.step("lora.frozen_weights", f"P·{base}", P * base, "bytes")
            if lora_base_bits == 8:
                ledger.assume("lora_int8", "The frozen base is held in 8 bits (bitsandbytes LLM.int8): 1 byte per weight.",
                              "冻结的基座以 8 位保存（bitsandbytes LLM.int8）：每个权重 1 字节。")
        else:
            ledger.cite(ref.QLORA.title, ref.QLORA.url)
            bits = NF4_BITS_DOUBLE_QUANT if double_quant else NF4_BITS
            frozen = ledger.step("qlora.nf4_weights", f"(P − embeddings)·{bits:.3f}/8", (P - shape.embedding_params) * bits / 8, "bytes")
            frozen += ledger.step("qlora.embeddings_16bit", "embeddings·2", shape.embedding_params * 2, "bytes")
            ledger.assume("qlora_embeddings", "Embeddings and the output head stay 16-bit under QLoRA (bitsandbytes quantises Linear layers only).",
                          "QLoRA 下嵌入层和输出层保持 16 位（bitsandbytes 只量化 Linear 层）。")
    per_param = ledger.step("model_states.bytes_per_param", f"weights {w_b:g} + grads {g_b:g} + optimizer {o_b:g}", w_b + g_b + o_b, "bytes/param")
    mp = tp * pp
    largest = max(shape.layer_params / mp, shape.vocab * shape.hidden / tp)
    act_bytes = 4.0 if precision == "fp32" else 2.0
    return MemoryPlan(
        trainable=trainable,
        bytes_per_param=per_param,
        weights=(trainable * w_b + frozen) / mp,
        frozen=frozen / mp,
        gradients=trainable * g_b / mp,
        optimizer=trainable * o_b / mp,
        gather_buffer=4 * largest,
        fixed_buffers=2 * shape.layer_params if method == "qlora" else 0.0,
        activations=_activations(shape, seq_len, micro_batch, tp, pp, recompute, flash, act_bytes, ledger, sequence_parallel),
    )


def estimate_training_memory(req: TrainingMemoryRequest, catalog: Catalog) -> TrainingMemoryResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    gpu = catalog.gpu(req.gpu) if req.gpu else None
    if gpu:
        ledger.given("gpu", gpu.id)
        ledger.from_catalog("gpu_memory", gpu.memory_gb, "GiB", gpu.id)
    check_method(req.task, req.method, req.precision)
    ledger.field(req, "task")
    ledger.field(req, "method")
    precision = resolve_precision(req.precision, gpu, ledger)
    optimizer = ledger.field(req, "optimizer")
    convention = ledger.field(req, "convention", why="ZeRO paper accounting; megatron-18 keeps fp32 gradients")
    qlora = req.method == "qlora"
    recompute = ledger.field(req, "recompute", default="full" if qlora else "selective",
                             why="QLoRA recipes enable gradient checkpointing" if qlora else "selective recomputation (Korthikanti et al.)")
    flash_default = gpu is None or gpu.supports_flash_attention_2
    flash = ledger.field(req, "flash_attention", default=flash_default, why=None if flash_default else "FlashAttention-2 needs Ampere or newer")
    seq_len = ledger.field(req, "seq_len", "tokens")
    micro_batch = ledger.field(req, "micro_batch")
    gpus = ledger.field(req, "gpus")
    tp, pp = ledger.field(req, "tp"), ledger.field(req, "pp")
    if tp > 1:
        ledger.field(req, "sequence_parallel", why="Megatron sequence parallelism (activations split across TP ranks)")
    dp = ledger.derived("data_parallel", gpus // (tp * pp), "", "gpus / (tp x pp)")
    sharding = ledger.field(req, "sharding")
    offload = ledger.field(req, "offload")
    if req.method != "full":
        ledger.field(req, "lora_rank")
        if req.method == "lora" and req.lora_base_bits != 16:
            ledger.field(req, "lora_base_bits")
        ledger.field(req, "lora_targets")
    if seq_len > shape.context_length and not shape.estimated:
        ledger.warn("seq_beyond_context", f"seq_len {seq_len} exceeds the model's context length {shape.context_length}.",
                    f"seq_len {seq_len} 超过了模型的上下文长度 {shape.context_length}。")
    if sharding != "none" and dp == 1:
        ledger.warn("sharding_without_dp", "ZeRO/FSDP shards across data-parallel ranks; with one data-parallel rank it saves nothing.",
                    "ZeRO/FSDP 在数据并行副本之间切分；只有一个数据并行副本时不会节省显存。")
    ledger.cite(ref.ZERO.title, ref.ZERO.url)
    ledger.cite(ref.KORTHIKANTI.title, ref.KORTHIKANTI.url)
    if sharding in ("zero3", "fsdp"):
        ledger.cite(ref.DEEPSPEED_MEMORY.title, ref.DEEPSPEED_MEMORY.url)
    plan = plan_memory(shape, method=req.method, precision=precision, optimizer=optimizer, convention=convention, recompute=recompute,
                       flash=flash, seq_len=seq_len, micro_batch=micro_batch, tp=tp, pp=pp, lora_rank=req.lora_rank,
                       lora_targets=req.lora_targets, double_quant=req.double_quant, sequence_parallel=req.sequence_parallel, ledger=ledger,
                       lora_base_bits=req.lora_base_bits)
    overhead = ledger.field(req, "overhead_gib", "GiB", "CUDA context, NCCL buffers and allocator fragmentation (1-3 GiB typical)")
    parts = plan.per_gpu(sharding, dp, overhead * 2**30, offload)
    host = 0.0
    if offload != "none":
        host = (plan.optimizer + plan.gradients + (plan.weights if offload == "optimizer+params" else 0.0)) * tp * pp
        ledger.step("host_offload", "(optimizer + gradients" + (" + weights" if offload == "optimizer+params" else "") + ")·tp·pp, all GPUs", host, "bytes")
        ledger.assume("offload", "Offloaded states live in host (CPU) memory and are updated by the CPU: each step moves them over PCIe, "
                      "so the step is slower, often several times.", "卸载的状态放在主机（CPU）内存里由 CPU 更新：每一步都要经 PCIe 搬运，"
                      "训练步会变慢，常常慢好几倍。")
    for name, formula in (("weights", "(trained·w + frozen)/(tp·pp)/shard"), ("gradients", "trained·g/(tp·pp)/shard"),
                          ("optimizer", "trained·o/(tp·pp)/shard"), ("buffers", "gather (ZeRO-3) or dequantisation buffers"),
                          ("total", "weights + gradients + optimizer + buffers + activations + overhead")):
        ledger.step(f"per_gpu.{name}", formula, parts[name], "bytes")
    if tp > 1 or pp > 1:
        ledger.assume("even_split", "Tensor and pipeline parallelism split parameters evenly across ranks.", "张量并行与流水线并行在各 rank 间平均切分参数。")
    breakdown = MemoryBreakdown(
        weights_gib=sig(gib(parts["weights"])), gradients_gib=sig(gib(parts["gradients"])), optimizer_gib=sig(gib(parts["optimizer"])),
        activations_gib=sig(gib(parts["activations"])), buffers_gib=sig(gib(parts["buffers"])), overhead_gib=overhead, total_gib=sig(gib(parts["total"])),
    )
    fit = used = None
    if gpu:
        used = sig(breakdown.total_gib / gpu.memory_gb, 3)
        fit = fit_verdict(breakdown.total_gib, gpu.memory_gb)
        if fit == "does_not_fit":
            ledger.warn("does_not_fit", f"Needs {breakdown.total_gib:.1f} GiB per GPU; {gpu.name} has {gpu.memory_gb:g} GiB.",
                        f"每张 GPU 需要 {breakdown.total_gib:.1f} GiB；{gpu.name} 只有 {gpu.memory_gb:g} GiB。", "critical")
    return TrainingMemoryResult(
        model=shape.name, params_b=sig(shape.params / 1e9), trainable_params_b=sig(plan.trainable / 1e9, 4), task=req.task, method=req.method,
        precision=precision, optimizer=optimizer, sharding=sharding, offload=offload, host_offload_gib=sig(gib(host)) if host else 0.0,
        gpus=gpus, tp=tp, pp=pp, data_parallel=dp,
        seq_len=seq_len, micro_batch=micro_batch, recompute=recompute, flash_attention=flash, convention=convention,
        bytes_per_param=plan.bytes_per_param, model_states_total_gib=sig(gib((plan.trainable * plan.bytes_per_param + plan.frozen * tp * pp))),
        per_gpu=breakdown, gpu=gpu.id if gpu else None, gpu_memory_gib=gpu.memory_gb if gpu else None, memory_used_fraction=used, fit=fit,
        work=ledger.work(),
    )
