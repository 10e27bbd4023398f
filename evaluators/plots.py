"""The report's PNG figures (matplotlib, Agg backend: no display, same pixels on every machine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

DPI = 110


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def sizing_cost(rows: list[dict[str, Any]], path: Path) -> Path:
    """Predicted vs published training cost (GPU-hours), log-log, with the 0.5x–2x band."""
    fig, ax = plt.subplots(figsize=(7, 6))
    published = [r["published_gpu_hours"] for r in rows]
    lo, hi = min(published) / 3, max(published) * 3
    xs = [lo, hi]
    ax.fill_between(xs, [x * 0.5 for x in xs], [x * 2 for x in xs], color="tab:green", alpha=0.12, label="0.5x–2x of published")
    ax.plot(xs, xs, color="tab:green", lw=1, ls="--", label="= published")
    ax.scatter(published, [r["ours_gpu_hours"] for r in rows], color="tab:blue", zorder=3, label="advisor (typical MFU)")
    la = [r for r in rows if r.get("llm_analysis_eff1_gpu_hours")]
    if la:
        ax.scatter([r["published_gpu_hours"] for r in la], [r["llm_analysis_eff1_gpu_hours"] for r in la], marker="x", color="tab:red",
                   zorder=3, label="llm-analysis (efficiency 1.0)")
        ax.scatter([r["published_gpu_hours"] for r in la], [r["llm_analysis_our_mfu_gpu_hours"] for r in la], marker="+", s=70,
                   color="tab:orange", zorder=3, label="llm-analysis (our MFU)")
    for r in rows:
        ax.annotate(r["id"].split("-gpu")[0].split("-pretrain")[0], (r["published_gpu_hours"], r["ours_gpu_hours"]), fontsize=6,
                    xytext=(4, -3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo / 2, hi * 2)
    ax.set_xlabel("published training cost (GPU-hours)")
    ax.set_ylabel("predicted (GPU-hours)")
    ax.set_title("Training cost: predicted vs published runs")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, which="both", alpha=0.2)
    return _save(fig, path)


def retrieval(groups: dict[str, dict[str, Any]], modes: tuple[str, ...], path: Path) -> Path:
    """recall@5 and MRR by language group, one bar per mode."""
    names = [g for g in groups if g != "all"] + (["all"] if "all" in groups else [])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    width = 0.8 / len(modes)
    for ax, metric in zip(axes, ("recall@5", "mrr")):
        for i, mode in enumerate(modes):
            values = [groups[g][mode][metric] for g in names]
            bars = ax.bar([x + i * width for x in range(len(names))], values, width, label=mode)
            ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
        ax.set_xticks([x + width * (len(modes) - 1) / 2 for x in range(len(names))],
                      [f"{g}\n(n={groups[g]['n']})" for g in names])
        ax.set_ylim(0, 1.08)
        ax.set_title(metric)
        ax.grid(True, axis="y", alpha=0.2)
    axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle("Retrieval by language group: dense / BM25 / hybrid")
    return _save(fig, path)


def intents(per_intent: dict[str, dict[str, float]], path: Path, title: str = "Intent accuracy by labelled intent") -> Path:
    names = sorted(per_intent, key=lambda k: per_intent[k]["accuracy"])
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(names) + 1.4))
    bars = ax.barh(names, [per_intent[k]["accuracy"] for k in names], color="tab:purple")
    ax.bar_label(bars, labels=[f"{per_intent[k]['accuracy']:.2f} (n={per_intent[k]['n']})" for k in names], fontsize=7, padding=2)
    ax.set_xlim(0, 1.18)
    ax.set_xlabel("accuracy")
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.2)
    return _save(fig, path)


def latency(stages: dict[str, list[float]], total: list[float], path: Path) -> Path:
    """One histogram per stage and one of the whole turn (milliseconds)."""
    panels = [(f"{name} (n={len(values)})", values) for name, values in stages.items()] + [(f"whole turn (n={len(total)})", total)]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.2))
    for ax, (name, values) in zip(axes, panels):
        ax.hist(values or [0.0], bins=30, color="tab:gray")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("ms")
    axes[0].set_ylabel("turns")
    fig.suptitle("Latency per pipeline stage (no LLM)")
    return _save(fig, path)
