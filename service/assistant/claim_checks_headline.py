"""Claims built on a vendor's headline figure: a TFLOPS number or a per-node network rate.

- `peak_figure(ctx)`: "the 4090 has 660 TFLOPS, so it is as good as an A100 for training". The figure is matched to
  the catalog field it comes from (sparse FP8, dense INT8, ...); training speed follows dense BF16, and what decides
  training parity beyond compute is memory, memory bandwidth and the GPU-to-GPU link.
- `node_network(ctx)`: "3.2 Tbps of networking per node". The figure is the sum of the node's NICs: per GPU it is
  figure ÷ GPUs per node, compared with the inter-node fabrics of the interconnect tool and the catalog instances that
  advertise the same figure; the nccl-expected tool gives the bus bandwidth to verify it with.

Both return a claim_checks.Finding; sentences are in the message catalog (claim.peak_*, claim.node_*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import num
from service.assistant.messages import say
from service.sizing.interconnect import INTER_FABRICS
from service.sizing.defaults import DEFAULT_GPU

TFLOPS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:t(?:flops?|ops)\b|万亿次)", re.I)
NODE_RATE = re.compile(r"(\d+(?:\.\d+)?)\s*(t|g)\s*(?:bps|b/s|bit/s|bits?\b|b\b|(?=\s*(?:的)?\s*(?:网络|带宽|网卡|network|bandwidth)))", re.I)
# Catalog fields a headline figure can come from, the most inflated first (a vendor quotes the biggest number).
PEAK_FIELDS = (
    ("sparse_fp8_tflops", "fp8", True),
    ("sparse_fp16_tflops", "fp16", True),
    ("int8_dense_tops", "int8", False),
    ("fp8_dense_tflops", "fp8", False),
    ("bf16_dense_tflops", "bf16", False),
    ("fp16_dense_tflops", "fp16", False),
    ("tf32_dense_tflops", "tf32", False),
    ("fp32_tflops", "fp32", False),
)
MATCH_WITHIN = 0.05  # a quoted figure rounds the data sheet's ("660 TFLOPS" for 660.6)
STANDARD_GBIT_PER_GPU = 400  # one 400 Gb/s NIC per GPU: InfiniBand NDR / 400G RoCE / EFA on 8-GPU H100 and H200 nodes
GPUS_PER_NODE = 8


def claimed_tflops(text: str) -> float | None:
    match = TFLOPS.search(text)
    return float(match.group(1).replace(",", "")) if match else None


def node_gbit(text: str) -> tuple[float, str] | None:
    """The per-node rate in Gb/s ("3.2 Tbps" -> 3200) and as written ("3.2 Tb/s"), when one is written."""
    match = NODE_RATE.search(text)
    if not match:
        return None
    unit = match.group(2).upper()
    return float(match.group(1)) * (1000 if unit == "T" else 1), f"{match.group(1)} {unit}b/s"


def _source(spec, figure: float) -> tuple[str, str, bool] | None:
    """(field, precision, sparse) of the data-sheet figure the claimed number is, or None."""
    for name, precision, sparse in PEAK_FIELDS:
        value = getattr(spec, name)
        if value and abs(value - figure) <= MATCH_WITHIN * value:
            return name, precision, sparse
    return None


def peak_figure(ctx):
    from service.assistant.claim_checks import Finding, _gpus

    lang, catalog = ctx.lang, ctx.catalog
    figure = claimed_tflops(ctx.text)
    specs = [catalog.gpus[g] for g in _gpus(ctx.slots)]
    spec = next((g for g in specs if _source(g, figure)), specs[0])
    other = next((g for g in specs if g.id != spec.id), None)
    source = _source(spec, figure)
    prec = "bf16" if spec.bf16_dense_tflops and (other is None or other.bf16_dense_tflops) else "fp16"
    dense = spec.dense_tflops(prec)
    label = say(f"claim.peak_label.{'sparse' if source and source[2] else 'dense'}", lang, precision=source[1].upper()) if source else ""
    what = (
        say("claim.peak_is", lang, gpu=spec.name, figure=num(figure, 4), label=label)
        if source
        else say("claim.peak_unknown", lang, gpu=spec.name, figure=num(figure, 4))
    )
    output = {"source_field": source[0] if source else None, "dense_tflops": dense}
    points = []
    if other is None:
        verdict = "true" if source and source[0] in ("bf16_dense_tflops", "fp16_dense_tflops") else "partly_true"
        lead_tail = say("claim.peak_dense", lang, gpu=spec.name, precision=prec.upper(), dense=num(dense, 4))
    else:
        other_dense = other.dense_tflops(prec)
        ratio = other_dense / dense
        # Parity in training fails on compute alone when the dense rate is far apart; with enough compute, memory and
        # the link still make it true only for jobs that fit one card.
        verdict = "false" if ratio >= 1.2 else "partly_true"
        output |= {"other": other.id, "other_dense_tflops": other_dense, "dense_ratio": ratio}
        lead_tail = say(
            "claim.peak_compare",
            lang,
            gpu=spec.name,
            other=other.name,
            precision=prec.upper(),
            dense=num(dense, 4),
            other_dense=num(other_dense, 4),
            ratio=num(max(ratio, 1 / ratio)),
        )
        points += _limits(ctx, spec, other)
    ctx.record("claim-check", {"gpu": spec.id, "claimed_tflops": figure}, output | {"verdict": verdict})
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + what + ("" if lang == "zh" else " ") + lead_tail
    return Finding("peak", verdict, lead, points, topics=["gpu-selection", "hardware"])


def _limits(ctx, spec, other) -> list[str]:
    """Memory, memory bandwidth and the GPU-to-GPU link: what decides training beyond the compute rate."""
    lang, catalog = ctx.lang, ctx.catalog
    family = other.id.split("-")[0]
    sizes = sorted({g.memory_gb for g in catalog.gpus.values() if g.id.split("-")[0] == family})
    # The catalog figures quoted below, recorded so each number in the answer is traceable.
    ctx.record(
        "gpu-figures",
        {"gpus": [spec.id, other.id]},
        {
            "memory_gb": [spec.memory_gb, *sizes],
            "memory_bandwidth_gbps": [spec.memory_bandwidth_gbps, other.memory_bandwidth_gbps],
            "pcie_gen": spec.pcie_gen,
            "pcie_gbps_per_direction": spec.pcie_gbps_per_direction,
            "link_gbps_bidir": other.scale_up.bandwidth_gbps_bidir if other.scale_up else None,
        },
    )
    points = [
        say(
            "claim.peak_memory",
            lang,
            gpu=spec.name,
            other=other.name,
            mem=num(spec.memory_gb),
            other_mem="/".join(num(m) for m in sizes),
            bw=num(spec.memory_bandwidth_gbps),
            other_bw=num(other.memory_bandwidth_gbps),
        )
    ]
    if spec.scale_up is None and other.scale_up is not None:
        points.append(
            say(
                "claim.peak_link",
                lang,
                gpu=spec.name,
                other=other.name,
                pcie=spec.pcie_gen,
                pcie_bw=num(spec.pcie_gbps_per_direction),
                link=other.scale_up.name.split(" (")[0] if lang == "zh" else other.scale_up.name,  # no English gloss in zh
                link_bw=num(other.scale_up.bandwidth_gbps_bidir),
            )
        )
    points.append(say("claim.peak_workloads", lang, gpu=spec.name, other=other.name, mem=num(spec.memory_gb)))
    return points


def node_network(ctx):
    from service.assistant.claim_checks import Finding

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    total, written = node_gbit(ctx.text)
    per_node = s.gpus if s.gpus and s.gpus <= 16 else GPUS_PER_NODE
    per_gpu = total / per_node
    gpu = s.gpu or DEFAULT_GPU
    ndr = INTER_FABRICS["infiniband-ndr"]
    same = [i for i in catalog.instances.values() if i.network_gbps == total and i.gpu_count == per_node]
    expected = ctx.run(
        "nccl-expected", {"gpu": gpu, "gpus": 2 * per_node, "gpus_per_node": per_node, "inter_fabric": "infiniband-ndr", "nic_gbps_per_gpu": per_gpu}
    )
    verdict = "true" if per_gpu >= STANDARD_GBIT_PER_GPU else "partly_true"
    ctx.record(
        "claim-check",
        {"node_gbit": total, "gpus_per_node": per_node},
        {
            "gbit_per_gpu": per_gpu,
            "gbyte_per_gpu": per_gpu / 8,
            "standard_gbit_per_gpu": STANDARD_GBIT_PER_GPU,
            "same_as": [i.name for i in same],
            "verdict": verdict,
        },
    )
    values = {
        "claimed": written,
        "total": num(total),
        "nodes_gpus": per_node,
        "per_gpu": num(per_gpu),
        "per_gpu_gb": num(per_gpu / 8),
        "fabric": ndr.name,
        "fabric_gb": num(ndr.gbps_per_direction),
        "low": num(expected.expected_busbw_gbps.low),
        "high": num(expected.expected_busbw_gbps.high),
        "gpu": catalog.gpus[gpu].name,
    }
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say("claim.node_lead", lang, **values)
    points = [say("claim.node_standard" if verdict == "true" else "claim.node_below", lang, **values)]
    if same:
        names = ("、" if lang == "zh" else ", ").join(
            f"{i.provider.upper()} {i.name} ({i.gpu_count} × {catalog.gpus[i.gpu].name}, {i.rdma.upper()})" for i in same[:3]
        )
        points.append(say("claim.node_same_as", lang, total=num(total), instances=names))
    points += [say("claim.node_verify", lang, **values), say("claim.node_checks", lang)]
    notes = [] if s.gpus and s.gpus <= 16 else [say("claim.node_assumed", lang, gpus=per_node)]
    return Finding("node_network", verdict, lead, points, notes, results=[expected], topics=["networking"])
