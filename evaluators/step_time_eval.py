"""The step-time model against measured runs: evaluators/datasets/step_time_runs.jsonl.

Each run has its source, layout, hardware and one measured figure: seconds per step, tokens/s per GPU, or
TFLOP/s per GPU counted with the source's own FLOPs formula. The figure is converted to seconds per step
with that formula and compared with the prediction; it is never an input to the prediction. The file is
split in two: `dev` (the half the model's few efficiency constants were fitted on) and `heldout` (scored
by `advisor validate` only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluators.jsonl import read_jsonl
from service.catalog import Catalog
from service.errors import InputError
from service.sizing import get_tool

DATASET = Path(__file__).resolve().parent / "datasets" / "step_time_runs.jsonl"
SPLITS = ("dev", "heldout")
UNITS = ("s/step", "tokens/s/GPU", "TFLOP/s/GPU")
REQUIRED = ("id", "group", "source", "url", "hardware", "payload", "measured", "split")


def load_runs(path: Path = DATASET, split: str | None = None) -> list[dict]:
    runs, seen = [], set()
    for where, run in read_jsonl(path):
        missing = [k for k in REQUIRED if k not in run]
        if missing:
            raise ValueError(f"{where}: missing {', '.join(missing)}")
        if run["id"] in seen or run["split"] not in SPLITS or run["measured"]["unit"] not in UNITS:
            raise ValueError(f"{where}: duplicate id, unknown split or unknown unit")
        seen.add(run["id"])
        if split is None or run["split"] == split:
            runs.append(run)
    return runs


def megatron_2021_flops(p: dict) -> float:
    """Narayanan et al. 2021 Eq. 3: FLOPs per iteration with full recomputation, 96·B·s·l·h²·(1 + s/6h + V/16lh)."""
    B, s, l, h, V = p["global_batch"], p["seq_len"], p["layers"], p["hidden"], p["vocab"]
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))


def measured_step_seconds(run: dict) -> float:
    """The run's published figure as seconds per step, by the source's own definition."""
    m, p = run["measured"], run["payload"]
    if m["unit"] == "s/step":
        return float(m["value"])
    tokens = p["global_batch"] * p["seq_len"] if "global_batch" in p else p["micro_batch"] * p.get("grad_accumulation", 1) * p["gpus"] * p["seq_len"]
    if m["unit"] == "tokens/s/GPU":
        # FSDP runs without a global batch: every GPU is a data-parallel rank with its own micro-batch.
        return tokens / (p["gpus"] * float(m["value"]))
    if m.get("flops_formula") != "megatron-2021":
        raise ValueError(f"{run['id']}: TFLOP/s needs the source's FLOPs formula")
    return megatron_2021_flops(p) / (p["gpus"] * float(m["value"]) * 1e12)


@dataclass(frozen=True)
class RunOutcome:
    id: str
    group: str
    generation: str
    split: str
    measured_s: float
    predicted_s: float | None
    error: float | None  # predicted / measured − 1
    why: str = ""


def generation(catalog: Catalog, payload: dict) -> str:
    return catalog.gpu(payload["gpu"]).architecture


def evaluate_run(run: dict, catalog: Catalog) -> RunOutcome:
    measured = measured_step_seconds(run)
    gen = generation(catalog, run["payload"])
    try:
        predicted = get_tool("step-time")(run["payload"], catalog).step_time_s
    except InputError as exc:
        return RunOutcome(run["id"], run["group"], gen, run["split"], measured, None, None, f"not expressible: {exc}")
    return RunOutcome(run["id"], run["group"], gen, run["split"], measured, predicted, predicted / measured - 1)


def evaluate(catalog: Catalog, split: str | None = "heldout") -> list[RunOutcome]:
    return [evaluate_run(r, catalog) for r in load_runs(split=split)]
