"""`advisor validate`: how accurate the sizing tools are, on the held-out half only, beside other estimators.

Four tables, each with mean, median, p90 and worst absolute error, per source and per hardware generation:
step time with the layout given (evaluators/datasets/step_time_runs.jsonl), the time-to-train band without a
layout (share of the same runs whose measured step time lies inside the MFU band), training memory against
published peak memory (Korthikanti et al. Figure 1), and KV capacity against vLLM start-up logs
(evaluators/datasets/kv_capacity_logs.jsonl). llm-analysis runs the same step-time cases beside ours at its
own default efficiency (it takes the efficiency as an input; the measured one is never given to either).
aiconfigurator and vidur model serving latency, not a training step or the KV pool, so they express none of
these cases; the table says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evaluators import baselines, sizing_eval, step_time_eval
from evaluators.jsonl import read_jsonl
from service.catalog import Catalog
from service.sizing import get_tool

KV_DATASET = Path(__file__).resolve().parent / "datasets" / "kv_capacity_logs.jsonl"
TARGETS = {"step_time_median": 0.08, "step_time_worst": 0.20, "band_coverage": 0.90, "kv_worst": 0.03, "memory_worst": 0.10}
NOT_EXPRESSIBLE = {"aiconfigurator": "models serving (TTFT/TPOT per GPU), not a training step, the MFU band or vLLM's KV pool",
                   "vidur": "simulates serving schedulers from profiled kernels; no training step, no KV-pool start-up accounting"}
# Korthikanti et al. 2022 Figure 1, per GPU (GiB), as Calculon's llm-validation encodes it: parameters + optimizer, activations.
KORTHIKANTI_MEMORY = {
    "22b": ((48, 6144, 64, 8, 1, 4), {"none": (45.5625, 59.25), "seqsel": (45.5625, 9.5625)}),
    "175b": ((96, 12288, 96, 8, 8, 1), {"none": (45.5625, 66.84375), "seqsel": (45.5625, 12.3515625)}),
    "530b": ((105, 20480, 128, 8, 35, 1), {"none": (31.640625, 114.0234375), "seqsel": (31.640625, 23.076171875)}),
    "1t": ((128, 25600, 160, 8, 64, 1), {"none": (32.958984375, 131.25), "seqsel": (32.958984375, 26.5625)}),
}
KORTHIKANTI_PARAMS_B = {"22b": 22.0, "175b": 175.0, "530b": 530.0, "1t": 1008.0}


@dataclass
class Row:
    id: str
    group: str
    generation: str
    measured: float
    ours: float | None
    error: float | None
    others: dict[str, float | None] = field(default_factory=dict)
    note: str = ""


def stats(errors: Iterable[float | None]) -> dict[str, float] | None:
    values = sorted(abs(e) for e in errors if e is not None)
    if not values:
        return None
    p90 = values[min(len(values) - 1, max(0, round(0.9 * len(values)) - 1))]
    return {"n": len(values), "mean": statistics.mean(values), "median": statistics.median(values), "p90": p90, "worst": values[-1]}


def grouped(rows: list[Row], key: str, error_of=lambda r: r.error) -> dict[str, dict]:
    out: dict[str, list] = {}
    for r in rows:
        out.setdefault(getattr(r, key), []).append(error_of(r))
    return {k: s for k, v in sorted(out.items()) if (s := stats(v)) is not None}


# -- step time -------------------------------------------------------------------------------------

def llm_analysis_step_seconds(payload: dict, catalog: Catalog) -> float | None:
    """llm-analysis 0.2.2 on the same layout at its default (ideal) efficiency; None where it cannot express the case."""
    modules = baselines._import_llm_analysis()
    if modules is None or "layers" not in payload and "model" not in payload:
        return None
    analysis, config = modules
    gpu_name = baselines.LLM_ANALYSIS_GPUS.get(catalog.gpu(payload["gpu"]).id)
    if gpu_name is None or payload.get("cp", 1) > 1 or payload.get("precision") == "fp8":
        return None
    if "layers" in payload:
        layers, h, heads, ffn, vocab, kv, gated = payload["layers"], payload["hidden"], payload["heads"], payload["ffn"], payload["vocab"], payload["heads"], False
    else:
        arch = catalog.model(payload["model"])
        layers, h, heads, ffn, vocab, kv, gated = (arch.layers, arch.hidden_size, arch.attention_heads, arch.ffn_hidden_size, arch.vocab_size,
                                                   arch.kv_heads, arch.ffn_type in ("swiglu", "geglu"))
    seq = payload["seq_len"]
    model = config.ModelConfig(name="case", num_layers=layers, n_head=heads, hidden_dim=h, vocab_size=vocab, max_seq_len=seq,
                               num_key_value_heads=kv, ffn_embed_dim=ffn, expansion_ratio=ffn / h)
    tp, pp = payload.get("tp", 1), payload.get("pp", 1)
    dp = payload["gpus"] // (tp * pp)
    mb = payload.get("micro_batch", 1)
    ga = payload.get("grad_accumulation") or max(1, payload.get("global_batch", mb * dp) // (mb * dp))
    recompute = {"none": "NONE", "selective": "SELECTIVE", "full": "FULL"}[payload.get("recompute", "selective")]
    zero = {0: "NONE", 1: "STAGE_1", 2: "STAGE_2", 3: "STAGE_3"}[payload.get("zero_stage", 1)]
    runner = analysis.LLMAnalysis(model, config.get_gpu_config_by_name(gpu_name), config.get_dtype_config_by_name("w16a16e16"),
                                  config.ParallelismConfig(tp_size=tp, pp_size=pp, dp_size=dp, sp_size=tp if payload.get("sequence_parallel", tp > 1) else 1))
    try:
        result = runner.training(batch_size_per_gpu=mb, gradient_accumulation_steps=ga, seq_len=seq,
                                 activation_recomputation=analysis.ActivationRecomputation[recompute], ds_zero=analysis.DSZeRO[zero],
                                 flash_attn=payload.get("flash_attention", True), mlp_gated_linear_units=gated)
    except (AssertionError, ValueError, ZeroDivisionError):  # llm-analysis asserts on what does not fit or it cannot model
        return None
    return float(result["latency_per_iter"])


def step_rows(catalog: Catalog, split: str = "heldout") -> list[Row]:
    rows = []
    for run in step_time_eval.load_runs(split=split):
        o = step_time_eval.evaluate_run(run, catalog)
        other = llm_analysis_step_seconds(run["payload"], catalog)
        rows.append(Row(o.id, o.group, o.generation, o.measured_s, o.predicted_s, o.error,
                        {"llm-analysis": None if other is None else other / o.measured_s - 1}, o.why))
    return rows


def band_rows(catalog: Catalog, split: str = "heldout") -> list[Row]:
    """The same runs without their layout: is the measured step inside training-time's MFU band for the step's tokens?"""
    rows = []
    for run in step_time_eval.load_runs(split=split):
        p = run["payload"]
        measured = step_time_eval.measured_step_seconds(run)
        tokens = (p["global_batch"] if "global_batch" in p else p["micro_batch"] * p.get("grad_accumulation", 1) * p["gpus"]) * p["seq_len"]
        request = {"gpu": p["gpu"], "gpus": p["gpus"], "tokens": tokens, "seq_len": p["seq_len"], "goodput": 1.0}
        request.update({"model": p["model"]} if "model" in p else {"params_b": step_time_eval_params_b(p)})
        if p.get("precision") in ("fp8", "fp16", "bf16"):
            request["precision"] = p["precision"]
        result = get_tool("training-time")(request, catalog)
        low, high = result.hours.low * 3600, result.hours.high * 3600
        inside = low <= measured <= high
        rows.append(Row(run["id"], run["group"], step_time_eval.generation(catalog, p), measured, result.hours.typical * 3600,
                        result.hours.typical * 3600 / measured - 1, {"inside": 1.0 if inside else 0.0}, f"band {low:.3g}-{high:.3g} s"))
    return rows


def step_time_eval_params_b(p: dict) -> float:
    h, layers, vocab, ffn = p["hidden"], p["layers"], p["vocab"], p["ffn"]
    return (layers * (4 * h * h + 2 * h * ffn) + vocab * h) / 1e9


# -- training memory ---------------------------------------------------------------------------------

def memory_rows(catalog: Catalog) -> list[Row]:
    rows = []
    for name, ((layers, h, heads, tp, pp, mb), modes) in KORTHIKANTI_MEMORY.items():
        for mode, (par_opt, act) in modes.items():
            result = get_tool("training-memory")({"params_b": KORTHIKANTI_PARAMS_B[name], "task": "pretrain", "precision": "fp16", "convention": "megatron-18",
                                                  "gpus": tp * pp, "tp": tp, "pp": pp, "seq_len": 2048, "micro_batch": mb, "flash_attention": False,
                                                  "recompute": "none" if mode == "none" else "selective", "overhead_gib": 0,
                                                  "sequence_parallel": mode != "none"}, catalog)
            measured = par_opt + act
            ours = result.per_gpu.total_gib
            rows.append(Row(f"korthikanti-{name}-{mode}", "korthikanti-2022-fig1", "Ampere", measured, ours, ours / measured - 1,
                            note="no sequence parallelism, no selective recomputation" if mode == "none" else "sequence parallelism + selective recomputation"))
    return rows


# -- KV capacity ------------------------------------------------------------------------------------

def load_kv_cases(split: str | None = "heldout") -> list[dict]:
    return [c for _, c in read_jsonl(KV_DATASET) if split is None or c["split"] == split]


def kv_distinct_cases(split: str | None = None) -> set[tuple]:
    """Distinct model × GPU × TP × weight dtype × KV dtype cases (the same start-up at several max_model_len counts once)."""
    return {(p.get("model") or p.get("params_b"), p["gpu"], p.get("tp", 1), p.get("dtype", "bf16"), p.get("kv_cache_dtype", "auto"))
            for p in (c["payload"] for c in load_kv_cases(split))}


def kv_rows(catalog: Catalog, split: str | None = "heldout") -> list[Row]:
    rows = []
    for case in load_kv_cases(split):
        measured = case["measured"]["kv_cache_tokens"]
        result = get_tool("kv-capacity")(case["payload"], catalog)
        rows.append(Row(case["id"], case["group"], catalog.gpu(case["payload"]["gpu"]).architecture, measured, result.kv_cache_tokens,
                        result.kv_cache_tokens / measured - 1, note=case.get("note", "")))
    return rows


def reported_band_coverage(catalog: Catalog) -> tuple[int, int, list[str]]:
    """The published time-to-train cases of sizing_cases.jsonl (GPU-hours, days; no layout): inside the MFU band?"""
    cases = [c for c in sizing_eval.load_cases() if c.get("band_covers") and c["kind"] in ("reported", "reported_secondhand")]
    outcomes = [sizing_eval.evaluate_case(c, catalog) for c in cases]
    return sum(bool(o.covered) for o in outcomes), len(outcomes), [o.id for o in outcomes if not o.covered]


def run(catalog: Catalog, split: str = "heldout") -> dict:
    step, band, memory, kv = step_rows(catalog, split), band_rows(catalog, split), memory_rows(catalog), kv_rows(catalog, split)
    coverage = sum(r.others["inside"] for r in band) / max(len(band), 1)
    covered, reported, missed = reported_band_coverage(catalog)
    shortfalls = [f"step-time {r.id}: {r.error:+.1%}" + (f" ({r.note})" if r.note else "") for r in step
                  if r.error is None or abs(r.error) > TARGETS["step_time_worst"]]
    shortfalls += [f"band {r.id}: measured {r.measured:.3g} s outside {r.note}" for r in band if not r.others["inside"]]
    shortfalls += [f"band (published time-to-train) {m}: outside the MFU band" for m in missed]
    shortfalls += [f"memory {r.id}: {r.error:+.1%}" + (f" ({r.note})" if r.note else "") for r in memory if abs(r.error) > TARGETS["memory_worst"]]
    shortfalls += [f"kv-capacity {r.id}: {r.error:+.2%}" for r in kv if abs(r.error) > TARGETS["kv_worst"]]
    summary = {"step_time": stats(r.error for r in step), "step_time_llm_analysis": stats(r.others["llm-analysis"] for r in step),
               "band_coverage": coverage, "band_coverage_reported": covered / max(reported, 1), "band_reported_cases": reported, "memory": stats(r.error for r in memory), "kv_capacity": stats(r.error for r in kv),
               "kv_within_target": sum(abs(r.error) <= TARGETS["kv_worst"] for r in kv) / max(len(kv), 1),
               "kv_distinct_cases": len(kv_distinct_cases(None)), "kv_logs": len(load_kv_cases(None))}
    return {"split": split, "summary": summary, "step": step, "band": band, "memory": memory, "kv": kv, "shortfalls": shortfalls,
            "by_source": grouped(step, "group"), "by_generation": grouped(step, "generation"), "kv_by_source": grouped(kv, "group"),
            "llm_analysis_by_source": grouped(step, "group", lambda r: r.others["llm-analysis"]), "not_expressible": NOT_EXPRESSIBLE}


def metrics(report: dict) -> dict[str, float]:
    s = report["summary"]
    out = {"validate.step_time.median_error": s["step_time"]["median"], "validate.step_time.worst_error": s["step_time"]["worst"],
           "validate.band_coverage": s["band_coverage"], "validate.band_coverage_reported": s["band_coverage_reported"], "validate.kv_capacity.worst_error": s["kv_capacity"]["worst"],
           "validate.kv_capacity.median_error": s["kv_capacity"]["median"], "validate.kv_capacity.within_target": s["kv_within_target"],
           "validate.memory.median_error": s["memory"]["median"]}
    return out


# -- printing ---------------------------------------------------------------------------------------

def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _stats_table(title: str, groups: dict[str, dict | None]):
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in ("", "n", "mean", "median", "p90", "worst"):
        table.add_column(column, justify="left" if not column else "right")
    for name, s in groups.items():
        if s:
            table.add_row(name, str(s["n"]), _pct(s["mean"]), _pct(s["median"]), _pct(s["p90"]), _pct(s["worst"]))
        else:
            table.add_row(name, "0", "—", "—", "—", "—")
    return table


def print_report(report: dict, console=None) -> None:
    from rich.console import Console

    console = console or Console(width=180)
    s = report["summary"]
    console.print(f"[bold]advisor validate[/] — the {report['split']} half only (the development half tuned the constants)")
    console.print(_stats_table("Step time with the layout given (|predicted/measured − 1|)",
                               {"ours": s["step_time"], "llm-analysis 0.2.2 (its default efficiency)": s["step_time_llm_analysis"],
                                **{f"ours · {k}": v for k, v in report["by_source"].items()},
                                **{f"ours · {k}": v for k, v in report["by_generation"].items()},
                                **{f"llm-analysis · {k}": v for k, v in report["llm_analysis_by_source"].items()}}))
    console.print(f"Time-to-train band without a layout: {_pct(s['band_coverage_reported'])} of {s['band_reported_cases']} published runs "
                  f"(GPU-hours, days) inside the MFU band; {_pct(s['band_coverage'])} of the held-out step-time runs")
    console.print(_stats_table("Training memory per GPU against published measurements (Korthikanti et al. Fig. 1)", {"ours": s["memory"]}))
    console.print(_stats_table(f"KV capacity against vLLM start-up logs and KV-cache errors (tokens; {s['kv_logs']} logs, "
                               f"{s['kv_distinct_cases']} distinct model × GPU × TP × dtype cases in both halves)",
                               {"ours": s["kv_capacity"], **{f"ours · {k}": v for k, v in report["kv_by_source"].items()}}))
    console.print(f"KV capacity within {_pct(TARGETS['kv_worst'])}: {_pct(s['kv_within_target'])} of the held-out cases")
    for name, why in report["not_expressible"].items():
        console.print(f"[dim]{name}: expresses none of these cases ({why})[/]")
    t = TARGETS
    console.print(f"Targets: step time median ≤ {_pct(t['step_time_median'])} and worst ≤ {_pct(t['step_time_worst'])}; band ≥ {_pct(t['band_coverage'])}; "
                  f"KV ≤ {_pct(t['kv_worst'])} on every case; memory ≤ {_pct(t['memory_worst'])}")
    if report["shortfalls"]:
        console.print("[yellow]Shortfalls, per case:[/]")
        for line in report["shortfalls"]:
            console.print(f"  - {line}")
