""""95% scaling efficiency to 1,000+ GPUs over plain Ethernet / RoCE": what such a figure depends on, estimated.

Data-parallel efficiency without overlap is compute ÷ (compute + all-reduce): the allreduce tool gives one gradient
all-reduce of the model (16-bit gradients) across the GPUs over the fabric named, the training-time tool the compute of
one optimizer step at a global batch. The figure moves with the global batch (tokens per GPU per step), the model
size (gradient bytes), how much of the all-reduce overlaps the backward pass, and the network (RDMA or TCP, one NIC per
GPU or one per node, rail-optimised). Estimated for the model named (else a 7B and a 70B) at two global batches, on
the fabric claimed and on InfiniBand NDR; 95% without overlap needs communication ≤ 5.3% of compute.
Sentences are in the message catalog (claims_expert.eff_*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import big, link_name, model_label, num, pct
from service.assistant.messages import say
from service.sizing.defaults import DEFAULT_GPU

EFFICIENCY = re.compile(r"(\d{2,3}(?:\.\d+)?)\s*(?:%|％|percent)", re.I)
COUNT = re.compile(r"(\d{1,3}(?:,\d{3})+|\d{2,6})\s*(?:\+|多|余|several)?\s*(?:张|块|个|台)?\s*(?:gpus?|cards?|卡|accelerators?|nodes?|节点|台)", re.I)
THOUSANDS_ZH = re.compile(r"(上|近|数|几)?([一二两三四五六七八九十])?千\s*(?:多|余)?\s*(?:张|块|个)?\s*(?:卡|gpu)", re.I)
CN = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
DEFAULT_GPUS = 1024
REFERENCE_PARAMS_B = (7, 70)
GLOBAL_TOKENS = (1024 * 1024, 4 * 1024 * 1024)  # 1M and 4M tokens per optimizer step (Llama 2/3 used 4M)
SEQ_LEN = 4096


def claimed_efficiency(text: str) -> float | None:
    match = EFFICIENCY.search(text)
    value = float(match.group(1)) / 100 if match else None
    return value if value is not None and 0.5 <= value <= 1.0 else None


def is_efficiency_claim(text: str, slots) -> bool:
    """A scaling-efficiency percentage at a scale: "95% scaling efficiency on 1,000 GPUs", "扩展效率 95%"."""
    from service.assistant.claim_checks import cue

    return cue("scaling_efficiency", text) and claimed_efficiency(text) is not None


NODE_COUNT = re.compile(r"(\d{1,5})\s*(?:nodes?|节点|台)", re.I)
GPU_WORD = re.compile(r"gpus?|卡", re.I)


def _count(text: str, slots) -> int:
    nodes = NODE_COUNT.search(text)
    if nodes and not GPU_WORD.search(text[nodes.end():nodes.end() + 3]):
        return int(nodes.group(1)) * 8
    match = COUNT.search(text)
    if match:
        return int(match.group(1).replace(",", ""))
    zh = THOUSANDS_ZH.search(text)
    if zh:
        return 1000 * CN.get(zh.group(2) or "", 1)
    return slots.gpus or (slots.nodes * 8 if slots.nodes else DEFAULT_GPUS)


def efficiency_claim(ctx):
    from service.assistant.claim_checks import Finding, _fabric

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    claimed = claimed_efficiency(ctx.text)
    gpus = max(_count(ctx.text, s), 16)
    gpu = catalog.gpus[s.gpu or DEFAULT_GPU]
    fabric, per_node_gbit = _fabric(ctx.text)
    notes = [say("claims_expert.eff_assumed", lang, gpu=gpu.name, seq_len=f"{SEQ_LEN:,}")] if not s.gpu else []
    models = [{"model": s.model, "params_b": None if s.model else s.params_b}] if s.model or s.params_b else [{"params_b": p} for p in REFERENCE_PARAMS_B]
    nic = {"nic_gbps_per_gpu": per_node_gbit / 8} if per_node_gbit else {}
    rows, output, results = [], {"gpus": gpus, "claimed_efficiency": claimed, "comm_share_allowed": 1 / claimed - 1}, []
    for model in models:
        comm = ctx.run("allreduce", {**model, "gpu": gpu.id, "gpus": gpus, "gpus_per_node": 8, "inter_fabric": fabric, **nic})
        ib = ctx.run("allreduce", {**model, "gpu": gpu.id, "gpus": gpus, "gpus_per_node": 8, "inter_fabric": "infiniband-ndr"})
        results.append(comm)
        for tokens in GLOBAL_TOKENS:
            step = ctx.run("training-time", {**model, "tokens": tokens, "seq_len": SEQ_LEN, "gpu": gpu.id, "gpus": gpus})
            compute_s, comm_s, ib_s = step.hours.typical * 3600, comm.total_ms / 1000, ib.total_ms / 1000
            eff, eff_ib = compute_s / (compute_s + comm_s), compute_s / (compute_s + ib_s)
            label = model_label(catalog, step.model, step.params_b)
            rows.append((label, tokens, compute_s, comm_s, eff, eff_ib, comm.fabric, ib.fabric))
            output[f"{label} @ {tokens}"] = {"compute_s": compute_s, "allreduce_s": comm_s, "efficiency_no_overlap": eff,
                                             "ndr_allreduce_s": ib_s, "ndr_efficiency_no_overlap": eff_ib, "tokens_per_gpu": tokens / gpus,
                                             "overlap_hides_all": comm_s <= compute_s}
    best = max(r[4] for r in rows)
    hideable = any(r[3] <= r[2] for r in rows)
    # Reached without overlap: plausible; only if the all-reduce hides behind compute: it depends (partly true); else overstated.
    verdict = "plausible" if best >= claimed else "partly_true" if hideable else "optimistic"
    output["verdict"] = verdict
    ctx.record("claim-check", {"gpu": gpu.id, "gpus": gpus, "inter_fabric": fabric, "seq_len": SEQ_LEN}, output)
    values = {"claimed": pct(claimed), "gpus": f"{gpus:,}", "gpu": gpu.name, "fabric": link_name(rows[0][6], lang), "allowed": pct(1 / claimed - 1)}
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say("claims_expert.eff_lead", lang, **values)
    points = [say("claims_expert.eff_row" if f != ib_name else "claims_expert.eff_row_ib", lang, model=m, tokens=big(t, lang), per_gpu=num(t / gpus),
                  compute=num(c * 1000), comm=num(a * 1000), eff=pct(e), fabric=link_name(f, lang), ib=ib_name, eff_ib=pct(e_ib))
              for m, t, c, a, e, e_ib, f, ib_name in rows]
    points += [say("claims_expert.eff_depends", lang, **values), say("claims_expert.eff_network", lang, **values), say("claims_expert.eff_ask", lang)]
    return Finding("efficiency", verdict, lead, points, notes, results=results[:1], topics=["claims", "networking", "parallelism"],
                   query=say("claims_extra.scaling_query", lang))
