"""Claims about a measured efficiency: an all-reduce bus bandwidth ("our 8 × H100 node hits 900 GB/s all-reduce") and
a training MFU ("80% MFU on our cluster").

- busbw: nccl-tests' busbw is compared with the per-direction link bandwidth (NVLink's data-sheet figure adds both
  directions: 900 GB/s on H100 is 450 per direction), so a busbw above the per-direction figure is impossible; the
  nccl-expected tool gives the figure a healthy node measures.
- mfu: the best published MFU at scale and the training-time tool's band, with what to ask whoever quotes the figure.
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import num, pct
from service.assistant.messages import say
from service.sizing import references as ref
from service.sizing.compute import MFU_CEILING
from service.sizing.defaults import DEFAULT_GPU

BUSBW = re.compile(r"(\d+(?:\.\d+)?)\s*(?:GB/s|GB每秒|GBps|G/s)", re.I)  # bytes, not the Gb/s of a NIC
ALLREDUCE = re.compile(r"all[- ]?reduce|busbw|bus ?bandwidth|nccl|总线带宽|集合通信", re.I)
MFU = re.compile(
    r"(?:mfu|算力利用率|模型算力利用率|flops utili[sz]ation)\D{0,12}?(\d{1,3}(?:\.\d+)?)\s*%|"
    r"(\d{1,3}(?:\.\d+)?)\s*%\s*(?:的)?\s*(?:mfu|算力利用率|模型算力利用率|model flops utili[sz]ation)",
    re.I,
)
# Published MFU of well-tuned large runs, each with its source (shown to the user with the citation).
PUBLISHED_MFU = (("Llama 3 405B (H100)", "38%–43%", ref.LLAMA3), ("PaLM 540B (TPU v4)", "46.2%", ref.PALM), ("MegaScale 175B (A100)", "55.2%", ref.MEGASCALE))


def claimed_busbw(text: str) -> float | None:
    found = BUSBW.search(text)
    return float(found.group(1)) if found and ALLREDUCE.search(text) else None


def claimed_mfu(text: str) -> float | None:
    found = MFU.search(text)
    if not found:
        return None
    value = float(found.group(1) or found.group(2)) / 100
    return value if 0 < value <= 1 else None


def busbw_claim(ctx):
    from service.assistant.claim_checks import Finding

    s, lang = ctx.slots, ctx.lang
    claimed = claimed_busbw(ctx.text)
    gpu_id = s.gpu or DEFAULT_GPU
    gpus = max(s.gpus or 8, 2)
    result, _ = ctx.try_run("nccl-expected", {"gpu": gpu_id, "gpus": gpus, "gpus_per_node": min(gpus, 8), "measured_busbw_gbps": claimed})
    if result is None or claimed is None:
        return None
    gpu = ctx.catalog.gpus[gpu_id]
    link = result.link_gbps_per_direction
    band = result.expected_busbw_gbps
    verdict = "not_credible" if claimed > link else "optimistic" if claimed > band.high else "plausible"
    bidir = gpu.scale_up.bandwidth_gbps_bidir if gpu.scale_up else link * 2
    ctx.record(
        "claim-check",
        {"claimed_busbw_gbps": claimed, "gpu": gpu_id, "gpus": gpus},
        {
            "link_gbps_bidirectional": bidir,
            "link_gbps_per_direction": link,
            "expected_busbw_gbps": band.typical,
            "expected_high_gbps": band.high,
            "claimed_over_expected": claimed / band.typical,
            "verdict": verdict,
        },
    )
    values = {
        "claimed": num(claimed),
        "gpus": gpus,
        "gpu": gpu.name,
        "fabric": result.fabric,
        "bidir": num(bidir),
        "link": num(link),
        "typical": num(band.typical),
        "low": num(band.low),
        "high": num(band.high),
        "ratio": num(claimed / band.typical),
    }
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say("expert_s.busbw_lead", lang, **values)
    points = [say("expert_s.busbw_why", lang, **values), say("expert_s.busbw_expected", lang, **values), say("expert_s.busbw_ask", lang, **values)]
    # The tool's own headline would judge the claim as a measurement ("healthy"); its figures are in the points above.
    return Finding("busbw", verdict, lead, points, topics=["networking", "preflight"])


def mfu_claim(ctx):
    from service.assistant.claim_checks import Finding

    s, lang = ctx.slots, ctx.lang
    claimed = claimed_mfu(ctx.text)
    if claimed is None:
        return None
    results = []
    band_text = ""
    if s.model or s.params_b:
        timing, _ = ctx.try_run(
            "training-time",
            {"model": s.model, "params_b": None if s.model else s.params_b, "tokens": s.tokens or 1e12, "gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8},
        )
        if timing is not None:
            results.append(timing)
            band_text = say("expert_s.mfu_band", lang, low=pct(timing.mfu.low), typical=pct(timing.mfu.typical), high=pct(timing.mfu.high))
    verdict = "not_credible" if claimed > MFU_CEILING else "optimistic" if claimed > 0.45 else "plausible"
    published = "；".join if lang == "zh" else "; ".join
    runs = published(
        f"{name} {figure}（[{c.title}]({c.url})）" if lang == "zh" else f"{name} {figure} ([{c.title}]({c.url}))" for name, figure, c in PUBLISHED_MFU
    )
    ctx.record(
        "claim-check",
        {"claimed_mfu": claimed},
        {"best_published_mfu": MFU_CEILING, "verdict": verdict, "published": [f"{name} {figure} ({c.title})" for name, figure, c in PUBLISHED_MFU]},
    )
    values = {"claimed": pct(claimed), "ceiling": pct(MFU_CEILING), "runs": runs}
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang))
        + " "
        + say("expert_s.mfu_lead_high" if verdict != "plausible" else "expert_s.mfu_lead_ok", lang, **values)
    )
    points = [
        say("expert_s.mfu_published", lang, **values),
        *([band_text] if band_text else []),
        say("expert_s.mfu_why", lang, **values),
        say("expert_s.mfu_ask", lang),
    ]
    return Finding("mfu", verdict, lead, points, results=results, topics=["utilization", "claims"])
