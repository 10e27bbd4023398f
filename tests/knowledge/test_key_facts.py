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


# Serving engines, tensor parallelism, GPU generations, containers, NCCL variables, training memory and datasheets
# (documents added from the tools' own documentation): the defaults and flags a user acts on.
KEY_FACTS += [
    (
        "serving-engine-memory",
        {"en": "vLLM memory flags: what each one changes", "zh": "vLLM 的显存参数：每个参数改变什么"},
        {
            "en": [r"0\.9 by default", r"per-instance limit", r"--max-model-len", r"--enforce-eager", r"--cpu-offload-gb", r"--max-lora-rank"],
            "zh": [r"默认 0\.9", r"按实例计算", r"--max-model-len", r"--enforce-eager", r"--cpu-offload-gb", r"--max-lora-rank"],
        },
    ),
    (
        "serving-engine-memory",
        {"en": "Ollama: layers on the GPU, CPU fallback and the settings that exist", "zh": "Ollama：放进显存的层数、回落到 CPU，以及真正存在的设置"},
        {
            "en": [r"ollama ps", r"no `OLLAMA_NUM_GPU`", r"OLLAMA_SCHED_SPREAD", r"num_ctx", r"CUDA_VISIBLE_DEVICES"],
            "zh": [r"ollama ps", r"不存在 `OLLAMA_NUM_GPU`", r"OLLAMA_SCHED_SPREAD", r"num_ctx", r"CUDA_VISIBLE_DEVICES"],
        },
    ),
    (
        "serving-tp-vs-replicas",
        {"en": "Consumer multi-GPU boxes over PCIe: P2P hangs and the workarounds", "zh": "PCIe 连接的消费级多卡机器：P2P 卡死与绕过办法"},
        {
            "en": [r"IOMMU", r"NCCL_P2P_DISABLE=1", r"--disable-custom-all-reduce", r"--enable-p2p-check"],
            "zh": [r"IOMMU", r"NCCL_P2P_DISABLE=1", r"--disable-custom-all-reduce", r"--enable-p2p-check"],
        },
    ),
    (
        "gpu-generation-features",
        {"en": "Compute capability of each generation", "zh": "各代显卡的计算能力"},
        {"en": [r"7\.0 for the V100", r"7\.5 for the T4", r"8\.9", r"9\.0", r"12\.0"], "zh": [r"V100、TITAN V", r"7\.5", r"8\.9", r"9\.0", r"12\.0"]},
    ),
    (
        "gpu-generation-features",
        {"en": "Settings for older cards: V100, T4, P100 and P40", "zh": "老显卡怎么设置：V100、T4、P100 与 P40"},
        {"en": [r"--dtype half", r"compute capability 7\.0 or higher", r"sdpa"], "zh": [r"--dtype half", r"计算能力 7\.0 及以上", r"sdpa"]},
    ),
    (
        "gpus-in-containers",
        {"en": "Tools that start containers themselves: make nvidia the default runtime", "zh": "自己启动容器的工具：把 nvidia 设为默认运行时"},
        {"en": [r"--set-as-default", r"default-runtime", r"daemon\.json"], "zh": [r"--set-as-default", r"default-runtime", r"daemon\.json"]},
    ),
    (
        "gpus-in-containers",
        {"en": "Time-slicing and MPS replicas: sharing a GPU without isolation", "zh": "时间片与 MPS 副本：共享 GPU 但没有隔离"},
        {"en": [r"same fault domain", r"all of the GPU's memory", r"MIG"], "zh": [r"同一个故障域", r"整张卡的显存", r"MIG"]},
    ),
    (
        "nccl-env-multi-nic",
        {"en": "RDMA devices: NCCL_IB_HCA, NCCL_IB_GID_INDEX and NCCL_IB_DISABLE", "zh": "RDMA 设备：NCCL_IB_HCA、NCCL_IB_GID_INDEX 与 NCCL_IB_DISABLE"},
        {"en": [r"since NCCL 2\.21", r"default is -1", r"\^mlx5_4", r"TCP sockets"], "zh": [r"从 NCCL 2\.21 起默认值为 -1", r"\^mlx5_4", r"TCP socket"]},
    ),
    (
        "training-memory-fit",
        {"en": "Data parallelism copies the model; it does not pool GPU memory", "zh": "数据并行是复制模型，不会把显存合在一起"},
        {"en": [r"full copy", r"more GPUs add throughput, not room"], "zh": [r"完整的权重", r"加卡只增加吞吐，不增加空间"]},
    ),
    (
        "training-memory-fit",
        {"en": "CPU offload needs host RAM, and exit code -9 means the host ran out", "zh": "CPU 卸载需要主机内存，退出码 -9 表示主机内存耗尽"},
        {"en": [r"exitcode: -9", r"SIGKILL", r"137", r"dmesg"], "zh": [r"exitcode: -9", r"SIGKILL", r"137", r"dmesg"]},
    ),
    (
        "datasheet-numbers",
        {"en": "Datasheet figures that count double: sparse TFLOPS and two-way NVLink", "zh": "数据手册上翻倍计算的数字：稀疏 TFLOPS 与双向 NVLink"},
        {"en": [r"989\.5 dense", r"2:4", r"450 GB/s"], "zh": [r"稠密 989\.5", r"2:4", r"450 GB/s"]},
    ),
    (
        "datasheet-numbers",
        {"en": "GeForce tensor rates: FP16 with FP32 accumulate runs at half speed", "zh": "GeForce 的 Tensor 速率：FP32 累加的 FP16 只有一半速度"},
        {"en": [r"165\.2", r"330\.3", r"FP32 accumulat"], "zh": [r"165\.2", r"330\.3", r"FP32 累加"]},
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


NEW_TOPICS = {
    "serving-engine-memory",
    "serving-tp-vs-replicas",
    "gpu-generation-features",
    "gpus-in-containers",
    "nccl-env-multi-nic",
    "training-memory-fit",
    "datasheet-numbers",
}


@pytest.mark.parametrize("doc_id", sorted({row[0] for row in SECTION_FACTS} | NEW_TOPICS))
def test_topic_exists_in_both_languages_with_the_same_sections(documents, doc_id) -> None:
    en, zh = documents[(doc_id, "en")], documents[(doc_id, "zh")]
    assert len(en.sections) == len(zh.sections), f"{doc_id}: en and zh differ in section count"
    english_words = re.compile(r"\b(?:the|and|with|which|because)\b")
    prose = re.sub(r"`[^`]*`|```.*?```|\([^)]*[A-Za-z]{4,}[^)]*\)", "", zh.body, flags=re.S)
    assert not english_words.search(prose), f"{doc_id} (zh) contains English prose"
