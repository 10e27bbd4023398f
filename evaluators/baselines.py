"""Baselines run on the same datasets as the advisor, for the report's side-by-side tables.

(a) Naive RAG: the dense-only LangChain retriever over the same index and embedding model,
    piped into "join the top 3 chunks" (the baseline bench/bench_chat.py times), scored on the
    conversation set's fact recall with the same regular expressions as the assistant.
(b) llm-analysis 0.2.2 (Cheng Li): its training-latency model on the published-run cases of
    datasets/sizing_cases.jsonl, at its default flops efficiency (1.0) and at our typical MFU.
    It needs a layer-by-layer architecture and one of its bundled GPU profiles; cases without
    either are listed as not expressible, with the reason.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

# Our catalog id -> llm-analysis's bundled GPU profile (same part, same memory).
LLM_ANALYSIS_GPUS = {
    "a100-40gb-sxm": "a100-sxm-40gb",
    "a100-80gb-sxm": "a100-sxm-80gb",
    "a100-40gb-pcie": "a100-pcie-40gb",
    "a100-80gb-pcie": "a100-pcie-80gb",
    "h100-sxm": "h100-sxm-80gb",
    "h100-pcie": "h100-pcie-80gb",
    "a10": "a10-pcie-28gb",
    "a10g": "a10g-pcie-24gb",
    "v100-16gb-sxm": "v100-sxm-16gb",
    "v100-32gb-sxm": "v100-sxm-32gb",
}
TRAINING_COST_CHECKS = ("gpu_hours", "days", "iteration_seconds")


# -- (a) naive dense-only RAG ------------------------------------------------------------------

def naive_rag_fact_recall(index: Any, turns: Iterable[dict[str, Any]], *, on_turn: Callable[[], None] | None = None) -> dict[str, float]:
    """Fact recall of "top-3 dense chunks, joined" on the labelled turns (no tools, no composition)."""
    from langchain_core.runnables import RunnableLambda

    from service.retrieval import KnowledgeRetriever

    chain = KnowledgeRetriever(index=index, k=3, mode="dense") | RunnableLambda(lambda docs: "\n\n".join(d.page_content for d in docs))
    hit = total = count = 0
    for turn in turns:
        text = chain.invoke(turn["message"][:2000])
        total += len(turn["facts"])
        hit += sum(bool(re.search(fact, text, re.I)) for fact in turn["facts"])
        count += 1
        if on_turn is not None:
            on_turn()
    return {"turns": count, "facts": total, "fact_recall": hit / max(total, 1)}


# -- (b) llm-analysis --------------------------------------------------------------------------

def _import_llm_analysis():
    """llm_analysis, imported without transformers: it only wants AutoConfig for Hugging Face
    look-ups (never used here: HF_HUB_OFFLINE) and importing transformers costs ~20 s."""
    try:
        saved = sys.modules.get("transformers", ...)
        if saved is ...:
            sys.modules["transformers"] = None  # type: ignore[assignment]  # makes `from transformers import` raise ImportError
        logging.getLogger("__name__").setLevel(logging.ERROR)  # llm_analysis logs under this literal name
        try:
            from llm_analysis import analysis, config
        finally:
            if saved is ...:
                del sys.modules["transformers"]
        return analysis, config
    except ImportError:
        return None


def llm_analysis_available() -> bool:
    return _import_llm_analysis() is not None


def expressible(case: dict[str, Any], catalog: Any) -> str | None:
    """None when llm-analysis can express the case, else why not."""
    payload = case["payload"]
    if "model" not in payload:
        return "no architecture: the case gives only a parameter count and llm-analysis needs layer shapes"
    arch = catalog.model(payload["model"])
    if arch.moe is not None or arch.mla is not None:
        return "mixture-of-experts / latent attention is not modelled the same way"
    gpu = catalog.gpu(payload["gpu"]).id
    if gpu not in LLM_ANALYSIS_GPUS:
        return f"no bundled GPU profile for {gpu}"
    return None


# Tried in order until one fits in GPU memory by llm-analysis's own accounting: plain data parallel,
# then full activation recomputation, then tensor parallel 8 inside a node (what the 70B+ runs used).
LLM_ANALYSIS_LAYOUTS = (("dp, no recompute", 1, "NONE"), ("dp, full recompute", 1, "FULL"), ("tp8 x dp, full recompute", 8, "FULL"))


def llm_analysis_gpu_hours(case: dict[str, Any], catalog: Any, *, flops_efficiency: float, seq_len: int) -> tuple[float, str]:
    """(GPU-hours llm-analysis predicts, the layout used): ZeRO-3 over the data-parallel group, micro-batch 1,
    bf16 weights/activations (w16a16e16), the first layout of LLM_ANALYSIS_LAYOUTS that fits."""
    modules = _import_llm_analysis()
    if modules is None:
        raise RuntimeError("llm-analysis is not installed")
    analysis, config = modules
    payload = case["payload"]
    arch = catalog.model(payload["model"])
    model = config.ModelConfig(
        name=arch.id, num_layers=arch.layers, n_head=arch.attention_heads, hidden_dim=arch.hidden_size, vocab_size=arch.vocab_size,
        max_seq_len=max(arch.context_length, seq_len), num_key_value_heads=arch.kv_heads, ffn_embed_dim=arch.ffn_hidden_size,
        expansion_ratio=arch.ffn_hidden_size / arch.hidden_size,
    )
    gpus = int(payload["gpus"])
    gpu = config.get_gpu_config_by_name(LLM_ANALYSIS_GPUS[catalog.gpu(payload["gpu"]).id])
    refusal: Exception | None = None
    for layout, tp, recompute in LLM_ANALYSIS_LAYOUTS:
        if gpus % tp:
            continue
        runner = analysis.LLMAnalysis(model, gpu, config.get_dtype_config_by_name("w16a16e16"),
                                      config.ParallelismConfig(tp_size=tp, pp_size=1, dp_size=gpus // tp), flops_efficiency=flops_efficiency)
        try:
            result = runner.training(batch_size_per_gpu=1, gradient_accumulation_steps=1, seq_len=seq_len, total_num_tokens=payload["tokens"],
                                     ds_zero=analysis.DSZeRO.STAGE_3, activation_recomputation=analysis.ActivationRecomputation[recompute],
                                     mlp_gated_linear_units=arch.ffn_type in ("swiglu", "geglu"))
        except AssertionError as exc:  # "does not fit": try the next layout
            refusal = exc
            continue
        return float(result["gpu_hours"]), layout
    raise ValueError(f"no layout fits: {refusal}")


def published_gpu_hours(case: dict[str, Any]) -> float:
    """The published figure as GPU-hours (days and seconds per iteration times the GPUs used)."""
    value, gpus = float(case["expected"]["value"]), float(case["payload"]["gpus"])
    return {"gpu_hours": value, "days": value * 24 * gpus, "iteration_seconds": value * gpus / 3600}[case["check"]]


def compare_with_llm_analysis(cases: Iterable[dict[str, Any]], catalog: Any) -> dict[str, Any]:
    """Ours (typical MFU) next to llm-analysis (efficiency 1.0 and our MFU), as ratios to the published figure."""
    from service.sizing import get_tool

    available = llm_analysis_available()
    rows, skipped = [], []
    for case in cases:
        if case["check"] not in TRAINING_COST_CHECKS or case["kind"] not in ("reported", "reported_secondhand"):
            continue
        ours = get_tool(case["tool"])(case["payload"], catalog)
        published = published_gpu_hours(case)
        row: dict[str, Any] = {"id": case["id"], "published_gpu_hours": published, "ours_gpu_hours": ours.gpu_hours.typical,
                               "ours_ratio": ours.gpu_hours.typical / published, "mfu": ours.mfu.typical}
        reason = expressible(case, catalog) if available else "llm-analysis is not installed"
        if reason is None:
            try:
                for key, efficiency in (("llm_analysis_eff1", 1.0), ("llm_analysis_our_mfu", ours.mfu.typical)):
                    predicted, row["llm_analysis_layout"] = llm_analysis_gpu_hours(case, catalog, flops_efficiency=efficiency, seq_len=ours.seq_len)
                    row[f"{key}_gpu_hours"] = predicted
                    row[f"{key}_ratio"] = predicted / published
            except (AssertionError, ValueError, ZeroDivisionError) as exc:  # llm-analysis asserts on what it cannot model
                reason = f"llm-analysis refused: {exc}"
        if reason is not None:
            skipped.append({"id": case["id"], "reason": reason})
        rows.append(row)
    return {"available": available, "rows": rows, "not_expressible": skipped, "summary": _medians(rows)}


def _medians(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Median factor off the published figure (max(r, 1/r)), over the cases each side expressed."""
    out = {}
    for key in ("ours_ratio", "llm_analysis_eff1_ratio", "llm_analysis_our_mfu_ratio"):
        factors = sorted(max(r[key], 1 / r[key]) for r in rows if r.get(key))
        if factors:
            mid = len(factors) // 2
            out[key.replace("_ratio", "_median_factor")] = factors[mid] if len(factors) % 2 else (factors[mid - 1] + factors[mid]) / 2
    expressed = [r for r in rows if r.get("llm_analysis_eff1_ratio")]
    if expressed:  # ours on exactly the cases llm-analysis expressed, for a like-for-like median
        factors = sorted(max(r["ours_ratio"], 1 / r["ours_ratio"]) for r in expressed)
        mid = len(factors) // 2
        out["ours_on_expressed_median_factor"] = factors[mid] if len(factors) % 2 else (factors[mid - 1] + factors[mid]) / 2
    return out
