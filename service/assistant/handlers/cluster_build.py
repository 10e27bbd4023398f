"""A training cluster of a stated size with no model named: "best setup for a 16-GPU research cluster, multi-node
experiments", "要搭个 64 卡的训练集群怎么配".

A consultant answers with the build, not "which model?": nodes of eight NVLink-connected GPUs (the user's GPU, else
H100 SXM), a rail-optimised non-blocking fabric with one 400 Gb/s NIC per GPU, storage and a scheduler (from the
knowledge base), then what the cluster does: the bus bandwidth an all-reduce across its nodes should reach (the
acceptance figure, nccl-expected tool) and how long compute-optimal pre-training takes for a few model sizes on it
(training-time tool, 20 tokens per parameter). Every assumption is stated.
"""

from __future__ import annotations

import re

from service.assistant import consult
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import passages
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.defaults import DEFAULT_GPU

NODE_GPUS = 8
MODEL_SIZES_B = (1.0, 7.0, 13.0, 34.0, 70.0)
CLUSTER = re.compile(r"cluster|集群|nodes?\b|节点|台机器|台服务器|servers\b|fabric|组网|网络怎么配|network", re.I)
TRAINING = re.compile(r"train|pre-?train|experiment|research|训练|预训练|实验|研究", re.I)


def asks(ctx: Context) -> bool:
    s = ctx.slots
    sized = (s.gpus or 0) >= NODE_GPUS or (s.nodes or 0) >= 2
    return bool(
        sized
        and not (s.model or s.params_b or s.budget)
        and s.task != "inference"
        and CLUSTER.search(ctx.text)
        and (TRAINING.search(ctx.text) or consult.cue("build_cluster", ctx.text))
    )


def answer(ctx: Context) -> Draft | None:
    if not asks(ctx):
        return None
    s, lang = ctx.slots, ctx.lang
    gpu_id = s.gpu or DEFAULT_GPU
    gpus = s.gpus or (s.nodes or 1) * NODE_GPUS
    nodes = -(-gpus // NODE_GPUS)
    gpu = ctx.catalog.gpus[gpu_id]
    nccl, _ = ctx.try_run("nccl-expected", {"gpu": gpu_id, "gpus": gpus, "gpus_per_node": min(gpus, NODE_GPUS)})
    rows, works = [], []
    for params in MODEL_SIZES_B:
        tokens = consult.compute_optimal_tokens(params * 1e9)
        timing, _ = ctx.try_run("training-time", {"params_b": params, "tokens": tokens, "gpu": gpu_id, "gpus": gpus})
        if timing is None:
            continue
        rows.append((params, tokens, timing))
        works = works or [(timing.tool, timing.work)]
    ctx.record(
        "compute-optimal-data", {"params_b": list(MODEL_SIZES_B), "tokens_per_param": consult.TOKENS_PER_PARAM}, {"tokens": {f"{p:g}B": t for p, t, _ in rows}}
    )
    values = {"gpus": gpus, "nodes": nodes, "gpu": gpu.name}
    blocks = [LeadBlock(text=say("cluster_build.lead", lang, **values))]
    if not s.gpu:
        blocks.append(NoticeBlock(kind="assumption", text=say("cluster_build.assumed_gpu", lang, gpu=gpu.name)))
    if nccl is not None and nodes > 1:
        band = nccl.expected_busbw_gbps
        blocks.append(ParagraphBlock(text=say("cluster_build.busbw", lang, low=num(band.low), high=num(band.high), gpus=gpus, nodes=nodes)))
        works.append((nccl.tool, nccl.work))
    if rows:
        columns = [
            TableColumn(key="model", label=say("cluster_build.col_model", lang)),
            TableColumn(key="tokens", label=say("cluster_build.col_tokens", lang), align="right"),
            TableColumn(key="days", label=say("cluster_build.col_days", lang), align="right"),
        ]
        blocks.append(ParagraphBlock(text=say("cluster_build.table_intro", lang, gpus=gpus, gpu=gpu.name)))
        blocks.append(
            TableBlock(
                columns=columns,
                rows=[
                    [
                        TableCell(text=f"{num(p)}B"),
                        TableCell(text=f"{num(t / 1e9)}B", value=t),
                        TableCell(text=f"{num(r.days.low)}–{num(r.days.high)}", value=r.days.typical),
                    ]
                    for p, t, r in rows
                ],
            )
        )
    query = say("cluster_build.query", lang)
    hits = ctx.retrieve(query, k=4)
    found, cited = passages(ctx, f"{ctx.text} {query}", hits, limit=4) if hits else ([], [])
    blocks += found
    hits = cited or hits
    return Draft(blocks=blocks, hits=hits, works=works, follow_ups=[say("cluster_build.follow_preflight", lang), say("cluster_build.follow_rent", lang)])
