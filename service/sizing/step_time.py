"""Step time for a stated parallel layout (tensor, pipeline, data, context parallelism; micro-batch; recomputation;
sequence parallelism; ZeRO stage; the node's links and the fabric).

    step = m·(t_fwd + t_bwd) + bubble + pipeline sends + exposed data-parallel communication + optimizer step

with m micro-batches per pipeline per step, t_fwd/t_bwd one micro-batch through one pipeline stage (GEMMs at a
size-dependent share of the dense peak, element-wise kernels at HBM speed, tensor-parallel collectives on the
node's links), and the 1F1B bubble (p−1)/v·(t_fwd + t_bwd). Every term is a step in the work block. When no
layout is known, the MFU band of training-time stays the answer; this tool is for a layout that is stated.

`step_time(request, catalog)` is the one function callers (chat, REST, CLI, LangChain) use.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.catalog import Catalog, GpuSpec
from service.errors import InputConflictError, Problem
from service.i18n import BilingualValueError
from service.sizing import references as ref
from service.sizing import step_terms as terms
from service.sizing.base import ModelRef, SizingResult, TrainPrecision
from service.sizing.compute import flops_per_token
from service.sizing.interconnect import INTER_FABRICS, NVLINK_EFFICIENCY, NVLINK_LATENCY_US, PCIE_EFFICIENCY, PCIE_LATENCY_US, InterFabric
from service.sizing.memory import resolve_precision
from service.sizing.shapes import ModelShape, resolve_shape
from service.sizing.work import Ledger, sig

Recompute = Literal["none", "selective", "full"]


class StepTimeRequest(ModelRef):
    """A model (catalog name, params_b, or explicit shapes) on a stated layout."""

    layers: int | None = Field(default=None, ge=1, le=1000, description="override or give the shape: transformer layers")
    hidden: int | None = Field(default=None, ge=64, le=200_000, description="hidden size")
    heads: int | None = Field(default=None, ge=1, le=2048, description="attention heads")
    kv_heads: int | None = Field(default=None, ge=1, le=2048, description="key/value heads (GQA); default: heads")
    ffn: int | None = Field(default=None, ge=64, le=1_000_000, description="FFN hidden size; default 4·hidden")
    vocab: int | None = Field(default=None, ge=256, le=2_000_000, description="vocabulary size; default 51,200")
    gated_ffn: bool | None = Field(default=None, description="SwiGLU/GeGLU (three MLP matrices); default false for explicit shapes")
    gpu: str = Field(min_length=1, max_length=80)
    gpus: int = Field(ge=1, le=1_000_000)
    tp: int = Field(default=1, ge=1, le=64, description="tensor-parallel size")
    pp: int = Field(default=1, ge=1, le=512, description="pipeline-parallel size")
    cp: int = Field(default=1, ge=1, le=64, description="context-parallel size (the sequence split across GPUs)")
    dp: int | None = Field(default=None, ge=1, le=1_000_000, description="data-parallel size; default gpus / (tp·pp·cp)")
    virtual_stages: int = Field(default=1, ge=1, le=64, description="interleaved pipeline: model chunks per pipeline rank")
    micro_batch: int = Field(default=1, ge=1, le=4096, description="sequences per micro-batch")
    global_batch: int | None = Field(default=None, ge=1, le=10_000_000, description="sequences per step")
    grad_accumulation: int | None = Field(default=None, ge=1, le=100_000, description="micro-batches per data-parallel rank per step")
    seq_len: int | None = Field(default=None, ge=16, le=2_000_000, description="tokens per sequence; default min(context, 4096)")
    recompute: Recompute = Field(default="selective", description="activation recomputation")
    sequence_parallel: bool | None = Field(default=None, description="Megatron sequence parallelism; default on when tp > 1")
    zero_stage: int = Field(default=1, ge=0, le=3, description="0 plain DDP; 1-2 distributed optimizer; 3 ZeRO-3/FSDP full sharding")
    precision: TrainPrecision | None = None
    flash_attention: bool | None = Field(default=None, description="default: on from Ampere")
    gpus_per_node: int = Field(default=8, ge=1, le=72)
    inter_fabric: InterFabric | None = Field(default=None, description="default: InfiniBand HDR on Ampere, NDR on newer GPUs")
    nic_gbps_per_gpu: float | None = Field(default=None, ge=1, le=3200, description="override: network Gbit/s per GPU")
    overlap_grad_reduce: bool = Field(default=True, description="gradient reduction overlapped with the last micro-batch's backward")
    tp_comm_overlap: bool = Field(default=False, description="tensor-parallel collectives overlapped with GEMMs (Transformer Engine)")
    grad_reduce_bytes: float = Field(default=2.0, ge=1, le=4, description="bytes per gradient element reduced (2 = bf16, 4 = fp32)")
    tokens: float | None = Field(default=None, ge=1, le=1e16, description="optional: training tokens, for the whole run's time")
    framework: Literal["megatron", "pytorch-fsdp"] = Field(default="megatron", description="Megatron-Core / NeMo fused kernels, or eager PyTorch FSDP (torchtitan)")

    @model_validator(mode="after")
    def _layout_divides(self) -> StepTimeRequest:
        model_parallel = self.tp * self.pp * self.cp
        if self.gpus % model_parallel:
            raise BilingualValueError(f"gpus ({self.gpus}) must be a multiple of tp·pp·cp ({model_parallel})",
                                      f"gpus（{self.gpus}）必须是 tp·pp·cp（{model_parallel}）的整数倍", allowed="gpus = dp·tp·pp·cp")
        if self.dp is not None and self.dp * model_parallel != self.gpus:
            raise BilingualValueError(f"dp·tp·pp·cp is {self.dp * model_parallel}, not gpus ({self.gpus})",
                                      f"dp·tp·pp·cp 等于 {self.dp * model_parallel}，与 gpus（{self.gpus}）不一致", allowed="dp = gpus / (tp·pp·cp)")
        if self.global_batch is not None and self.grad_accumulation is not None:
            raise BilingualValueError("give global_batch or grad_accumulation, not both", "global_batch 与 grad_accumulation 只能给出其一")
        return self


class StepTerms(BaseModel):
    """The seconds each part adds to one step."""

    model_config = ConfigDict(frozen=True)
    compute_s: float = Field(description="GEMMs and attention of every micro-batch on one pipeline stage")
    memory_bound_s: float = Field(description="element-wise kernels (norms, dropout, activations, softmax) at HBM speed")
    tensor_parallel_s: float = Field(description="TP/SP all-reduce or all-gather + reduce-scatter on the node's links, exposed")
    pipeline_bubble_s: float
    pipeline_send_s: float
    data_parallel_s: float = Field(description="gradient reduction / ZeRO gathers left exposed after overlap")
    optimizer_s: float


class StepTimeResult(SizingResult):
    tool: Literal["step-time"] = "step-time"
    model: str
    params_b: float
    gpu: str
    gpus: int
    tp: int
    pp: int
    cp: int
    dp: int
    micro_batch: int
    micro_batches: int = Field(description="micro-batches per pipeline per step")
    global_batch: int
    seq_len: int
    recompute: Recompute
    precision: TrainPrecision
    step_time_s: float
    terms: StepTerms
    tokens_per_second: float
    tokens_per_gpu_second: float
    model_tflops_per_gpu: float = Field(description="model FLOPs (6·N + causal attention per token) per GPU per second")
    mfu: float = Field(description="derived from the predicted step time, never an input")
    run_hours: float | None = None
    run_gpu_hours: float | None = None


def _shape(req: StepTimeRequest, catalog: Catalog, ledger: Ledger) -> ModelShape:
    explicit = {k: getattr(req, k) for k in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "gated_ffn") if getattr(req, k) is not None}
    if not explicit or req.model:
        shape = resolve_shape(req, catalog, ledger)
        if not explicit:
            return shape
        base = shape.model_dump()
    else:
        missing = [k for k in ("layers", "hidden", "heads") if k not in explicit]
        if missing:
            raise InputConflictError([Problem(missing[0], "explicit shapes need layers, hidden and heads (or a catalog model)",
                                              "给出模型结构时需要 layers、hidden 和 heads（或给出目录中的模型）", allowed="layers, hidden, heads")])
        base = {"name": f"{explicit['layers']}-layer, hidden {explicit['hidden']}", "kv_heads": explicit["heads"], "ffn": 4 * explicit["hidden"],
                "gated_ffn": False, "vocab": 51_200, "tied_embeddings": True, "context_length": 2048, "is_moe": False}
    base.update({"layers": explicit.get("layers", base.get("layers")), "hidden": explicit.get("hidden", base.get("hidden")),
                 "heads": explicit.get("heads", base.get("heads"))})
    for key in ("kv_heads", "ffn", "vocab", "gated_ffn"):
        if key in explicit:
            base[key] = explicit[key]
    h, a = base["hidden"], base["heads"]
    if h % a or a % base["kv_heads"]:
        raise InputConflictError([Problem("heads", "hidden must divide by heads, and heads by kv_heads", "hidden 必须能被 heads 整除，heads 必须能被 kv_heads 整除")])
    d = h // a
    mlp = (3 if base["gated_ffn"] else 2) * h * base["ffn"]
    per_layer = 2 * h * a * d + 2 * h * base["kv_heads"] * d + mlp + 4 * h
    params = per_layer * base["layers"] + base["vocab"] * h * (1 if base.get("tied_embeddings", True) else 2)
    base.update({"head_dim": d, "params": params, "active_params": params, "estimated": False})
    for key, value in explicit.items():
        ledger.given(key, value)
    ledger.derived("params_b", round(params / 1e9, 3), "B", "layers·(attention + MLP) + embeddings")
    return ModelShape(**base)


def _fabrics(req: StepTimeRequest, gpu: GpuSpec, ledger: Ledger) -> tuple[float, float, float, float, str]:
    """(intra GB/s effective, intra α µs, inter GB/s effective per GPU, inter α µs, inter name)."""
    if gpu.scale_up is not None:
        intra = ledger.from_catalog("nvlink_gbps_per_direction", gpu.scale_up.bandwidth_gbps_per_direction, "GB/s", gpu.id) * NVLINK_EFFICIENCY
        intra_alpha = NVLINK_LATENCY_US
    else:
        intra = ledger.from_catalog("pcie_gbps_per_direction", gpu.pcie_gbps_per_direction, "GB/s", gpu.id) * PCIE_EFFICIENCY
        intra_alpha = PCIE_LATENCY_US
    default = "infiniband-hdr" if gpu.architecture.lower() == "ampere" else "infiniband-ndr"
    kind = ledger.pick("inter_fabric", req.inter_fabric, default, why="one 200 Gb/s HDR NIC per A100 (DGX A100), 400 Gb/s NDR per newer GPU")
    fabric = INTER_FABRICS[kind]
    per_gpu = fabric.gbps_per_direction
    if req.nic_gbps_per_gpu is not None:
        per_gpu = ledger.given("nic_gbps_per_gpu", req.nic_gbps_per_gpu, "Gb/s") / 8
    return intra, intra_alpha, per_gpu * fabric.efficiency, fabric.latency_us, fabric.name


def step_time(req: StepTimeRequest, catalog: Catalog) -> StepTimeResult:
    ledger = Ledger()
    shape = _shape(req, catalog, ledger)
    if shape.is_moe:
        raise InputConflictError([Problem("model", "the step-time model covers dense transformers; mixture-of-experts layers (expert all-to-all) are not modelled yet — use training-time",
                                          "步时模型只覆盖稠密 Transformer；混合专家层（专家 all-to-all）尚未建模——请使用 training-time", allowed="a dense model")])
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    gpus = ledger.given("gpus", req.gpus)
    precision = resolve_precision(req.precision, gpu, ledger)
    tp, pp, cp = ledger.field(req, "tp"), ledger.field(req, "pp"), ledger.field(req, "cp")
    dp = req.dp or ledger.derived("dp", gpus // (tp * pp * cp), "", "gpus / (tp·pp·cp)")
    if req.dp:
        ledger.given("dp", dp)
    v = ledger.field(req, "virtual_stages")
    if shape.layers % (pp * v):
        ledger.warn("uneven_stages", f"{shape.layers} layers do not split evenly into {pp * v} pipeline chunks; the step is set by the fullest stage.",
                    f"{shape.layers} 层无法均分到 {pp * v} 个流水线分块中；步时由层数最多的阶段决定。")
    b = ledger.field(req, "micro_batch")
    seq = ledger.field(req, "seq_len", "tokens", "min(context length, 4096)", default=min(shape.context_length, 4096))
    if req.global_batch is not None:
        global_batch = ledger.given("global_batch", req.global_batch, "sequences")
        m = max(1, global_batch // (dp * b))
        if global_batch % (dp * b):
            ledger.warn("batch_not_divisible", f"global_batch {global_batch} is not a multiple of dp·micro_batch ({dp * b}); {m * dp * b} is used.",
                        f"global_batch {global_batch} 不是 dp·micro_batch（{dp * b}）的整数倍；按 {m * dp * b} 计算。")
    else:
        m = ledger.field(req, "grad_accumulation", "", "one micro-batch per step", default=1)
    global_batch = m * dp * b
    ledger.derived("micro_batches", m, "", "global_batch / (dp·micro_batch)")
    recompute = ledger.field(req, "recompute")
    sp = ledger.field(req, "sequence_parallel", why="on with tensor parallelism (Megatron default)", default=tp > 1)
    flash = ledger.field(req, "flash_attention", why="FlashAttention needs Ampere or newer", default=gpu.architecture.lower() not in ("turing", "volta"))
    zero = ledger.field(req, "zero_stage", why="distributed optimizer (Megatron --use-distributed-optimizer)")
    peak = ledger.from_catalog("peak_tflops", gpu.dense_tflops(precision) or gpu.fp16_dense_tflops, "TFLOP/s", f"{gpu.id} dense {precision}") * 1e12
    attn_peak = (gpu.dense_tflops("bf16") or gpu.fp16_dense_tflops) * 1e12  # attention stays 16-bit under FP8 recipes
    bandwidth = ledger.from_catalog("memory_bandwidth", gpu.memory_bandwidth_gbps, "GB/s", gpu.id) * 1e9 * terms.HBM_EFFICIENCY
    ledger.default("hbm_efficiency", terms.HBM_EFFICIENCY, "", "element-wise kernels reach ~70% of HBM bandwidth (fitted on the development half)")
    intra, intra_alpha, inter, inter_alpha, inter_name = _fabrics(req, gpu, ledger)
    per_node = ledger.field(req, "gpus_per_node")

    # -- one micro-batch through one pipeline stage ----------------------------------------------------
    work = terms.layer_work(shape, seq=seq, micro_batch=b, tp=tp, cp=cp, sequence_parallel=sp and tp > 1, flash=flash)
    layers = -(-shape.layers // pp)  # the fullest stage
    framework = ledger.field(req, "framework", why="Megatron-Core fused kernels (what the GEMM efficiencies were fitted on)")
    kernels = terms.FRAMEWORK_FACTOR[framework]
    eff = ledger.step("gemm.efficiency", "top·x/(x + 1.5 GFLOP) · framework factor, x = MLP up-projection per GPU",
                      terms.matmul_efficiency(gpu, precision, work.largest_gemm_gflop) * kernels)
    attn_eff = terms.matmul_efficiency(gpu, "bf16", work.largest_gemm_gflop) * (terms.FLASH_ATTENTION_FACTOR if flash else 1.0) * kernels
    linear_s = work.linear_flops / (peak * eff)
    attention_s = work.attention_flops / (attn_peak * attn_eff)
    ledger.step("layer.linear_flops", "2·tokens·h·(2·a·d + 2·g·d) + 2·tokens·h·f·(3 gated | 2), / tp", work.linear_flops, "FLOP")
    ledger.step("layer.attention_flops", "4·tokens·s·a·d / tp" + (" / 2 (causal FlashAttention)" if flash else ""), work.attention_flops, "FLOP")
    elementwise_s = work.elementwise_bytes / bandwidth
    scores_s = work.scores_bytes / bandwidth
    ledger.step("layer.elementwise_bytes", "20·tokens·h·2 (/tp with SP) + 4·tokens·f·2/tp", work.elementwise_bytes, "bytes")
    if not flash:
        ledger.step("layer.scores_bytes", "4·b·(a/tp)·s²·2 (softmax and dropout on materialised scores)", work.scores_bytes, "bytes")
    # Recomputation: full replays the whole forward in backward; selective replays only the attention core.
    extra_fwd = {"full": 1.0, "selective": 0.0, "none": 0.0}[recompute]
    fwd_compute = layers * (linear_s + attention_s)
    bwd_compute = layers * (2 * (linear_s + attention_s) + extra_fwd * (linear_s + attention_s) + (attention_s + scores_s if recompute == "selective" else 0.0))
    fwd_memory = layers * (elementwise_s + scores_s)
    bwd_memory = layers * ((terms.BACKWARD_BYTES_FACTOR + extra_fwd) * (elementwise_s + scores_s))
    # The output layer and loss on the last stage: logits GEMM (forward + 2× backward) and the fp32 softmax over the vocabulary.
    logits_flops = 2 * b * seq / cp * shape.hidden * shape.vocab / tp
    logits_s = 3 * logits_flops / (peak * eff) + 3 * 4 * b * seq / cp * shape.vocab / tp * 4 / bandwidth
    ledger.step("stage.logits_s", "3·2·b·s·h·V/tp at GEMM speed + fp32 cross-entropy passes", logits_s, "s")

    # -- tensor-parallel collectives on the node's links ---------------------------------------------
    tp_link, tp_alpha = (intra, intra_alpha) if tp <= per_node else (inter, inter_alpha)
    message = b * seq / cp * shape.hidden * 2  # one s·b·h activation, 16-bit
    per_collective = terms.ring_collective_seconds(message, tp, tp_link, tp_alpha, all_reduce=True)
    collectives_fwd = 2.0  # attention and MLP: one all-reduce each (or all-gather + reduce-scatter with SP: the same bytes)
    collectives_bwd = 2.0 + 2.0 * extra_fwd + (1.0 if sp and recompute != "none" else 0.0)  # SP re-gathers the input it recomputes from
    tp_fwd = layers * collectives_fwd * per_collective
    tp_bwd = layers * collectives_bwd * per_collective
    if req.tp_comm_overlap and tp > 1:
        ledger.given("tp_comm_overlap", True)
        tp_fwd, tp_bwd = 0.3 * tp_fwd, 0.3 * tp_bwd
        ledger.assume("tp_overlap", "Overlapped tensor-parallel collectives leave ~30% of their time exposed.", "与计算重叠的张量并行通信约有 30% 的时间无法被掩盖。")
    ledger.step("tp.per_collective_s", "2(t−1)/t · s·b·h·2 / link + 2(t−1)·α", per_collective, "s")

    t_fwd = fwd_compute + fwd_memory + tp_fwd
    t_bwd = bwd_compute + bwd_memory + tp_bwd
    ledger.step("microbatch.forward_s", "layers_per_stage·(GEMMs + attention + element-wise + TP collectives)", t_fwd, "s")
    ledger.step("microbatch.backward_s", "2× forward GEMMs + recomputed forward + element-wise + TP collectives", t_bwd, "s")

    # -- the pipeline -----------------------------------------------------------------------------
    # The last stage also runs the output layer and loss: it sets the pace of the pipeline.
    compute_total = m * (fwd_compute + bwd_compute + logits_s)
    memory_total = m * (fwd_memory + bwd_memory)
    tp_total = m * (tp_fwd + tp_bwd)
    bubble = ledger.step("pipeline.bubble_s", "(p−1)/v · (t_fwd + t_bwd)", (pp - 1) / v * (t_fwd + t_bwd), "s")
    stage_link = inter if tp * cp >= per_node else intra
    # Megatron's scatter/gather split sends each TP rank 1/tp of the activation over its own NIC (Narayanan et al. §4.1).
    p2p = b * seq / cp * shape.hidden * 2 / tp
    sends = ledger.step("pipeline.sends_s", "m·v·2·(s·b·h·2/tp) / link (forward activations, backward gradients)",
                        m * v * 2 * p2p / (stage_link * 1e9) if pp > 1 else 0.0, "s")

    # -- data parallel: gradient reduction and ZeRO gathers on the fabric -----------------------------
    shard_params = shape.params / (tp * pp)
    dp_group = dp * cp
    spans_nodes = tp * pp * cp < gpus and gpus > per_node and dp_group * min(tp * pp * cp, per_node) > per_node
    dp_link, dp_alpha = (inter, inter_alpha) if spans_nodes else (intra, intra_alpha)
    if spans_nodes:
        # NCCL runs one ring (channel) per NIC in parallel: across nodes a collective moves at the aggregate network bandwidth of
        # the group's ranks on one node (one NIC each, rail-optimised), capped by the intra-node link (nccl-tests; the same rule
        # as nccl-expected). Megatron's TP·CP ranks fill a node first, so a TP-8 layout keeps one rank (one NIC) per node.
        rails = max(1, min(per_node // min(tp * cp, per_node), dp_group))
        dp_link = ledger.step("dp.bus_gbps", "min(group ranks per node · NIC GB/s per GPU, intra-node link) · efficiency", min(rails * inter, intra), "GB/s")
    if zero == 3:
        gathers = terms.ring_collective_seconds(shard_params * 2, dp_group, dp_link, dp_alpha, all_reduce=False)
        reduce = terms.ring_collective_seconds(shard_params * req.grad_reduce_bytes, dp_group, dp_link, dp_alpha, all_reduce=False)
        dp_comm = ledger.step("dp.zero3_s", "m·(2 all-gathers of the weights + 1 reduce-scatter of the gradients)", m * (2 * gathers + reduce), "s")
        # Prefetched gathers hide behind compute: only what exceeds it is exposed.
        exposed = max(0.0, dp_comm - (compute_total + memory_total)) + gathers / max(layers, 1)
        ledger.assume("zero3_overlap", "ZeRO-3/FSDP prefetches the next layer's weights during compute; only communication beyond compute (and the first layer's gather) is exposed.",
                      "ZeRO-3/FSDP 在计算时预取下一层权重；只有超出计算时间的通信（以及第一层的聚合）会暴露出来。")
    else:
        dp_comm = ledger.step("dp.reduce_s", "2(n−1)/n · params/(tp·pp) · grad_bytes / fabric (all-reduce, or reduce-scatter + all-gather with ZeRO-1/2)",
                              terms.ring_collective_seconds(shard_params * req.grad_reduce_bytes, dp_group, dp_link, dp_alpha, all_reduce=True), "s")
        if req.overlap_grad_reduce:
            exposed = max(0.0, dp_comm - t_bwd)
            ledger.assume("dp_overlap", "Gradient buckets are reduced while the last micro-batch's backward runs; only what outlasts it is exposed.",
                          "梯度分桶在最后一个 micro-batch 反向传播期间进行归约；只有超出这段时间的部分会暴露出来。")
        else:
            ledger.given("overlap_grad_reduce", False)
            exposed = dp_comm
    if dp_group > 1:
        ledger.derived("dp_fabric", inter_name if spans_nodes else "scale-up link", "", "the data-parallel group crosses nodes" if spans_nodes else "inside one node")
    exposed = ledger.step("dp.exposed_s", "after overlap", exposed, "s")
    optimizer_params = shard_params / (dp_group if zero >= 1 else 1)
    optimizer = ledger.step("optimizer.step_s", "30 bytes/param of the local shard / HBM", optimizer_params * terms.OPTIMIZER_BYTES_PER_PARAM / bandwidth, "s")

    step = compute_total + memory_total + tp_total + bubble + sends + exposed + optimizer
    ledger.step("step.seconds", "m·(t_fwd + t_bwd) + bubble + sends + exposed DP + optimizer", step, "s")
    tokens_step = global_batch * seq
    per_token = flops_per_token(shape, seq, "full", ledger)
    tps = tokens_step / step
    model_tflops = tps * per_token / gpus
    mfu = ledger.step("mfu.derived", "model FLOPs per second per GPU / peak (from the predicted time)", model_tflops / (gpu.dense_tflops(precision) or gpu.fp16_dense_tflops) / 1e12)
    out: dict = {}
    if req.tokens is not None:
        total_tokens = ledger.given("tokens", req.tokens, "tokens")
        hours = ledger.step("run.hours", "tokens / tokens_per_second / 3600", total_tokens / tps / 3600, "h")
        out = {"run_hours": sig(hours), "run_gpu_hours": sig(hours * gpus)}
    for c in (ref.NARAYANAN, ref.KORTHIKANTI, ref.CALCULON, ref.NCCL_TESTS):
        ledger.cite(c.title, c.url)
    return StepTimeResult(
        model=shape.name, params_b=sig(shape.params / 1e9), gpu=gpu.id, gpus=gpus, tp=tp, pp=pp, cp=cp, dp=dp, micro_batch=b, micro_batches=m,
        global_batch=global_batch, seq_len=seq, recompute=recompute, precision=precision, step_time_s=sig(step),
        terms=StepTerms(compute_s=sig(compute_total), memory_bound_s=sig(memory_total), tensor_parallel_s=sig(tp_total), pipeline_bubble_s=sig(bubble),
                        pipeline_send_s=sig(sends), data_parallel_s=sig(exposed), optimizer_s=sig(optimizer)),
        tokens_per_second=sig(tps), tokens_per_gpu_second=sig(tps / gpus), model_tflops_per_gpu=sig(model_tflops / 1e12), mfu=sig(mfu, 3),
        work=ledger.work(), **out,
    )
