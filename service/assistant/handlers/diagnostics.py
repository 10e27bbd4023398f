"""Diagnostics: parse a pasted `nvidia-smi topo -m` matrix or nccl-tests output and judge it; recognise
error and symptom signatures (Xid, ECC, NCCL errors and timeouts, CUDA OOM, NaN loss; the table is
data: service/assistant/diagnostic_signatures.yaml) and answer from the knowledge about them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


from service import yaml_files
from service.assistant.compose import extract, sizing
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers import diagnosis_tools
from service.assistant.network import stated_network
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import faq, passages
from service.assistant.messages import say
from service.contract import Block, ChecklistBlock, ChecklistStep, LeadBlock, ParagraphBlock
from service import budget
from service.sizing.defaults import DEFAULT_GPU

SIGNATURES_FILE = Path(__file__).resolve().parents[1] / "diagnostic_signatures.yaml"
MAX_NAMED = 2  # signatures named in the lead; the first leads the search

CELL = re.compile(r"^(X|NV\d+|SYS|NODE|PHB|PXB|PIX)$")
NV_LINKS_TO_GPU = {18: "h100-sxm", 12: "a100-80gb-sxm", 8: "h800"}
# Words for "across nodes" with no node count ("跨机 busbw 只有 12GB/s"); a count ("two nodes", "两台") is the nodes slot.
CROSS_NODE = re.compile(r"跨机|跨节点|多机|机间|inter-?node|cross-?node|across (?:the )?nodes|multi-?node|between (?:the )?nodes", re.I)


TOPOLOGY_HEADER = re.compile(r"\bGPU0\s+GPU1\b")
GPU_COLUMN = re.compile(r"GPU\d+")
TOPOLOGY_ROW = re.compile(r"^\s*GPU(\d+)\s+(.*)$")


def parse_topology(text: str) -> dict | None:
    """GPU-to-GPU cells of `nvidia-smi topo -m`: which pairs have NVLink (NV#) and which fall back to PCIe/SYS."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    header = next((i for i, line in enumerate(lines) if TOPOLOGY_HEADER.search(line)), None)
    if header is None:
        return None
    columns = [c for c in lines[header].split() if GPU_COLUMN.fullmatch(c)]
    n = len(columns)
    matrix: dict[int, list[str]] = {}
    for line in lines[header + 1:]:
        m = TOPOLOGY_ROW.match(line)
        if not m:
            continue
        cells = m.group(2).split()[:n]
        if len(cells) == n and all(CELL.match(c) for c in cells):
            matrix[int(m.group(1))] = cells
    if len(matrix) < 2:
        return None
    nvlink, missing, links = 0, [], []
    for i in sorted(matrix):
        for j in range(i + 1, n):
            if j not in matrix:
                continue
            cell = matrix[i][j]
            if cell.startswith("NV"):
                nvlink += 1
                links.append(int(cell[2:]))
            else:
                missing.append(f"GPU{i}-GPU{j}:{cell}")
    pairs = nvlink + len(missing)
    return {"gpus": len(matrix), "pairs": pairs, "nvlink_pairs": nvlink, "pairs_without_nvlink": missing, "pairs_without_nvlink_count": len(missing),
            "links_per_pair": max(links) if links else 0}


NCCL_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(float|half|bfloat16|double|int\w*)\s+\w+\s+-?\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", re.M)
AVG = re.compile(r"avg bus bandwidth\s*:\s*([\d.]+)", re.I)
RANKS = re.compile(r"#\s*Rank\s+\d+.*?device\s+\d+\s+\[[^\]]*\]\s+(.+)$", re.M | re.I)


def parse_nccl(text: str) -> dict | None:
    rows = [(int(m.group(1)), float(m.group(6))) for m in NCCL_ROW.finditer(text)]
    avg = AVG.search(text)
    if not rows and not avg:
        return None
    large = [busbw for size, busbw in rows if size >= 256 * 2**20]
    peak = max(large) if large else (max(b for _, b in rows) if rows else None)
    devices = RANKS.findall(text)
    return {"rows": len(rows), "peak_busbw_gbps": peak, "avg_busbw_gbps": float(avg.group(1)) if avg else None,
            "ranks": len(devices), "device": devices[0].strip() if devices else None}


@dataclass(frozen=True)
class Signature:
    name: str
    pattern: re.Pattern[str]
    label: dict[str, str]  # language -> what it is
    query: dict[str, str]  # language -> the search that finds the knowledge about it
    topics: tuple[str, ...]
    commands: tuple[str, ...]
    covered_by: tuple[str, ...] = ()  # skipped when one of these matched: the more specific reading already names it
    explain: str | None = None  # message key: what the signature means and what to run, said before the quoted passages


@budget.loader
def signatures() -> tuple[Signature, ...]:
    raw = yaml_files.safe_load(SIGNATURES_FILE.read_text(encoding="utf-8"))
    return tuple(
        Signature(name, re.compile(spec["pattern"], re.IGNORECASE), dict(spec["label"]), dict(spec["query"]), tuple(spec.get("topics") or ()),
                  tuple(spec.get("commands") or ()), tuple(spec.get("covered_by") or ()), spec.get("explain"))
        for name, spec in raw.items()
    )


def recognise(text: str) -> list[tuple[Signature, str]]:
    """The signatures found in `text`, in table order, each with the text that matched (its code, when it has one)."""
    found: list[tuple[Signature, str]] = []
    for signature in signatures():
        m = signature.pattern.search(text)
        if m and not any(s.name in signature.covered_by for s, _ in found):
            found.append((signature, next((g for g in m.groups() if g), m.group(0)).strip()))  # the code, from whichever alternative matched
    return found


def diagnostics(ctx: Context) -> Draft:
    if ctx.understanding.pasted == "topo":
        topo = parse_topology(ctx.text)
        if topo is not None:
            return _topology(ctx, topo)
    nccl = parse_nccl(ctx.text) if ctx.understanding.pasted == "nccl" else None
    measured = (nccl and (nccl["peak_busbw_gbps"] or nccl["avg_busbw_gbps"])) or ctx.slots.measured_busbw_gbps
    if measured:
        return _bandwidth(ctx, measured, nccl)
    from service.assistant.handlers import slow_card

    slow = slow_card.answer(ctx)  # "my 4090 trains at only 40 TFLOPS": precision, batch, loader, compile, profile
    if slow is not None:
        return slow
    from service.assistant.handlers import measured_speed

    measured_draft = measured_speed.answer(ctx)  # "8×H100 on Llama 3 8B, only 9,000 tokens/s": the MFU that implies
    if measured_draft is not None:
        return measured_draft
    found = recognise(ctx.text)
    if found:
        return _signature(ctx, found[:MAX_NAMED])
    return faq(ctx)


def _signature(ctx: Context, found: list[tuple[Signature, str]]) -> Draft:
    """Name what the error is, then answer from the knowledge about it: never a question back, whatever else is missing."""
    lang = ctx.lang
    ctx.record("error-signature", {"text": ctx.text[:200]}, {"signatures": [{"name": sig.name, "matched": matched} for sig, matched in found]})
    first = found[0][0]
    query = f"{first.query[lang]} {ctx.text[:200]}"
    hits = ctx.retrieve(query, k=4, topics=list(first.topics) or None) or ctx.retrieve(query, k=4)
    labels = [sig.label[lang] for sig, _ in found]
    # What the tools say about the user's own workload comes right after the lead, before the general passages.
    computed = diagnosis_tools.computed(ctx, first.name)
    suffix = "_computed" if computed else ""
    lead = say(f"diagnose.recognised{suffix}", lang, what=labels[0]) if len(labels) == 1 else say(
        f"diagnose.recognised_two{suffix}", lang, first=labels[0], second=labels[1])
    # What the signature means, from the catalog, before the tool's figures: an OOM is diagnosed before it is sized.
    explain = next((sig.explain for sig, _ in found if sig.explain), None)  # throttling names no cause; a hot node's does
    explained = [ParagraphBlock(text=say(explain, lang))] if explain else []
    blocks: list[Block] = [LeadBlock(text=lead), *explained, *computed]
    cited: list = []
    if hits:
        # The passages answer what was searched, the signature's query with the start of the message, as one reading (one
        # encoder run for the search and the sentences' scores; not split into parts). Blind sets 16-21 and the tuned
        # conversation set score the same as with the whole message appended (expert pass, intent, fact recall).
        found_blocks, cited = passages(ctx, query, hits, skip=extract.INJECTION.search, asked="")
        blocks += found_blocks
    commands = list(dict.fromkeys(c for sig, _ in found for c in sig.commands))[:4]
    if commands:
        blocks.append(_next_steps(ctx, say("diagnose.next_steps", lang), commands))
    return Draft(blocks=blocks, hits=cited, follow_ups=[say("diagnose.follow_up_logs", lang), say("diagnose.follow_up_node", lang)])


def _bandwidth(ctx: Context, measured: float, parsed: dict | None) -> Draft:
    s = ctx.slots
    gpu = s.gpu
    if gpu is None and parsed and parsed["device"]:
        found = ctx.catalog.find_gpu(parsed["device"]) or _gpu_in(ctx, parsed["device"])
        gpu = found.id if found else None
    notes = []
    if gpu is None:
        gpu = DEFAULT_GPU
        notes.append(say("diagnostics.assumed_gpu", ctx.lang))
    gpus = s.gpus or (parsed["ranks"] if parsed and parsed["ranks"] >= 2 else 8)
    asked = f"{ctx.understanding.context or ''} {ctx.text}"
    across_nodes = gpus > 8 or (s.nodes or 1) > 1 or bool(CROSS_NODE.search(asked))
    if across_nodes and gpus <= 8:
        gpus = 16  # "跨机 busbw 只有 12GB/s": at least two nodes, whatever the per-node count
        notes.append(say("diagnostics.assumed_two_nodes", ctx.lang))
    if parsed:
        ctx.record("parse-nccl-tests", {"lines": parsed["rows"]}, parsed)
    result = ctx.run("nccl-expected", {"gpu": gpu, "gpus": max(gpus, 2), "gpus_per_node": min(max(gpus, 2), 8), "measured_busbw_gbps": measured,
                                       **stated_network(ctx.slots, min(max(gpus, 2), 8))})
    hits = ctx.retrieve(say("queries.nccl_low_busbw", ctx.lang), k=2, topics=["networking", "preflight"])
    passages = extract.select(ctx.text[:300], [h.text for h in hits], max_points=3)
    blocks = [*sizing.blocks(result, ctx.lang, ctx.catalog), *assumptions(notes), *warnings(result.work, ctx.lang)]
    if result.verdict != "healthy" and across_nodes:
        blocks.append(_next_steps(ctx, say("diagnostics.check_fabric", ctx.lang),
                                  ["NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET mpirun -np 16 -N 8 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1",
                                   "ibstat", "ib_write_bw -d mlx5_0 --report_gbits"]))
    elif result.verdict != "healthy":
        blocks.append(_next_steps(ctx, say("diagnostics.check_links", ctx.lang),
                                  ["nvidia-smi topo -m", "nvidia-smi nvlink --status", "NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8"]))
    hits = _append_passages(ctx, blocks, hits, passages)
    return Draft(blocks=blocks, hits=hits, works=[("nccl-expected", result.work)], follow_ups=[
        say("diagnostics.follow_nccl_debug", ctx.lang), say("diagnostics.follow_nvlink_health", ctx.lang)])


GPU_TOKEN = re.compile(r"[A-Za-z]+\d+[A-Za-z]*")


def _gpu_in(ctx: Context, device: str):
    for token in GPU_TOKEN.findall(device):
        found = ctx.catalog.find_gpu(token)
        if found:
            return found
    return None


def _topology(ctx: Context, topo: dict) -> Draft:
    ctx.record("topology-check", {"gpus": topo["gpus"]}, topo)
    missing = topo["pairs_without_nvlink"]
    guess = NV_LINKS_TO_GPU.get(topo["links_per_pair"])
    if not missing:
        lead = say("diagnostics.topology_healthy", ctx.lang, pairs=topo["pairs"], gpus=topo["gpus"], links=topo["links_per_pair"])
        if guess:
            lead += say("diagnostics.topology_system", ctx.lang, links=topo["links_per_pair"], gpu=ctx.catalog.gpus[guess].name)
    else:
        shown = ", ".join(missing[:8])
        lead = say("diagnostics.topology_missing", ctx.lang, missing=len(missing), pairs=topo["pairs"], shown=shown)
    hits = ctx.retrieve(say("queries.topology", ctx.lang), k=2, topics=["networking", "gpu-health", "preflight"])
    passages = extract.select("nvidia-smi topo NVLink SYS PHB PIX NV", [h.text for h in hits], max_points=3)
    blocks: list[Block] = [LeadBlock(text=lead)]
    if missing:
        blocks.append(_next_steps(ctx, say("diagnostics.check_nvlink", ctx.lang),
                                  ["nvidia-smi nvlink --status", "nvidia-smi -q | grep -i -A3 nvlink", "dcgmi diag -r 2"]))
    hits = _append_passages(ctx, blocks, hits, passages)
    return Draft(blocks=blocks, hits=hits, follow_ups=[say("diagnostics.follow_busbw", ctx.lang), say("diagnostics.follow_run_nccl", ctx.lang)])


def _next_steps(ctx: Context, text: str, commands: list[str]) -> ChecklistBlock:
    return ChecklistBlock(title=say("diagnostics.next_steps_title", ctx.lang), steps=[ChecklistStep(text=text, commands=commands)])


def _append_passages(ctx: Context, blocks: list[Block], hits: list, passages: list) -> list:
    """Adds the quoted passages to `blocks`; returns the hits they cite."""
    quoted, cited = extract.cite(passages, hits, title=say("diagnostics.from_kb", ctx.lang))
    blocks.extend(quoted)
    return cited
