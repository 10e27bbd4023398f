"""Two GPUs the user measured as about equally fast ("our H100 takes as long as the A100", "A100 推理速度和 3090 差不多，为什么"):
why, from the two cards' data sheets, not a purchase verdict and not a verdict on a vendor's claim.

Generation at small batch reads every weight once per token, so it follows memory bandwidth, not compute; training and
large-batch prefill follow dense tensor compute; plain FP32 work (no tensor cores) follows the CUDA-core FP32 rate. The
answer names the regime the question is in, the ratio the data sheets allow for it (catalog figures, recorded as one
lookup), and what to check when even that ratio is missing: the card's variant (an H100 PCIe has less bandwidth than an
H100 SXM), whether the run is bound by overheads rather than the GPU, and whether the software uses the newer card's
kernels. Cue words are data (observed_speed_cues.yaml); sentences are in the message catalog (observed.*).
"""

from __future__ import annotations

from service.assistant import cues
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import BulletsBlock, LeadBlock

CUES = "observed_speed_cues.yaml"
SAME_BANDWIDTH = 1.2  # bandwidths closer than this: equal decode speed is what the data sheets predict


def applies(ctx: Context) -> bool:
    ids = list(dict.fromkeys(ctx.slots.compare_gpus or []))
    text = ctx.text
    return len(ids) >= 2 and cues.matches(CUES, "measured", text) and cues.matches(CUES, "parity", text) and not cues.matches(CUES, "hearsay", text)


def _figures(ctx: Context, gpu_id: str) -> dict:
    g = ctx.catalog.gpus[gpu_id]
    return {"gpu": g.id, "name": g.name, "memory_bandwidth_gbps": g.memory_bandwidth_gbps, "bf16_dense_tflops": g.bf16_dense_tflops or g.fp16_dense_tflops,
            "fp32_tflops": g.fp32_tflops, "form_factor": g.form_factor}


def _variants(ctx: Context, gpu_id: str, slow_bandwidth: float) -> list:
    """Other forms of the faster card (H100 SXM / PCIe) whose bandwidth is about the slower card's: the card one may really have."""
    g = ctx.catalog.gpus[gpu_id]
    family = g.name.split()[1] if len(g.name.split()) > 1 else g.name
    return [o for o in ctx.catalog.gpus.values() if o.id != g.id and o.architecture == g.architecture and family in o.name.split()
            and o.form_factor != g.form_factor and o.memory_bandwidth_gbps < g.memory_bandwidth_gbps
            and o.memory_bandwidth_gbps < SAME_BANDWIDTH * slow_bandwidth]


def answer(ctx: Context) -> Draft | None:
    if not applies(ctx):
        return None
    lang = ctx.lang
    ids = list(dict.fromkeys(ctx.slots.compare_gpus))[:2]
    a, b = (_figures(ctx, i) for i in ids)
    fast, slow = (a, b) if a["bf16_dense_tflops"] >= b["bf16_dense_tflops"] else (b, a)
    bw = round(fast["memory_bandwidth_gbps"] / slow["memory_bandwidth_gbps"], 2)
    compute = round(fast["bf16_dense_tflops"] / slow["bf16_dense_tflops"], 2)
    variants = _variants(ctx, fast["gpu"], slow["memory_bandwidth_gbps"])
    ctx.record("catalog-lookup", {"gpus": ids}, {"specs": [a, b], "bandwidth_ratio": bw, "compute_ratio": compute,
                                                  "variants": [{"name": v.name, "memory_bandwidth_gbps": v.memory_bandwidth_gbps} for v in variants]})
    values = {"fast": fast["name"], "slow": slow["name"], "fast_bw": num(fast["memory_bandwidth_gbps"]), "slow_bw": num(slow["memory_bandwidth_gbps"]),
              "bw": num(bw), "compute": num(compute), "fast_tf": num(fast["bf16_dense_tflops"]), "slow_tf": num(slow["bf16_dense_tflops"])}
    serving = ctx.slots.task == "inference" or cues.matches(CUES, "serving", ctx.text)
    points: list[str] = []
    if serving:
        lead = say("observed.serving_equal" if bw < SAME_BANDWIDTH else "observed.serving_bandwidth", lang, **values)
        for v in variants[:1]:
            points.append(say("observed.variant", lang, fast=fast["name"], variant=v.name, variant_bw=num(v.memory_bandwidth_gbps), slow_bw=values["slow_bw"]))
        points.append(say("observed.overhead", lang))
        points.append(say("observed.batch", lang, **values))
        points.append(say("observed.kernels", lang, fast=fast["name"]))
    else:
        lead = say("observed.training", lang, **values)
        points.append(say("observed.training_checks", lang))
    if fast["fp32_tflops"] and slow["fp32_tflops"]:
        key = "observed.fp32_reversed" if slow["fp32_tflops"] > fast["fp32_tflops"] else "observed.fp32"
        points.append(say(key, lang, fast=fast["name"], slow=slow["name"], fast_fp32=num(fast["fp32_tflops"]), slow_fp32=num(slow["fp32_tflops"])))
    return Draft(blocks=[LeadBlock(text=lead), BulletsBlock(items=points[:5])], show_sources=False,
                 follow_ups=[say("observed.follow", lang)])
