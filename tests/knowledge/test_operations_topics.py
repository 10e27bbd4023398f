"""Operations topics users ask about are stated in quotable, self-contained sentences, in both languages.

Covered: RoCE against InfiniBand, GPUDirect RDMA, NCCL over NVLink, multi-node nccl-tests, speculative decoding, long
prompts and TTFT, low MFU at scale, spot checkpoints, on-premises hidden costs, small files, checkpoints on a cloud,
periodic throughput dips and straggler nodes. FAQ answers quote single sentences, so each key point must sit in one
sentence of the section that answers it (a point split over "it ..." sentences is lost when one of them is quoted).

The FAQ answers to these topics are checked in test_answers_state_key_facts.py (OPERATIONS_CASES).
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest

from service.retrieval.documents import load_documents
from tests.knowledge.deployment_cases import DEPLOYMENT_KEY_SENTENCES
from tests.knowledge.expert_cases import EXPERT_KEY_SENTENCES

# (document id, {language: section heading}, {language: [patterns that must match ONE sentence of the section]})
KEY_SENTENCES = [
    (
        "interconnect-topologies",
        {"en": "InfiniBand, RoCE v2 and lossless Ethernet", "zh": "InfiniBand、RoCE v2 与无损以太网"},
        {"en": [r"RoCE", r"lossless", r"PFC", r"ECN", r"DCQCN"], "zh": [r"RoCE", r"无损", r"PFC", r"ECN", r"DCQCN"]},
    ),
    (
        "interconnect-topologies",
        {"en": "GPUDirect RDMA: what it does, when it matters, how to verify it", "zh": "GPUDirect RDMA：作用、何时重要、如何验证"},
        {"en": [r"GPUDirect RDMA", r"GPU memory directly", r"host \(CPU\) memory"], "zh": [r"GPUDirect RDMA", r"直接读写 GPU 显存", r"主机（CPU）内存"]},
    ),
    (
        "interconnect-topologies",
        {"en": "GPUDirect RDMA: what it does, when it matters, how to verify it", "zh": "GPUDirect RDMA：作用、何时重要、如何验证"},
        {
            "en": [r"verify GPUDirect RDMA", r"nvidia-peermem", r"NCCL_DEBUG=INFO", r"GDRDMA"],
            "zh": [r"验证 GPUDirect RDMA", r"nvidia-peermem", r"NCCL_DEBUG=INFO", r"GDRDMA"],
        },
    ),
    (
        "nccl-testing",
        {"en": "Does NCCL use NVLink automatically?", "zh": "NCCL 会自动使用 NVLink 吗"},
        {"en": [r"NCCL uses NVLink and NVSwitch automatically", r"P2P"], "zh": [r"NCCL 会自动使用 NVLink", r"P2P"]},
    ),
    (
        "nccl-testing",
        {"en": "Does NCCL use NVLink automatically?", "zh": "NCCL 会自动使用 NVLink 吗"},
        {"en": [r"nvidia-smi topo -m", r"NCCL_DEBUG=INFO", r"via SHM"], "zh": [r"nvidia-smi topo -m", r"NCCL_DEBUG=INFO", r"via SHM"]},
    ),
    (
        "nccl-testing",
        {"en": "Multi-node runs with MPI or Slurm", "zh": "用 MPI 或 Slurm 跑多节点测试"},
        {"en": [r"all_reduce_perf", r"busbw", r"50 GB/s", r"TCP sockets"], "zh": [r"all_reduce_perf", r"busbw", r"50 GB/s", r"TCP socket"]},
    ),
    (
        "inference-latency-tuning",
        {"en": "Speculative decoding", "zh": "投机解码"},
        {"en": [r"small batch sizes", r"draft model", r"EAGLE", r"Medusa"], "zh": [r"小批量", r"草稿模型", r"EAGLE", r"Medusa"]},
    ),
    (
        "inference-latency-tuning",
        {"en": "Long prompts: chunked prefill and prefix caching", "zh": "长 prompt：分块预填充与前缀缓存"},
        {"en": [r"RAG", r"prefill", r"RadixAttention", r"chunked prefill"], "zh": [r"RAG", r"预填充", r"RadixAttention", r"分块预填充"]},
    ),
    (
        "training-throughput-mfu",
        {"en": "Low MFU at scale: where to start looking", "zh": "大规模训练 MFU 低：从哪里查起"},
        {
            "en": [r"MFU is low", r"profile", r"communication and compute overlap", r"stragglers", r"data-loader stalls"],
            "zh": [r"MFU 低", r"profiling", r"通信与计算是否重叠", r"慢节点", r"数据加载卡顿"],
        },
    ),
    (
        "training-throughput-mfu",
        {"en": "Low MFU at scale: where to start looking", "zh": "大规模训练 MFU 低：从哪里查起"},
        {"en": [r"Nsight Systems", r"PyTorch profiler", r"exposed communication"], "zh": [r"Nsight Systems", r"PyTorch profiler", r"未被掩盖的通信"]},
    ),
    (
        "spot-preemptible",
        {"en": "Checkpoint cadence is the real protection", "zh": "真正起保护作用的是 checkpoint 频率"},
        {"en": [r"interruption notice", r"SIGTERM", r"interval", r"automate the resume"], "zh": [r"中断通知", r"SIGTERM", r"间隔", r"自动化"]},
    ),
    (
        "onprem-gpu-tco",
        {"en": "What goes into on-premises GPU total cost of ownership", "zh": "自建 GPU 集群的总拥有成本包括哪些"},
        {
            "en": [r"power", r"cooling", r"colocation", r"networking", r"staff", r"spares", r"depreciation"],
            "zh": [r"电费", r"制冷", r"托管", r"网络", r"运维人力", r"备件", r"折旧"],
        },
    ),
    (
        "storage-small-files",
        {"en": "Why millions of small files starve GPUs", "zh": "为什么海量小文件会把 GPU 饿死"},
        {
            "en": [r"small image or video files", r"WebDataset", r"TFRecord", r"LMDB", r"Parquet", r"local NVMe"],
            "zh": [r"小图片或小视频", r"WebDataset", r"TFRecord", r"LMDB", r"Parquet", r"本地 NVMe"],
        },
    ),
    (
        "storage-small-files",
        {"en": "Where to store checkpoints on a cloud", "zh": "云上 checkpoint 存在哪里"},
        {"en": [r"object storage", r"FSx for Lustre", r"single block volume"], "zh": [r"对象存储", r"FSx for Lustre", r"单块块存储卷"]},
    ),
    (
        "storage-small-files",
        {"en": "Where to store checkpoints on a cloud", "zh": "云上 checkpoint 存在哪里"},
        {"en": [r"sharded \(distributed\) checkpoint", r"asynchronously"], "zh": [r"分片保存", r"异步保存"]},
    ),
    (
        "low-gpu-utilization",
        {"en": "Throughput that dips at regular intervals", "zh": "训练吞吐周期性下跌"},
        {"en": [r"regular interval", r"checkpoint", r"evaluation", r"garbage", r"cron"], "zh": [r"固定间隔", r"checkpoint", r"评估", r"垃圾回收", r"定时任务"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "Finding a straggler: the rank or node that slows every step", "zh": "定位慢节点：拖慢每一步的那个 rank 或节点"},
        {"en": [r"straggler", r"dcgmi diag", r"gpu-burn", r"nccl-tests"], "zh": [r"慢节点", r"dcgmi diag", r"gpu-burn", r"nccl-tests"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "Finding a straggler: the rank or node that slows every step", "zh": "定位慢节点：拖慢每一步的那个 rank 或节点"},
        {"en": [r"DRAIN", r"cordon", r"spare node"], "zh": [r"drain", r"cordon", r"备用节点"]},
    ),
]

# Sentences as the FAQ composer cuts them: a semicolon joins two halves of one point, so it does not end a sentence.
KEY_SENTENCES += EXPERT_KEY_SENTENCES  # the expert topics (tests/knowledge/expert_cases.py), checked the same way
KEY_SENTENCES += DEPLOYMENT_KEY_SENTENCES  # deployment topics (tests/knowledge/deployment_cases.py)

SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+(?=[A-Z0-9\u4e00-\u9fff*`\"(（])")


@pytest.fixture(scope="module")
def documents() -> dict[tuple[str, str], object]:
    return {(doc.id, doc.language): doc for doc in load_documents(Path(str(files("knowledge"))))}


def _section_sentences(doc, heading: str) -> list[str]:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", doc.body, re.S | re.M)
    assert match, f"{doc.id} ({doc.language}) has no section '{heading}'"
    return [s for line in match.group(1).splitlines() for s in SENTENCE_END.split(line) if s.strip()]


@pytest.mark.parametrize(("doc_id", "headings", "facts"), KEY_SENTENCES, ids=[f"{r[0]}:{'+'.join(r[2]['en'][:2])}" for r in KEY_SENTENCES])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_one_sentence_states_the_key_point(documents, doc_id, headings, facts, language) -> None:
    doc = documents[(doc_id, language)]
    sentences = _section_sentences(doc, headings[language])
    assert any(all(re.search(p, s) for p in facts[language]) for s in sentences), (
        f"{doc_id} ({language}) '{headings[language]}': no single sentence states all of {facts[language]}"
    )
    section = doc.section(headings[language])
    assert section is not None and len(section.questions) >= 3, "the section declares the questions it answers"


# (question, facts the FAQ answer must state: each a regular expression matching the lead or a point)
