"""Spec answers: a hardware fact read from the catalog entry, cited to the GPU's spec card.

"H100 SXM 显存带宽多少" and "how fast is the HBM on an H100" need no model and no tool: the
catalog has the figure with its source. A question about two GPUs or two variants ("TDP of X vs Y",
"A100 40GB vs 80GB bandwidth") gets each entry side by side, each cited to its own spec card.
Questions naming no GPU fall back to the FAQ.
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import link_name, num
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import faq
from service.assistant.messages import say
from service.assistant.spec_facts import asked_attributes, export_pair, facts
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.retrieval.cards import gpu_card_id
from service.sizing.cost import BreakEvenRequest
from service.sizing.references import DGX_H100

MAX_GPUS = 3
# "8卡服务器整机功耗", "how much does a DGX box draw": a whole server's power, not one card's TDP.
SERVER = re.compile(r"整机|服务器|一台|机柜|机房|server|node|box|chassis|\bdgx|\bhgx|rack|colo", re.I)
NODE_GPUS = 8
# Words that ask about the PCIe link itself, not about the PCIe variant of a card.
PCIE_LINK = re.compile(r"gen\s*\d|bandwidth|带宽|lanes?|速度|速率|speed|x16|link", re.I)
DGX_H100_MAX_KW = 10.2  # the datasheet's maximum system power, the basis of the break-even tool's server factor
DGX_H100_GPU = "h100-sxm"  # the datasheet's eight GPUs, whose TDP the catalog holds
# "8 张", "eight cards", "8x", "8 GPUs": a per-server count may sit apart from the card's name ("4090 一张卡多少瓦？想塞 8 张").
CARD_COUNT = re.compile(r"(\d{1,2})\s*(?:张|块|卡|x\b|×|cards?\b|gpus?\b)", re.I)


FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def spec(ctx: Context) -> Draft:
    s = ctx.slots
    gpu_ids = list(dict.fromkeys([*([s.gpu] if s.gpu else []), *(s.compare_gpus or [])]))[:MAX_GPUS]
    if not gpu_ids:
        return faq(ctx)
    attributes = asked_attributes(ctx.text)
    if ctx.understanding.context and attributes == ["pcie"] and not PCIE_LINK.search(ctx.text):
        # "and the PCIe version?" after "H100 SXM memory bandwidth?": the same figure for the sibling, not its host link
        attributes = asked_attributes(ctx.understanding.context)
    lang = ctx.lang
    sep = "；" if lang == "zh" else "; "
    leads, rows = [], []
    for gpu_id in gpu_ids:
        gpu = ctx.catalog.gpus[gpu_id]
        found = facts(gpu, attributes, lang)
        leads.append(say("spec.lead", lang, gpu=gpu.name, facts=sep.join(f"{f.label} {f.text}" for f in found[:3])))
        rows += [[TableCell(text=gpu.name), TableCell(text=f.label), TableCell(text=f.text, value=f.value)] for f in found]
        # Every figure shown (including halves and unit conversions of catalog values) is recorded as looked up.
        shown = [float(x.replace(",", "")) for f in found for x in FIGURE.findall(f.text)]
        ctx.record("catalog-lookup", {"gpu": gpu.id, "attributes": attributes},
                   {"values": {f"{f.attribute}:{f.label}": f.value for f in found if f.value is not None}, "figures": shown})
    columns = [TableColumn(key="gpu", label="GPU"), TableColumn(key="item", label=say("spec.item", lang)),
               TableColumn(key="value", label=say("spec.value", lang), align="right")]
    blocks = [LeadBlock(text=" ".join(leads)), TableBlock(columns=columns, rows=rows)]
    if "compute" in attributes:
        blocks.append(NoticeBlock(kind="info", text=say("spec.note_dense", lang)))
    node = _node_power(ctx, gpu_ids[0]) if "power" in attributes else None
    if node is not None:
        blocks.insert(1, node)
    contrast = _export_contrast(ctx, gpu_ids, attributes)
    if contrast is not None:
        blocks.insert(1, contrast)
    first = ctx.catalog.gpus[gpu_ids[0]]
    named = [ctx.catalog.gpus[g] for g in gpu_ids]
    # One notice for every entry shown, dated by the oldest check: the figures are no fresher than that.
    names = ("、" if lang == "zh" else ", ").join(g.name for g in named)
    checked = min(g.checked for g in named).isoformat()
    blocks.append(NoticeBlock(kind="info", text=say("spec.source", lang, gpu=names, checked=checked)))
    hits = _cards(ctx, gpu_ids)
    return Draft(blocks=blocks, hits=hits, follow_ups=[say("spec.follow_compare", lang, gpu=first.name),
                                                       say("spec.follow_fit", lang, gpu=first.name, memory=num(first.memory_gb))])


def _export_contrast(ctx: Context, gpu_ids: list[str], attributes: list[str]) -> ParagraphBlock | None:
    """An export variant's link (H800, A800) means little alone: the card it was cut from, for contrast, and that compute is the same."""
    pair = export_pair(gpu_ids, ctx.catalog) if "nvlink" in attributes else None
    if pair is None or pair[1].id in gpu_ids:
        return None
    variant, base = pair
    tf = base.dense_tflops("bf16")
    ctx.record("catalog-lookup", {"gpu": base.id, "contrast_with": variant.id},
               {"nvlink_gbps_bidir": base.scale_up.bandwidth_gbps_bidir, "bf16_dense_tflops": tf, "memory_bandwidth_gbps": base.memory_bandwidth_gbps})
    return ParagraphBlock(text=say("sizing_expert.spec_export_contrast", ctx.lang, base=base.name, link_b=link_name(base.scale_up.name, ctx.lang),
                                   nv_b=num(base.scale_up.bandwidth_gbps_bidir), variant=variant.name, nv_v=num(variant.scale_up.bandwidth_gbps_bidir),
                                   tf=num(tf)))


def card_query(gpu_name: str) -> str:
    """The search that finds a GPU's spec card (a fixed text: embedded with the index, service/assistant/fixed_texts.py)."""
    return f"{gpu_name} specifications 规格"


def _cards(ctx: Context, gpu_ids: list[str]) -> list:
    """The spec cards of the GPUs asked about, as citations: one search per GPU, so every entry shown has its source
    (one search for all names can fill its top k with one card's sections)."""
    seen: set[str] = set()
    cards = []
    for gpu_id in gpu_ids:
        gpu = ctx.catalog.gpus[gpu_id]
        wanted = gpu_card_id(gpu)
        for hit in ctx.retrieve(card_query(gpu.name), k=4, topics=["hardware"]):
            if hit.doc_id == wanted and hit.doc_id not in seen:
                seen.add(hit.doc_id)
                cards.append(hit)
                break
    return cards


def _node_power(ctx: Context, gpu_id: str) -> ParagraphBlock | None:
    """A server's power at full load: GPUs x TDP x the server-per-GPU-watt factor the break-even tool uses (DGX H100
    datasheet: 10.2 kW for eight 700 W GPUs), and what the facility draws at the PUE the same tool assumes."""
    if not SERVER.search(ctx.text):
        return None
    gpu = ctx.catalog.gpus[gpu_id]
    defaults = BreakEvenRequest.model_fields
    factor, pue = defaults["system_power_factor"].default, defaults["pue"].default
    # The largest per-server count written out; else the slots' count (which reads "一台" as one 8-GPU node).
    stated = [n for n in (int(m.group(1)) for m in CARD_COUNT.finditer(ctx.text)) if 0 < n <= 16]
    gpus = max(stated) if stated else ctx.slots.gpus if ctx.slots.gpus and ctx.slots.gpus <= 16 else NODE_GPUS
    reference_tdp = ctx.catalog.gpus[DGX_H100_GPU].tdp_w
    gpu_kw = gpus * gpu.tdp_w / 1000
    server_kw = gpu_kw * factor
    ctx.record("server-power", {"gpus": gpus, "tdp_w": gpu.tdp_w, "system_power_factor": factor, "pue": pue, "source": DGX_H100.url,
                                    "datasheet_max_kw": DGX_H100_MAX_KW, "datasheet_gpus": NODE_GPUS, "datasheet_gpu_tdp_w": reference_tdp},
               {"gpu_kw": gpu_kw, "server_kw": server_kw, "facility_kw": server_kw * pue})
    return ParagraphBlock(text=say("spec.node_power", ctx.lang, gpus=gpus, gpu=gpu.name, tdp=num(gpu.tdp_w), gpu_kw=num(gpu_kw),
                                   factor=num(factor), server_kw=num(server_kw), pue=num(pue), facility_kw=num(server_kw * pue),
                                   source=f"[{DGX_H100.title.split(' (')[0]}]({DGX_H100.url})", max_kw=num(DGX_H100_MAX_KW), ref_gpus=NODE_GPUS, ref_tdp=num(reference_tdp)))
