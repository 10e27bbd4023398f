"""Spec answers read from the catalog: which attribute a question asks for, and the facts.

Every value comes from the GPU's catalog entry, which names its source and check date; the
handler cites that source. Attribute cues are data (spec_cues.yaml).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


from service.assistant import cues
from service.assistant.compose.fmt import link_name, memory_bandwidth, num
from service.assistant.messages import say
from service.catalog import Catalog
from service.catalog.models import GpuSpec

DEFAULT_ATTRIBUTES = ("memory", "bandwidth", "compute", "nvlink")
MEMORY_AS_KIND = re.compile(r"(?:显存|内存|memory|mem|hbm\d?e?)\s*(?:带宽|bandwidth|bw)", re.I)


CAPACITY_ASKED = re.compile(r"多大|多少g|容量|capacity|how much (?:memory|vram)|how many gb|\bvram\b(?!\s*bandwidth)|size", re.I)


def asked_attributes(text: str) -> list[str]:
    """The attributes the question names, in catalog order; the main four when it names none."""
    patterns = cues.patterns("spec_cues.yaml")
    found = [name for name, pattern in patterns.items() if pattern.search(text)]
    if "bandwidth" in found and "memory" in found and not CAPACITY_ASKED.search(text):
        # "显存带宽" names memory only as the kind of bandwidth; "memory, bw, power" asks for both
        if not patterns["memory"].search(MEMORY_AS_KIND.sub(" ", text)):
            found.remove("memory")
    return found or list(DEFAULT_ATTRIBUTES)


@dataclass
class Fact:
    attribute: str
    label: str
    text: str
    value: float | None
    unit: str | None


def facts(gpu: GpuSpec, attributes: list[str], lang: str) -> list[Fact]:
    out: list[Fact] = []
    for attribute in attributes:
        out.extend(_FACTS[attribute](gpu, lang))
    return out


def full_counterpart(gpu: GpuSpec, catalog: Catalog) -> GpuSpec | None:
    """The card an export variant derives from (A800 -> A100 80GB SXM, H800 -> H100 SXM): same architecture, form factor,
    memory and dense compute, a faster GPU-to-GPU link. None for a card whose link the catalog does not mark export-limited."""
    if gpu.scale_up is None or "export" not in gpu.scale_up.name.lower():
        return None
    for other in catalog.gpus.values():
        if (other.id != gpu.id and other.scale_up is not None and other.architecture == gpu.architecture and other.form_factor == gpu.form_factor
                and other.memory_gb == gpu.memory_gb and other.fp16_dense_tflops == gpu.fp16_dense_tflops
                and other.scale_up.bandwidth_gbps_bidir > gpu.scale_up.bandwidth_gbps_bidir):
            return other
    return None


def export_pair(gpu_ids: list[str], catalog: Catalog) -> tuple[GpuSpec, GpuSpec] | None:
    """(export variant, the card it derives from) among the GPUs named, or None."""
    for gpu_id in gpu_ids:
        base = full_counterpart(catalog.gpus[gpu_id], catalog)
        if base is not None:
            return catalog.gpus[gpu_id], base
    return None


def _memory(g: GpuSpec, lang: str) -> list[Fact]:
    return [Fact("memory", say("spec.memory", lang), f"{num(g.memory_gb)} GB {g.memory_type}", g.memory_gb, "GB")]


def _bandwidth(g: GpuSpec, lang: str) -> list[Fact]:
    return [Fact("bandwidth", say("spec.bandwidth", lang), memory_bandwidth(g.memory_bandwidth_gbps, g.memory_type), g.memory_bandwidth_gbps, "GB/s")]


def _nvlink(g: GpuSpec, lang: str) -> list[Fact]:
    if g.scale_up is None:
        return [Fact("nvlink", say("spec.scale_up", lang), say("spec.no_scale_up", lang, pcie=g.pcie_gen, bw=num(g.pcie_gbps_per_direction)),
                     g.pcie_gbps_per_direction, "GB/s")]
    link = g.scale_up
    return [Fact("nvlink", say("spec.scale_up", lang),
                 say("spec.scale_up_value", lang, name=link_name(link.name, lang), bidir=num(link.bandwidth_gbps_bidir), bidir_tb=num(link.bandwidth_gbps_bidir / 1000),
                     per_dir=num(link.bandwidth_gbps_per_direction),
                     gpus=link.max_gpus), link.bandwidth_gbps_bidir, "GB/s")]


def _compute(g: GpuSpec, lang: str) -> list[Fact]:
    rows = []
    for precision in ("bf16", "fp16", "fp8", "tf32"):
        value = g.dense_tflops(precision)
        if value:
            rows.append(Fact("compute", say("spec.dense", lang, precision=precision.upper()), f"{num(value)} TFLOPS", value, "TFLOPS"))
    if g.sparse_fp16_tflops:
        rows.append(Fact("compute", say("spec.sparse", lang), f"{num(g.sparse_fp16_tflops)} TFLOPS", g.sparse_fp16_tflops, "TFLOPS"))
    return rows


def _fp8(g: GpuSpec, lang: str) -> list[Fact]:
    if g.supports_fp8:
        return [Fact("fp8", "FP8", say("spec.supported_dense", lang, tflops=num(g.fp8_dense_tflops)), g.fp8_dense_tflops, "TFLOPS")]
    return [Fact("fp8", "FP8", say("spec.not_supported", lang, arch=g.architecture), None, None)]


def _bf16(g: GpuSpec, lang: str) -> list[Fact]:
    if g.supports_bf16:
        return [Fact("bf16", "BF16", say("spec.supported_dense", lang, tflops=num(g.bf16_dense_tflops)), g.bf16_dense_tflops, "TFLOPS")]
    return [Fact("bf16", "BF16", say("spec.not_supported", lang, arch=g.architecture), None, None)]


def _power(g: GpuSpec, lang: str) -> list[Fact]:
    return [Fact("power", say("spec.power", lang), f"{num(g.tdp_w)} W", g.tdp_w, "W")]


def _architecture(g: GpuSpec, lang: str) -> list[Fact]:
    return [Fact("architecture", say("spec.architecture", lang), f"{g.architecture} ({g.form_factor.upper()})", None, None)]


def _pcie(g: GpuSpec, lang: str) -> list[Fact]:
    return [Fact("pcie", "PCIe", say("spec.pcie_value", lang, gen=g.pcie_gen, bw=num(g.pcie_gbps_per_direction)), g.pcie_gbps_per_direction, "GB/s")]


_FACTS = {"memory": _memory, "bandwidth": _bandwidth, "nvlink": _nvlink, "compute": _compute, "fp8": _fp8, "bf16": _bf16,
          "power": _power, "architecture": _architecture, "pcie": _pcie}
