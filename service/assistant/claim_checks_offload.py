""""With ZeRO-3 offload one 4090 can full fine-tune a 70B": feasible in memory, impractical in time.

Offloading (ZeRO-Offload / ZeRO-Infinity) moves the model states off the GPU, so GPU memory stops being the limit;
three other things take its place, each from a tool or the catalog:
- host memory: all model states (16 bytes per parameter with AdamW, the training-memory tool) must sit in CPU RAM or
  on NVMe: about 1.1 TB for a 70B model;
- PCIe: every micro-step streams the 16-bit weights in for the forward and again for the backward pass and the 16-bit
  gradients out, 6 bytes per parameter over the card's PCIe link (catalog), on top of the compute;
- compute: 6·N·D for a small fine-tuning set on that card (the training-time tool).
The way out is what a practitioner would do instead: QLoRA on one 48 or 80 GB card, or full fine-tuning sharded over
enough 80 GB GPUs (training-memory tool). Sentences are in the message catalog (claims_expert.offload_*).
"""

from __future__ import annotations

from service.assistant.compose.fmt import duration, model_label, num
from service.assistant.messages import say

BYTES_STREAMED_PER_PARAM = 6  # 16-bit weights in for forward (2) and backward (2), 16-bit gradients out (2), per micro-step
SAMPLES, SEQ_LEN = 10_000, 2048  # "a small fine-tuning set" when the user gave none (stated in the answer)
QLORA_CARDS = ("l40s", "h100-sxm")  # one 48 GB card, one 80 GB card
SHARDED_GPU, SHARDED_COUNTS = "h100-sxm", (8, 16, 32, 64)  # full fine-tuning with ZeRO-3 over whole 8-GPU nodes: the fewest that hold it
GB = 2**30 / 1e9


def is_offload_claim(text: str, slots) -> bool:
    """Full training of a named model on named GPUs, made to fit by offloading the model states to CPU or NVMe."""
    from service.assistant.claim_checks import cue

    return (cue("offload", text) and bool(slots.model or slots.params_b) and bool(slots.gpu)
            and slots.task != "inference" and slots.method in (None, "full"))


def offload_claim(ctx):
    from service.assistant.claim_checks import Finding

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    gpu = catalog.gpus[s.gpu]
    gpus = s.gpus if s.gpus and s.gpus <= 8 else 1
    model = {"model": s.model, "params_b": None if s.model else s.params_b}
    states = ctx.run("training-memory", {**model, "method": "full", "gpu": gpu.id, "gpus": gpus, "sharding": "zero3" if gpus > 1 else "none"})
    params = states.params_b * 1e9
    host_gb = states.model_states_total_gib * GB
    weights_gb = params * 2 / 1e9
    streamed_gb = BYTES_STREAMED_PER_PARAM * params / gpus / 1e9  # each GPU streams its shard over its own link
    transfer_s = streamed_gb / gpu.pcie_gbps_per_direction
    tokens = s.tokens or SAMPLES * SEQ_LEN
    notes = [] if s.tokens else [say("claims_expert.offload_assumed", lang, samples=f"{SAMPLES:,}", seq_len=f"{SEQ_LEN:,}", tokens=f"{tokens:,}")]
    compute = ctx.run("training-time", {**model, "tokens": tokens, "seq_len": SEQ_LEN, "gpu": gpu.id, "gpus": gpus})
    steps = tokens / (SEQ_LEN * gpus)  # micro-batch 1 per GPU: the weights stream once per micro-step
    pcie_hours = steps * transfer_s / 3600
    total_hours = compute.hours.typical + pcie_hours
    ctx.record("offload-estimate", {"params": params, "gpu": gpu.id, "gpus": gpus, "pcie_gbps_per_direction": gpu.pcie_gbps_per_direction,
                                    "bytes_streamed_per_param": BYTES_STREAMED_PER_PARAM, "tokens": tokens, "seq_len": SEQ_LEN},
               {"bytes_per_param": states.bytes_per_param, "model_states_gb": host_gb, "model_states_tb": host_gb / 1000,
                "weights_16bit_gb": weights_gb, "gpu_memory_gb": gpu.memory_gb * gpus, "streamed_gb_per_step": streamed_gb,
                "pcie_seconds_per_step": transfer_s, "steps": steps, "pcie_hours": pcie_hours, "pcie_days": pcie_hours / 24,
                "compute_hours": compute.hours.typical, "total_hours": total_hours, "total_days": total_hours / 24,
                "verdict": "impractical"})
    name = model_label(catalog, s.model, states.params_b)
    values = {"model": name, "gpus": gpus, "gpu": gpu.name, "mem": num(gpu.memory_gb * gpus), "bpp": num(states.bytes_per_param),
              "host": num(host_gb), "host_tb": num(host_gb / 1000), "weights": num(weights_gb)}
    lead = say("claim.lead", lang, verdict=say("claims_expert.verdict_impractical", lang)) + " " + say("claims_expert.offload_lead", lang, **values)
    points = [
        say("claims_expert.offload_host", lang, **values),
        say("claims_expert.offload_pcie", lang, **values, streamed=num(streamed_gb), gen=gpu.pcie_gen, pcie=num(gpu.pcie_gbps_per_direction),
            transfer=num(transfer_s)),
        say("claims_expert.offload_time", lang, tokens=f"{tokens:,}", compute=duration(compute.hours.typical, lang), pcie=duration(pcie_hours, lang),
            total=duration(total_hours, lang), gpus=gpus, gpu=gpu.name),
        *_alternatives(ctx, model),
    ]
    return Finding("offload", "impractical", lead, points, notes, results=[states, compute], topics=["claims", "memory", "peft"])


def _alternatives(ctx, model: dict) -> list[str]:
    lang, catalog = ctx.lang, ctx.catalog
    word = {k: say(f"claim.fit.{k}", lang) for k in ("fits", "tight", "does_not_fit")}
    rows = []
    for gpu_id in QLORA_CARDS:
        qlora, _ = ctx.try_run("training-memory", {**model, "method": "qlora", "gpu": gpu_id})
        if qlora is not None:
            rows.append(say("claims_expert.offload_qlora_row", lang, gpu=catalog.gpus[gpu_id].name, total=num(qlora.per_gpu.total_gib), fit=word[qlora.fit]))
    sharded = None
    for count in SHARDED_COUNTS:
        sharded, _ = ctx.try_run("training-memory", {**model, "method": "full", "gpu": SHARDED_GPU, "gpus": count, "sharding": "zero3"})
        if sharded is not None and sharded.fit != "does_not_fit":
            break
    points = [say("claims_expert.offload_qlora", lang, rows=("；" if lang == "zh" else "; ").join(rows))] if rows else []
    if sharded is not None:
        points.append(say("claims_expert.offload_sharded", lang, gpus=sharded.gpus, gpu=catalog.gpus[SHARDED_GPU].name,
                          total=num(sharded.per_gpu.total_gib), fit=word[sharded.fit]))
    return points
