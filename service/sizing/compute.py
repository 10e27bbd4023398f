"""Training compute and time: 6·N·D plus attention, MFU bands, goodput.

Time = FLOPs / (GPUs · dense peak · MFU) / goodput. MFU is counted on model
FLOPs (PaLM's definition, attention included), so activation recomputation is
already inside the published MFU figures the bands come from.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.catalog import Catalog, GpuSpec
from service.errors import InputError, Problem
from service.i18n import BilingualValueError
from service.sizing import references as ref
from service.sizing.base import Method, ModelRef, SizingResult, TrainPrecision
from service.sizing.memory import resolve_precision
from service.sizing.shapes import ModelShape, resolve_shape
from service.sizing.work import Ledger, NullLedger, sig

SECONDS_PER_HOUR = 3600.0
MFU_CEILING = 0.55  # MegaScale's 55.2% is the highest published at scale
MAX_TOKENS = 1e16


class Band(BaseModel):
    """low / typical / high of an uncertain figure."""

    model_config = ConfigDict(frozen=True)
    low: float
    typical: float
    high: float


class WorkloadTokens(ModelRef):
    """How much data: tokens directly, or samples × sequence length × epochs."""

    tokens: float | None = Field(default=None, ge=1, le=1e16, description="training tokens (e.g. 15e12)")
    samples: float | None = Field(default=None, ge=1, le=1e13)
    seq_len: int | None = Field(default=None, ge=16, le=2_000_000, description="tokens per sample; default min(context, 4096)")
    epochs: float = Field(default=1.0, ge=0.001, le=1000)
    method: Method = Field(default="full", description="lora/qlora skip weight gradients of the frozen base")


class ComputeRequest(WorkloadTokens):
    recompute: Literal["none", "selective", "full"] = "selective"


class ComputeResult(SizingResult):
    tool: Literal["training-compute"] = "training-compute"
    model: str
    params_b: float
    active_params_b: float
    tokens: float
    seq_len: int
    flops_6nd: float = Field(description="6·N·D with N = active parameters")
    attention_flops: float = Field(description="6·L·h·s per token (causal), times tokens")
    model_flops: float
    hardware_flops: float = Field(description="with the extra forward pass of full recomputation")
    flops_per_token: float
    petaflop_days: float
    chinchilla_tokens: float = Field(description="20 tokens per parameter (Hoffmann et al. 2022)")


def resolve_tokens(req: WorkloadTokens, shape: ModelShape, ledger: Ledger) -> tuple[float, int]:
    seq_default = min(shape.context_length, 4096)
    seq_len = ledger.field(req, "seq_len", "tokens", "min(context length, 4096)", default=seq_default)
    if req.tokens is not None:
        return ledger.given("tokens", req.tokens, "tokens"), seq_len
    if req.samples is None:
        raise _missing_tokens()
    ledger.given("samples", req.samples)
    ledger.field(req, "epochs")
    tokens = ledger.step("tokens", "samples·seq_len·epochs", req.samples * seq_len * req.epochs, "tokens")
    if tokens > MAX_TOKENS:
        raise InputError([Problem("samples", f"samples × seq_len × epochs is {tokens:.3g} tokens; at most {MAX_TOKENS:.0e} are supported",
                                  f"samples × seq_len × epochs 共 {tokens:.3g} 个 token，最多支持 {MAX_TOKENS:.0e}", allowed=f"<= {MAX_TOKENS:.0e} tokens")])
    return tokens, seq_len


def _missing_tokens() -> InputError:
    return InputError([Problem("tokens", "give tokens, or samples (with seq_len and epochs)",
                               "请给出 tokens（训练 token 数），或 samples（样本数，配合 seq_len 与 epochs）", allowed="tokens > 0 or samples > 0")])


def flops_per_token(shape: ModelShape, seq_len: int, method: str, ledger: Ledger) -> float:
    """Model FLOPs per trained token: 6·N (2 forward + 4 backward) plus causal attention 6·L·h·s."""
    dense = 4.0 if method in ("lora", "qlora") else 6.0
    linear = ledger.step("flops.per_token_linear", f"{dense:g}·N_active", dense * shape.active_params, "FLOP")
    if method in ("lora", "qlora"):
        ledger.assume("lora_flops", "LoRA/QLoRA skip weight gradients of the frozen base: about 4·N FLOPs per token instead of 6·N.",
                      "LoRA/QLoRA 不计算冻结权重的梯度：每个 token 约 4·N 次浮点运算，而不是 6·N。")
    attention = ledger.step("flops.per_token_attention", "6·L·h·s (causal)", 6 * shape.layers * shape.hidden * seq_len, "FLOP")
    return linear + attention


def training_compute(req: ComputeRequest, catalog: Catalog) -> ComputeResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    tokens, seq_len = resolve_tokens(req, shape, ledger)
    per_token = flops_per_token(shape, seq_len, req.method, ledger)
    six_nd = ledger.step("flops.6nd", "6·N·D", 6 * shape.active_params * tokens, "FLOP")
    attention = ledger.step("flops.attention", "6·L·h·s·D", 6 * shape.layers * shape.hidden * seq_len * tokens, "FLOP")
    model_flops = ledger.step("flops.model", "flops_per_token·D", per_token * tokens, "FLOP")
    recompute = ledger.field(req, "recompute")
    hw = model_flops * (8 / 6 if recompute == "full" else 1.0)
    if recompute == "full":
        ledger.step("flops.hardware", "model·8/6 (one extra forward pass)", hw, "FLOP")
    chinchilla = 20 * shape.params
    if tokens < 0.1 * chinchilla and req.method == "full":
        ledger.warn("few_tokens", f"{tokens:.3g} tokens is far below the ~20 tokens/parameter compute-optimal point ({chinchilla:.3g}).",
                    f"{tokens:.3g} 个 token 远低于约每参数 20 个 token 的计算最优点（{chinchilla:.3g}）。", "info")
    for c in (ref.KAPLAN, ref.TRANSFORMER_MATH, ref.PALM):
        ledger.cite(c.title, c.url)
    return ComputeResult(
        model=shape.name, params_b=sig(shape.params / 1e9), active_params_b=sig(shape.active_params / 1e9), tokens=tokens, seq_len=seq_len,
        flops_6nd=sig(six_nd), attention_flops=sig(attention), model_flops=sig(model_flops), hardware_flops=sig(hw),
        flops_per_token=sig(per_token), petaflop_days=sig(model_flops / 1e15 / 86400), chinchilla_tokens=sig(chinchilla),
        work=ledger.work(),
    )


# -- MFU and time -------------------------------------------------------------

def mfu_band(shape: ModelShape, gpu: GpuSpec, precision: str, gpus: int, seq_len: int, ledger: Ledger) -> Band:
    """Default MFU band from published runs (Llama 2/3, PaLM, GLM-130B, MegaScale, OPT)."""
    hopper_class = gpu.fp16_dense_tflops > 500
    active = shape.active_params
    if shape.is_moe:
        low, typ, high = 0.15, 0.25, 0.40
        why = "MoE: expert all-to-all and load imbalance"
    elif active < 20e9:
        low, typ, high = 0.20, 0.30 if hopper_class else 0.35, 0.55 if active < 3e9 else 0.50
        why = "models under 20B parameters use smaller matrices" + ("; Hopper-class GPUs are harder to keep busy" if hopper_class else "")
    else:
        low, typ, high = 0.30, 0.40, 0.55
        why = "dense models of 20B+ parameters: 38-43% (Llama 3 405B), 46% (PaLM), 32.5% (GLM-130B), 55% (MegaScale)"
    if seq_len > 32768:
        low, typ, high = low - 0.05, typ - 0.05, high - 0.05
        why += "; long context lowers efficiency"
    if gpus > 1 and gpu.scale_up is None:
        low, typ, high = low - 0.05, typ - 0.05, high - 0.05
        why += "; PCIe-only GPUs communicate slowly"
    if precision == "fp8":
        # Measured FP8 gains over BF16 are ~1.2-1.5x, not the 2x of the datasheet peak.
        low, typ, high = low * 0.6, typ * 0.6, high * 0.6
        why += "; FP8 MFU is counted against the FP8 peak, which training realises only partly"
    band = Band(low=round(max(low, 0.05), 3), typical=round(typ, 3), high=round(min(high, MFU_CEILING), 3))
    ledger.default("mfu", band.typical, "", f"band {band.low}-{band.high}: {why}")
    for c in (ref.LLAMA3, ref.PALM, ref.MEGASCALE):
        ledger.cite(c.title, c.url)
    return band


def default_goodput(gpus: int) -> float:
    # Llama 3: >90% effective training time on 16K GPUs despite 419 unexpected interruptions in 54 days.
    return 0.90 if gpus >= 8192 else 0.95


def run_hours(shape: ModelShape, gpu: GpuSpec, gpus: int, tokens: float, seq_len: int, method: str, precision: str) -> Band:
    """Wall-clock hours at low/typical/high MFU, recording nothing: for searches over many GPU types."""
    ledger = NullLedger()
    per_token = flops_per_token(shape, seq_len, method, ledger)
    peak = (gpu.dense_tflops(precision) or gpu.fp16_dense_tflops) * 1e12
    band = mfu_band(shape, gpu, precision, gpus, seq_len, ledger)
    goodput = default_goodput(gpus)

    def hours(mfu: float) -> float:
        return per_token * tokens / (gpus * peak * mfu) / goodput / SECONDS_PER_HOUR

    return Band(low=sig(hours(band.high)), typical=sig(hours(band.typical)), high=sig(hours(band.low)))


class TrainingTimeRequest(WorkloadTokens):
    gpu: str = Field(min_length=1, max_length=80)
    gpus: int = Field(ge=1, le=1_000_000)
    precision: TrainPrecision | None = None
    mfu: float | None = Field(default=None, ge=0.01, le=1, description="override the typical MFU (the band then centres on it)")
    achieved_tflops: float | None = Field(default=None, ge=0.001, le=100_000, description="measured hardware TFLOP/s per GPU, replaces the MFU band")
    recompute: Literal["none", "selective", "full"] = "selective"
    goodput: float | None = Field(default=None, ge=0.01, le=1, description="fraction of wall-clock doing useful training")

    @model_validator(mode="after")
    def _one_efficiency(self) -> TrainingTimeRequest:
        if self.mfu is not None and self.achieved_tflops is not None:
            raise BilingualValueError("give mfu or achieved_tflops, not both", "mfu 与 achieved_tflops 只能给出其一")
        return self


class TrainingTimeResult(SizingResult):
    tool: Literal["training-time"] = "training-time"
    model: str
    params_b: float
    active_params_b: float
    tokens: float
    seq_len: int
    gpu: str
    gpus: int
    precision: TrainPrecision
    peak_tflops_per_gpu: float = Field(description="dense tensor-core peak at this precision")
    flops: float = Field(description="model FLOPs of the whole run")
    flops_per_token: float
    mfu: Band
    goodput: float
    hours: Band = Field(description="wall-clock hours: low = at high MFU, high = at low MFU")
    days: Band
    gpu_hours: Band
    tokens_per_second: float = Field(description="cluster throughput at typical MFU")
    samples_per_second: float = Field(description="tokens_per_second / seq_len")


def _peak(gpu: GpuSpec, precision: str, ledger: Ledger) -> float:
    peak = gpu.dense_tflops(precision) or gpu.fp16_dense_tflops
    return ledger.from_catalog("peak_tflops", peak, "TFLOP/s", f"{gpu.id} dense {precision}")


def training_time(req: TrainingTimeRequest, catalog: Catalog) -> TrainingTimeResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    gpus = ledger.given("gpus", req.gpus)
    precision = resolve_precision(req.precision, gpu, ledger)
    tokens, seq_len = resolve_tokens(req, shape, ledger)
    per_token = flops_per_token(shape, seq_len, req.method, ledger)
    flops = ledger.step("flops.model", "flops_per_token·D", per_token * tokens, "FLOP")
    peak = _peak(gpu, precision, ledger)
    goodput = ledger.field(req, "goodput", "", "Llama 3: >90% effective time at 16K GPUs; 95% for smaller jobs", default=default_goodput(gpus))
    if req.achieved_tflops is not None:
        achieved = ledger.given("achieved_tflops", req.achieved_tflops, "TFLOP/s")
        hw_factor = 8 / 6 if req.recompute == "full" else 1.0
        if req.recompute == "full":
            ledger.given("recompute", "full")
            ledger.cite(ref.NARAYANAN.title, ref.NARAYANAN.url)
        m = sig(achieved / peak / hw_factor, 4)
        band = Band(low=m, typical=m, high=m)
        ledger.derived("mfu", m, "", "achieved_tflops / peak / (8/6 if full recompute)")
    elif req.mfu is not None:
        m = ledger.given("mfu", req.mfu)
        band = Band(low=m, typical=m, high=m)  # the caller's own figure: no band around it
    else:
        band = mfu_band(shape, gpu, precision, gpus, seq_len, ledger)
    if band.typical > MFU_CEILING:
        ledger.warn("mfu_high", f"MFU {band.typical:.0%} is above the best published at scale (~55%, MegaScale).",
                    f"MFU {band.typical:.0%} 高于已发表的大规模训练最好水平（约 55%，MegaScale）。")

    def hours_at(mfu: float) -> float:
        return flops / (gpus * peak * 1e12 * mfu) / goodput / SECONDS_PER_HOUR

    hours = Band(low=sig(hours_at(band.high)), typical=sig(hours_at(band.typical)), high=sig(hours_at(band.low)))
    ledger.step("time.hours_typical", "FLOPs / (gpus·peak·MFU) / goodput / 3600", hours.typical, "h")
    days = Band(low=sig(hours.low / 24), typical=sig(hours.typical / 24), high=sig(hours.high / 24))
    gpu_hours = Band(low=sig(hours.low * gpus), typical=sig(hours.typical * gpus), high=sig(hours.high * gpus))
    tps = ledger.step("throughput.tokens_per_s", "gpus·peak·MFU·goodput / flops_per_token", gpus * peak * 1e12 * band.typical * goodput / per_token, "tokens/s")
    return TrainingTimeResult(
        model=shape.name, params_b=sig(shape.params / 1e9), active_params_b=sig(shape.active_params / 1e9), tokens=tokens, seq_len=seq_len,
        gpu=gpu.id, gpus=gpus, precision=precision, peak_tflops_per_gpu=peak, flops=sig(flops), flops_per_token=sig(per_token),
        mfu=band, goodput=goodput, hours=hours, days=days, gpu_hours=gpu_hours, tokens_per_second=sig(tps),
        samples_per_second=sig(tps / seq_len), work=ledger.work(),
    )


# -- inverse questions --------------------------------------------------------

class DeadlineRequest(WorkloadTokens):
    gpu: str = Field(min_length=1, max_length=80)
    deadline_hours: float = Field(ge=0.01, le=24 * 365 * 10)
    precision: TrainPrecision | None = None
    mfu: float | None = Field(default=None, ge=0.01, le=1)


class DeadlineResult(SizingResult):
    tool: Literal["gpus-for-deadline"] = "gpus-for-deadline"
    model: str
    tokens: float
    gpu: str
    deadline_hours: float
    precision: TrainPrecision
    flops: float
    mfu: Band
    goodput: float
    gpus: Band = Field(description="GPUs needed: low = at high MFU, high = at low MFU")
    gpus_rounded: int = Field(description="typical figure rounded up to a whole GPU, or to whole 8-GPU nodes above 8")


def round_gpus(n: float) -> int:
    whole = max(1, math.ceil(n - 1e-9))
    if whole <= 8:
        return 1 << (whole - 1).bit_length()  # 1, 2, 4, 8
    return 8 * math.ceil(whole / 8)


def gpus_for_deadline(req: DeadlineRequest, catalog: Catalog) -> DeadlineResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    precision = resolve_precision(req.precision, gpu, ledger)
    tokens, seq_len = resolve_tokens(req, shape, ledger)
    hours = ledger.given("deadline_hours", req.deadline_hours, "h")
    flops = ledger.step("flops.model", "flops_per_token·D", flops_per_token(shape, seq_len, req.method, ledger) * tokens, "FLOP")
    peak = _peak(gpu, precision, ledger)
    # First pass at a mid-size job to pick the MFU band and goodput, then refine once.
    band = mfu_band(shape, gpu, precision, 64, seq_len, ledger) if req.mfu is None else Band(low=req.mfu, typical=req.mfu, high=req.mfu)
    goodput = 0.95

    def needed(mfu: float) -> float:
        return flops / (hours * SECONDS_PER_HOUR * peak * 1e12 * mfu * goodput)

    if needed(band.typical) >= 8192:
        goodput = 0.90
    ledger.default("goodput", goodput, "", "Llama 3: >90% effective time at 16K GPUs; 95% for smaller jobs")
    gpus = Band(low=sig(needed(band.high)), typical=sig(needed(band.typical)), high=sig(needed(band.low)))
    ledger.step("gpus.typical", "FLOPs / (deadline·3600·peak·MFU·goodput)", gpus.typical, "GPUs")
    ledger.assume("memory_not_checked", "This counts compute only; check per-GPU memory with training-memory (or use recommend).",
                  "此处只计算算力需求；每卡显存是否够用请用 training-memory 计算（或直接使用 recommend）。")
    return DeadlineResult(
        model=shape.name, tokens=tokens, gpu=gpu.id, deadline_hours=hours, precision=precision, flops=sig(flops), mfu=band,
        goodput=goodput, gpus=gpus, gpus_rounded=round_gpus(gpus.typical), work=ledger.work(),
    )


class TokenBudgetRequest(ModelRef):
    gpu: str = Field(min_length=1, max_length=80)
    gpus: int = Field(ge=1, le=1_000_000)
    hours: float = Field(ge=0.01, le=24 * 365 * 10)
    seq_len: int | None = Field(default=None, ge=16, le=2_000_000)
    precision: TrainPrecision | None = None
    method: Method = "full"
    mfu: float | None = Field(default=None, ge=0.01, le=1)


class TokenBudgetResult(SizingResult):
    tool: Literal["tokens-in-budget"] = "tokens-in-budget"
    model: str
    gpu: str
    gpus: int
    hours: float
    precision: TrainPrecision
    mfu: Band
    goodput: float
    tokens: Band = Field(description="tokens trainable in the time: low = at low MFU")


def tokens_in_budget(req: TokenBudgetRequest, catalog: Catalog) -> TokenBudgetResult:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    gpus = ledger.given("gpus", req.gpus)
    hours = ledger.given("hours", req.hours, "h")
    precision = resolve_precision(req.precision, gpu, ledger)
    seq_len = ledger.field(req, "seq_len", "tokens", "min(context length, 4096)", default=min(shape.context_length, 4096))
    per_token = flops_per_token(shape, seq_len, req.method, ledger)
    peak = _peak(gpu, precision, ledger)
    band = mfu_band(shape, gpu, precision, gpus, seq_len, ledger) if req.mfu is None else Band(low=req.mfu, typical=req.mfu, high=req.mfu)
    goodput = ledger.default("goodput", default_goodput(gpus), "", "Llama 3: >90% effective time at 16K GPUs; 95% for smaller jobs")

    def tokens_at(mfu: float) -> float:
        return gpus * peak * 1e12 * mfu * goodput * hours * SECONDS_PER_HOUR / per_token

    tokens = Band(low=sig(tokens_at(band.low)), typical=sig(tokens_at(band.typical)), high=sig(tokens_at(band.high)))
    ledger.step("tokens.typical", "gpus·peak·MFU·goodput·hours·3600 / flops_per_token", tokens.typical, "tokens")
    return TokenBudgetResult(model=shape.name, gpu=gpu.id, gpus=gpus, hours=hours, precision=precision, mfu=band, goodput=goodput,
                             tokens=tokens, work=ledger.work())
