"""Tool output: nvidia-smi (driver, CUDA, GPUs, memory in use, processes), `nvidia-smi topo -m`, nccl-tests,
ibstat / ibv_devinfo, dcgmi diag, and version lines (torch, CUDA, drivers, frameworks) wherever they are written."""

from __future__ import annotations

import re

from service.understanding.case.model import Artefact, Fact
from service.understanding.case.readers import reader

SMI_HEADER = re.compile(r"NVIDIA-SMI\s+(?P<smi>[\d.]+)\s+Driver Version:\s*(?P<driver>[\d.]+)\s+CUDA Version:\s*(?P<cuda>[\d.]+)")
DRIVER_ONLY = re.compile(r"Driver Version\s*:?\s*(?P<driver>\d{3}\.\d+(?:\.\d+)?)")
CUDA_ONLY = re.compile(r"CUDA Version\s*:?\s*(?P<cuda>\d{2}\.\d)")
SMI_GPU = re.compile(r"^\|\s*(?P<index>\d+)\s+(?P<name>(?:NVIDIA|Tesla|Quadro|GeForce|RTX|A\d|H\d|L\d|V\d)[^|]{2,60}?)\s+(?:On|Off)\s*\|")
SMI_MEMORY = re.compile(r"\|\s*(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB\s*\|\s*(?P<util>\d+)%")
SMI_PROCESS = re.compile(r"^\|\s*(?P<gpu>\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(?P<pid>\d+)\s+(?P<type>[CG]\+?G?)\s+(?P<name>\S+)\s+(?P<mem>\d+)MiB")
TOPO_ROW = re.compile(r"^\s*GPU(?P<row>\d+)\s+(?P<cells>(?:(?:X|NV\d+|SYS|PIX|PHB|PXB|NODE)\s+){2,})")
NCCL_ROW = re.compile(r"^\s*(?P<size>\d+)\s+(?P<count>\d+)\s+(?:float|half|bfloat16|int8|double|int32)\s+\w+\s+-?\d+\s+"
                      r"(?P<time>[\d.]+)\s+(?P<algbw>[\d.]+)\s+(?P<busbw>[\d.]+)")
NCCL_AVG = re.compile(r"Avg bus bandwidth\s*:\s*(?P<avg>[\d.]+)")
IB_STATE = re.compile(r"^\s*State:\s*(?P<state>\w+)")
IB_PHYS = re.compile(r"^\s*Physical state:\s*(?P<phys>\w+)")
IB_RATE = re.compile(r"^\s*Rate:\s*(?P<rate>\d+)")
IB_LAYER = re.compile(r"^\s*Link layer:\s*(?P<layer>\w+)")
DCGM_RESULT = re.compile(r"^\|\s*(?P<test>[A-Za-z][\w /-]{1,40}?)\s*\|\s*(?P<result>Pass|Fail|Warn|Skip)\b", re.I)
VERSIONS = [
    ("torch_version", re.compile(r"(?<![\w.])(?:torch|pytorch)\s*(?:==|=|:|\s)\s*v?(?P<v>\d+\.\d+(?:\.\d+)?)(?:\+cu(?P<cu>\d{3}))?", re.I)),
    ("transformers_version", re.compile(r"(?<![\w.])transformers\s*(?:==|=|:|\s)\s*v?(?P<v>\d+\.\d+(?:\.\d+)?)", re.I)),
    ("deepspeed_version", re.compile(r"(?<![\w.])deepspeed\s*(?:==|=|:|\s)\s*v?(?P<v>\d+\.\d+(?:\.\d+)?)", re.I)),
    ("vllm_version", re.compile(r"(?<![\w.])vllm\s*(?:==|=|:|\s|version\s)\s*v?(?P<v>\d+\.\d+(?:\.\d+)?)", re.I)),
    ("cuda_toolkit_version", re.compile(r"(?<![\w.])(?:cuda|CUDA toolkit|nvcc)\s*(?:==|=|:|\s|version\s)\s*v?(?P<v>1\d\.\d)(?!\d)", re.I)),
    ("driver_version", re.compile(r"(?:driver|驱动)\s*(?:version)?\s*(?:==|=|:|\s|版本)\s*v?(?P<v>\d{3}\.\d+(?:\.\d+)?)", re.I)),
    ("python_version", re.compile(r"(?<![\w.])python\s*(?:==|=|:|\s)\s*v?(?P<v>3\.\d+(?:\.\d+)?)", re.I)),
]


def _fact(name: str, value, line_no: int, line: str, parser: str) -> Fact:
    return Fact(name=name, value=value, line=line_no, quote=line.strip()[:200], parser=parser)


@reader("nvidia_smi", kinds=("tool_output", "log", "code"))
def read_nvidia_smi(artefact: Artefact) -> list[Fact]:
    facts: list[Fact] = []
    gpus = 0
    for offset, line in enumerate(artefact.text.splitlines()):
        at = artefact.first_line + offset
        head = line[:2000]
        if m := SMI_HEADER.search(head):
            facts += [_fact("driver_version", m["driver"], at, line, "nvidia_smi"), _fact("driver_cuda_version", m["cuda"], at, line, "nvidia_smi")]
        if m := SMI_GPU.match(head):
            gpus += 1
            facts.append(_fact("gpu_name", m["name"].strip(), at, line, "nvidia_smi"))
        if m := SMI_MEMORY.search(head):
            facts += [_fact("gpu_memory_used_gib", round(int(m["used"]) / 1024, 2), at, line, "nvidia_smi"),
                      _fact("gpu_memory_total_gib", round(int(m["total"]) / 1024, 2), at, line, "nvidia_smi"),
                      _fact("gpu_util_percent", int(m["util"]), at, line, "nvidia_smi")]
        if m := SMI_PROCESS.match(head):
            facts.append(_fact("gpu_process", f"GPU {m['gpu']}: {m['name'][:60]} {m['mem']} MiB", at, line, "nvidia_smi"))
    if gpus:
        facts.append(_fact("smi_gpu_count", gpus, artefact.first_line, artefact.text.splitlines()[0], "nvidia_smi"))
    return facts


@reader("topology", kinds=("tool_output", "log", "code"))
def read_topology(artefact: Artefact) -> list[Fact]:
    rows: dict[int, list[str]] = {}
    first = None
    for offset, line in enumerate(artefact.text.splitlines()):
        if m := TOPO_ROW.match(line[:2000]):
            rows[int(m["row"])] = m["cells"].split()
            first = first or (artefact.first_line + offset, line)
    if len(rows) < 2 or first is None:
        return []
    links = [cell for row in rows.values() for cell in row if cell != "X"]
    nvlink = sum(cell.startswith("NV") for cell in links)
    return [_fact("topo_gpus", len(rows), *first, "topology"), _fact("topo_nvlink_pairs", nvlink // 2, *first, "topology"),
            _fact("topo_other_pairs", (len(links) - nvlink) // 2, *first, "topology")]


@reader("nccl_tests", kinds=("tool_output", "log", "code"))
def read_nccl_tests(artefact: Artefact) -> list[Fact]:
    best: tuple[float, int, str] | None = None
    facts: list[Fact] = []
    for offset, line in enumerate(artefact.text.splitlines()):
        head = line[:2000]
        if m := NCCL_ROW.match(head):
            busbw = float(m["busbw"])
            if best is None or busbw > best[0]:
                best = (busbw, artefact.first_line + offset, line)
        if m := NCCL_AVG.search(head):
            facts.append(_fact("nccl_avg_busbw_gbps", float(m["avg"]), artefact.first_line + offset, line, "nccl_tests"))
    if best:
        facts.insert(0, _fact("nccl_peak_busbw_gbps", best[0], best[1], best[2], "nccl_tests"))
    return facts


@reader("ibstat", kinds=("tool_output", "log", "code"))
def read_ibstat(artefact: Artefact) -> list[Fact]:
    facts: list[Fact] = []
    for offset, line in enumerate(artefact.text.splitlines()):
        at, head = artefact.first_line + offset, line[:2000]
        for pattern, name, cast in ((IB_STATE, "ib_state", str), (IB_PHYS, "ib_physical_state", str), (IB_RATE, "ib_rate_gbps", int),
                                    (IB_LAYER, "ib_link_layer", str)):
            if m := pattern.match(head):
                facts.append(_fact(name, cast(m.group(1)), at, line, "ibstat"))
    return facts


@reader("dcgmi", kinds=("tool_output", "log", "code"))
def read_dcgmi(artefact: Artefact) -> list[Fact]:
    return [_fact("dcgm_fail", m["test"].strip(), artefact.first_line + offset, line, "dcgmi")
            for offset, line in enumerate(artefact.text.splitlines()) if (m := DCGM_RESULT.match(line[:2000])) and m["result"].lower() == "fail"]


def version_facts(text: str, first_line: int, parser: str) -> list[Fact]:
    facts: list[Fact] = []
    for offset, line in enumerate(text.splitlines()):
        head = line[:2000]
        for name, pattern in VERSIONS:
            if m := pattern.search(head):
                facts.append(_fact(name, m["v"], first_line + offset, line, parser))
                if name == "torch_version" and m["cu"]:
                    facts.append(_fact("torch_cuda_version", f"{m['cu'][:2]}.{m['cu'][2:]}", first_line + offset, line, parser))
        if "Driver Version" in head and not SMI_HEADER.search(head) and (m := DRIVER_ONLY.search(head)):
            facts.append(_fact("driver_version", m["driver"], first_line + offset, line, parser))
        if "CUDA Version" in head and not SMI_HEADER.search(head) and (m := CUDA_ONLY.search(head)):
            facts.append(_fact("driver_cuda_version", m["cuda"], first_line + offset, line, parser))
    return facts


@reader("versions", kinds=("yaml", "env", "log", "code", "tool_output"))
def read_versions(artefact: Artefact) -> list[Fact]:
    return version_facts(artefact.text, artefact.first_line, parser="versions")
