"""The facts an expert would state on each topic are in the knowledge base, in both languages, in the section that answers it.

Each row names a document, the heading of the section (per language) and the facts that section must state (a regular
expression per fact, per language). A row fails when a fact is edited out, moved to another section or written in only
one language; the answers built from these sections are checked in tests/knowledge/test_answers_state_key_facts.py.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest

from service.retrieval.documents import load_documents
from tests.knowledge.training_practice_cases import SECTION_FACTS

# (document id, {language: section heading}, {language: [fact patterns]})
KEY_FACTS = [
    (
        "checkpoint-resume",
        {"en": "Sharded and asynchronous checkpoints with PyTorch DCP", "zh": "用 PyTorch DCP 做分片与异步 checkpoint"},
        {
            "en": [r"saving asynchronously", r"copied from GPU memory to CPU memory", r"in the background", r"async_save"],
            "zh": [r"异步保存", r"拷贝到 CPU 内存", r"后台写入", r"async_save"],
        },
    ),
    (
        "checkpoint-resume",
        {"en": "Choosing the checkpoint interval: Young/Daly", "zh": "怎么选 checkpoint 间隔：Young/Daly 公式"},
        {"en": [r"√\(2 × C × M\)", r"MTBF", r"half an interval"], "zh": [r"√\(2 × C × M\)", r"MTBF", r"半个间隔"]},
    ),
    (
        "zero-fsdp",
        {"en": "ZeRO stages 1, 2 and 3 in formulas", "zh": "ZeRO 三个阶段的公式"},
        {
            "en": [r"stage 1 shards the optimizer states", r"stage 2 shards the optimizer states and the gradients", r"stage 3 shards .*parameters"],
            "zh": [r"ZeRO-1.{0,30}只切分优化器状态", r"ZeRO-2.{0,30}切分优化器状态和梯度", r"ZeRO-3.{0,30}把优化器状态、梯度和参数"],
        },
    ),
    (
        "zero-fsdp",
        {"en": "Choosing a stage in practice", "zh": "实际中怎么选阶段"},
        {"en": [r"lowest ZeRO stage whose memory fits"], "zh": [r"选能放下的最低阶段"]},
    ),
    (
        "parallelism-strategies",
        {"en": "Tensor parallelism: splitting each layer inside a node", "zh": "张量并行：在单机内部拆开每一层"},
        {
            "en": [r"not run across nodes", r"every layer", r"NVLink bandwidth", r"communication dominates"],
            "zh": [r"不跨节点", r"每一层", r"NVLink/NVSwitch 的带宽", r"通信就会主导"],
        },
    ),
    (
        "parallelism-strategies",
        {"en": "A starting map for choosing a combination", "zh": "选择并行组合的起点"},
        {
            "en": [r"3D parallelism", r"pipeline parallelism across nodes", r"bubble", r"micro-batches"],
            "zh": [r"3D 并行", r"流水线并行跨节点", r"气泡", r"micro-batch"],
        },
    ),
    (
        "interconnect-topologies",
        {"en": "InfiniBand, RoCE v2 and lossless Ethernet", "zh": "InfiniBand、RoCE v2 与无损以太网"},
        {"en": [r"small scale", r"PFC", r"ECN", r"lower latency"], "zh": [r"规模小", r"PFC", r"ECN", r"延迟通常更低"]},
    ),
    (
        "interconnect-topologies",
        {"en": "PCIe generations and PCIe-only servers", "zh": "PCIe 代际与纯 PCIe 服务器"},
        {"en": [r"900 GB/s", r"64 GB/s per direction", r"all-reduce"], "zh": [r"900 GB/s", r"约 64 GB/s", r"all-reduce"]},
    ),
    (
        "deployment-tiers",
        {"en": "A reference architecture for a 256-GPU training cluster", "zh": "256 卡训练集群的参考架构"},
        {
            "en": [r"rail-optimised and non-blocking", r"separate network", r"Lustre, Weka, IBM Storage Scale/GPFS or VAST", r"local NVMe"],
            "zh": [r"轨道优化、无阻塞", r"单独的存储网络", r"Lustre、Weka、IBM Storage Scale/GPFS 或 VAST", r"本地 NVMe"],
        },
    ),
    (
        "spot-preemptible",
        {"en": "Multi-node training on spot instances: what it takes", "zh": "用竞价实例做多机训练需要什么"},
        {
            "en": [r"two minutes on AWS", r"30 seconds on Google Cloud", r"SIGTERM", r"elastic", r"latest checkpoint"],
            "zh": [r"AWS 两分钟", r"Google Cloud 约 30 秒", r"SIGTERM", r"弹性", r"最新的 checkpoint"],
        },
    ),
    (
        "activation-checkpointing",
        {"en": "How much slower training gets with activation checkpointing", "zh": "开启激活检查点后训练会慢多少"},
        {"en": [r"one extra forward pass", r"33%", r"20%"], "zh": [r"多跑一次前向", r"33%", r"20%"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "Finding a straggler: the rank or node that slows every step", "zh": "定位慢节点：拖慢每一步的那个 rank 或节点"},
        {
            "en": [r"step time", r"nccl-tests between pairs of nodes", r"DCGM", r"clocks?", r"profiler"],
            "zh": [r"每步耗时", r"两两跑 nccl-tests", r"DCGM", r"频率", r"profiler"],
        },
    ),
    (
        "gpu-cloud-providers-billing",
        {"en": "Choosing between AWS, Google Cloud and Azure for training", "zh": "训练选 AWS、Google Cloud 还是 Azure"},
        {"en": [r"network between GPU nodes", r"EFA", r"GPUDirect-TCPX", r"InfiniBand"], "zh": [r"节点之间的网络", r"EFA", r"GPUDirect-TCPX", r"InfiniBand"]},
    ),
    (
        "onprem-gpu-tco",
        {"en": "Buying H100 now or waiting for B200", "zh": "现在买 H100 还是等 B200"},
        {"en": [r"lead times", r"1,000 W", r"14\.3 kW", r"liquid-cooled", r"CUDA 12\.8"], "zh": [r"交付周期", r"1,000 W", r"14\.3 kW", r"液冷", r"CUDA 12\.8"]},
    ),
    (
        "inference-latency-tuning",
        {"en": "Quantisation and model quality: INT4, INT8 and FP8", "zh": "量化与模型质量：INT4、INT8 与 FP8"},
        {
            "en": [r"AWQ or GPTQ", r"negligible accuracy loss", r"a quarter of the memory", r"FP8 natively"],
            "zh": [r"AWQ 或 GPTQ", r"几乎没有下降", r"四分之一", r"原生支持 FP8"],
        },
    ),
    (
        "inference-latency-tuning",
        {"en": "Long prompts: chunked prefill and prefix caching", "zh": "长 prompt：分块预填充与前缀缓存"},
        {
            "en": [r"TTFT is dominated by prefill", r"(?i)prefix caching", r"tensor parallelism", r"chunked prefill"],
            "zh": [r"TTFT 主要花在预填充", r"前缀缓存", r"张量并行", r"分块预填充"],
        },
    ),
]


KEY_FACTS += SECTION_FACTS


@pytest.fixture(scope="module")
def documents() -> dict[tuple[str, str], object]:
    return {(doc.id, doc.language): doc for doc in load_documents(Path(str(files("knowledge"))))}


def _section_text(doc, heading: str) -> str:
    """The body of one `##` section: from its heading to the next `##` heading."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", doc.body, re.S | re.M)
    assert match, f"{doc.id} ({doc.language}) has no section '{heading}'"
    return match.group(1)


@pytest.mark.parametrize(("doc_id", "headings", "facts"), KEY_FACTS, ids=[f"{row[0]}:{row[1]['en'][:40]}" for row in KEY_FACTS])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_each_key_fact_is_stated_in_its_section_in_both_languages(documents, doc_id, headings, facts, language) -> None:
    doc = documents[(doc_id, language)]
    text = _section_text(doc, headings[language])
    missing = [pattern for pattern in facts[language] if not re.search(pattern, text)]
    assert not missing, f"{doc_id} ({language}) '{headings[language]}' does not state {missing}"
    section = doc.section(headings[language])
    assert section is not None and len(section.questions) >= 3, "the section declares the questions it answers (FORMAT.md)"
    assert section.source and section.source["url"].startswith("https://"), "the section cites a real source"


@pytest.mark.parametrize("doc_id", sorted({row[0] for row in SECTION_FACTS}))
def test_topic_exists_in_both_languages_with_the_same_sections(documents, doc_id) -> None:
    en, zh = documents[(doc_id, "en")], documents[(doc_id, "zh")]
    assert len(en.sections) == len(zh.sections), f"{doc_id}: en and zh differ in section count"
    english_words = re.compile(r"\b(?:the|and|with|which|because)\b")
    prose = re.sub(r"`[^`]*`|```.*?```|\([^)]*[A-Za-z]{4,}[^)]*\)", "", zh.body, flags=re.S)
    assert not english_words.search(prose), f"{doc_id} (zh) contains English prose"
