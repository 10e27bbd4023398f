"""The compute-optimal model for a compute budget (Chinchilla): GPUs × time → parameters and tokens.

Hoffmann et al. (2022) found that, for a fixed training budget C ≈ 6·N·D FLOPs, loss is lowest
with about 20 training tokens per parameter. Solving C = 6·N·(20·N) gives N = √(C / 120) and
D = 20·N. The budget itself is GPUs × dense peak × MFU × goodput × time, with the same MFU bands
and goodput as the training-time tool, so the two tools agree when one's output feeds the other.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from service.catalog import Catalog
from service.sizing.base import SizingRequest, SizingResult, TrainPrecision
from service.sizing.compute import SECONDS_PER_HOUR, Band, _peak, default_goodput, mfu_band
from service.sizing.memory import resolve_precision
from service.sizing.shapes import resolve_shape
from service.sizing.work import Citation, Ledger, NullLedger, sig

CHINCHILLA = Citation(title="Hoffmann et al. 2022, Training Compute-Optimal Large Language Models (Chinchilla)", url="https://arxiv.org/abs/2203.15556")
SEQ_LEN = 4096


class ComputeOptimalRequest(SizingRequest):
    gpu: str = Field(min_length=1, max_length=80)
    gpus: int = Field(ge=1, le=1_000_000)
    hours: float = Field(gt=0, le=24 * 365 * 5, description="wall-clock hours the GPUs are available")
    precision: TrainPrecision | None = None
    mfu: float | None = Field(default=None, ge=0.01, le=1, description="override the typical MFU")
    tokens_per_param: float = Field(default=20.0, ge=1, le=10_000, description="20 = Chinchilla compute-optimal")


class ComputeOptimalResult(SizingResult):
    tool: Literal["compute-optimal"] = "compute-optimal"
    gpu: str
    gpus: int
    hours: float
    gpu_hours: float
    precision: TrainPrecision
    peak_tflops_per_gpu: float
    mfu: Band
    goodput: float
    tokens_per_param: float
    flops: Band = Field(description="training FLOPs the GPUs deliver in the time: low = at low MFU")
    params_b: Band = Field(description="compute-optimal parameters, billions: √(FLOPs / (6 · tokens_per_param))")
    tokens: Band = Field(description="compute-optimal training tokens: tokens_per_param × parameters")


def _optimal_params(flops: float, tokens_per_param: float) -> float:
    return math.sqrt(flops / (6 * tokens_per_param))


def compute_optimal(req: ComputeOptimalRequest, catalog: Catalog) -> ComputeOptimalResult:
    ledger = Ledger()
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    gpus = ledger.given("gpus", req.gpus)
    hours = ledger.given("hours", req.hours, "h")
    precision = resolve_precision(req.precision, gpu, ledger)
    peak = _peak(gpu, precision, ledger)
    goodput = ledger.default("goodput", default_goodput(gpus), "", "Llama 3: >90% effective time at 16K GPUs; 95% for smaller jobs")

    def budget(mfu: float) -> float:
        return gpus * peak * 1e12 * mfu * goodput * hours * SECONDS_PER_HOUR

    if req.mfu is not None:
        band = Band(low=req.mfu, typical=req.mfu, high=req.mfu)
        ledger.given("mfu", req.mfu)
    else:
        # The MFU band depends on the model's size, which depends on the budget: size the model at a
        # large dense model's MFU, then take the band of a model of that size (one step settles it).
        first = _optimal_params(budget(0.40), req.tokens_per_param)
        shape = resolve_shape(SizingRequestWithParams(params_b=first / 1e9), catalog, NullLedger())
        band = mfu_band(shape, gpu, precision, gpus, SEQ_LEN, ledger)
    tokens_per_param = ledger.default("tokens_per_param", req.tokens_per_param, "tokens", "Chinchilla: ~20 tokens per parameter")
    flops = Band(low=sig(budget(band.low)), typical=sig(budget(band.typical)), high=sig(budget(band.high)))
    ledger.step("flops.typical", "gpus·peak·MFU·goodput·hours·3600", flops.typical, "FLOP")
    params = Band(**{k: sig(_optimal_params(getattr(flops, k), tokens_per_param) / 1e9) for k in ("low", "typical", "high")})
    ledger.step("params_b.typical", "√(FLOPs / (6·tokens_per_param)) / 1e9", params.typical, "B")
    tokens = Band(**{k: sig(getattr(params, k) * 1e9 * tokens_per_param) for k in ("low", "typical", "high")})
    ledger.step("tokens.typical", "tokens_per_param · params", tokens.typical, "tokens")
    ledger.assume(
        "compute_optimal",
        "C ≈ 6·N·D with D = 20·N tokens (Chinchilla); over-training a smaller model "
        "(Llama 3 8B saw ~1,900 tokens per parameter) costs more training compute but serves cheaper.",
        "C ≈ 6·N·D，D = 20·N（Chinchilla）；在更小的模型上多训 token（Llama 3 8B 每参数约 1900 个 token）训练算力更贵，但推理更省。",
    )
    ledger.cite(CHINCHILLA.title, CHINCHILLA.url)
    return ComputeOptimalResult(
        gpu=gpu.id,
        gpus=gpus,
        hours=hours,
        gpu_hours=sig(gpus * hours),
        precision=precision,
        peak_tflops_per_gpu=peak,
        mfu=band,
        goodput=goodput,
        tokens_per_param=tokens_per_param,
        flops=flops,
        params_b=params,
        tokens=tokens,
        work=ledger.work(),
    )


class SizingRequestWithParams(SizingRequest):
    """A model reference by parameter count alone (resolve_shape estimates the rest)."""

    model: str | None = None
    params_b: float | None = None
