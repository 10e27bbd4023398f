"""FAQ answers built from the real knowledge base state the fact an expert would certainly give on each topic.

The questions are our own wording of ordinary questions (not the section questions, not any evaluation set's), in both
languages. Everything is real: the packaged knowledge base indexed in Chroma, the bundled encoder, jieba, and the FAQ
composer over the top five hits exactly as the knowledge handler calls it. Routing is not tested here (the understanding
tests do that): a question that a channel routes to the FAQ gets this answer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.assistant.compose.faq_answer import compose_faq
from service.catalog import default_catalog
from service.config import Settings
from service.retrieval import KnowledgeIndex, open_index
from service.retrieval.text import query_language
from tests.knowledge.deployment_cases import DEPLOYMENT_CASES
from tests.knowledge.expert_cases import EXPERT_CASES
from tests.knowledge.training_practice_cases import ANSWER_CASES

# (question, facts the answer must state: each a regular expression that must match the lead or a point)
CASES = [
    ("Saving checkpoints freezes our training for several minutes each time. How can we avoid the stall?", [r"asynchronous|async_save"]),
    ("保存checkpoint的时候训练要停好几分钟，有什么办法不阻塞训练？", [r"异步"]),
    ("checkpoint 多久存一次比较合适？怎么根据故障率来定？", [r"√\(2 × C × M"]),
    ("What is the difference between ZeRO stage 1, 2 and 3, and which should I pick?", [r"stage 1 shards the optimizer states", r"parameters"]),
    ("ZeRO-1、ZeRO-2、ZeRO-3 分别切分了什么？该用哪个？", [r"只切分优化器状态", r"参数本身"]),
    ("Why do people keep tensor parallelism within a single server?", [r"NVLink", r"every layer"]),
    ("张量并行为什么不跨节点？", [r"NVLink", r"每一层"]),
    ("When should I use pipeline parallelism instead of tensor parallelism?", [r"pipeline parallelism across nodes|span nodes"]),
    ("流水线并行和张量并行有什么区别，怎么组合使用？", [r"跨节点", r"气泡"]),
    ("Should our new cluster use RoCE or InfiniBand?", [r"PFC", r"ECN"]),
    ("RoCE 和 InfiniBand 怎么选？RoCE 有什么坑？", [r"PFC", r"ECN"]),
    ("Can we run multi-node training on spot instances safely?", [r"two minutes", r"SIGTERM", r"checkpoint"]),
    ("用抢占式实例做多机训练要注意什么？", [r"两分钟", r"SIGTERM", r"checkpoint"]),
    ("How much slower does training get with activation checkpointing?", [r"33%|a third", r"forward"]),
    ("开启激活重计算会慢多少？", [r"33%", r"前向"]),
    ("One rank in our 512-GPU job is slow and drags the whole step. How do we find it?", [r"per-rank step times?"]),
    ("怎么找出训练集群里的慢卡？", [r"每个 rank 的每步耗时"]),
    ("What does a reference design for a 256-GPU training cluster look like?", [r"rail-optimised", r"separate network", r"Lustre"]),
    ("搭一个 256 卡的训练集群，网络和存储架构应该怎么设计？", [r"轨道优化", r"单独的存储网络", r"Lustre"]),
    ("NVLink 和 PCIe 带宽差多少？训练为什么需要 NVLink？", [r"900 GB/s", r"64 GB/s", r"all-reduce"]),
    ("For large-scale training, is AWS, GCP or Azure better?", [r"network between GPU nodes", r"EFA", r"GPUDirect-TCPX"]),
    ("训练大模型选 AWS、GCP 还是 Azure？区别在哪？", [r"节点之间的网络", r"EFA", r"GPUDirect-TCPX"]),
    ("Does INT4 quantization with AWQ or GPTQ hurt model quality much?", [r"little quality|negligible", r"quarter of the memory"]),
    ("INT8 和 FP8 量化在 H100 上哪个好？INT4 量化掉点多吗？", [r"FP8 比 INT8"]),
    ("Our time to first token is terrible with 32k-token prompts. How do we fix it?", [r"(?i)prefix caching", r"prefill"]),
    ("prompt 很长时 TTFT 很高，有什么优化办法？", [r"前缀缓存", r"预填充"]),
    # FSDP against DeepSpeed: the same ZeRO-3 sharding; native PyTorch against a library, and who offloads to NVMe.
    ("Should a team pick PyTorch FSDP or DeepSpeed ZeRO-3?", [r"same sharding idea", r"native to PyTorch", r"NVMe"]),
    ("FSDP 和 DeepSpeed ZeRO-3 有什么区别，该选哪个？", [r"同一种分片思路", r"PyTorch 原生", r"NVMe"]),
    # FP16 without BF16: loss scaling, clipping, learning rate and warmup, FP32 for the sensitive operations.
    ("Training in FP16 on V100 GPUs gives NaN losses. What should I change?", [r"loss scaling", r"clipping", r"learning rate", r"FP32"]),
    ("V100 不支持 BF16，FP16 训练 loss 变成 NaN 怎么办？", [r"loss scaling", r"梯度裁剪", r"学习率", r"FP32"]),
    # Resuming exactly: the state beyond the weights, down to the sampler position.
    ("How do I resume training exactly where it stopped after a crash?", [r"RNG states", r"sampler"]),
    ("断点续训需要保存哪些状态？", [r"随机数", r"sampler", r"学习率调度器"]),
    # INT4 on a large model: small loss, but checked on your own evaluation before production; FP8 as the alternative.
    ("Will quantizing a 70B model to INT4 hurt accuracy much?", [r"own evaluation set", r"FP8"]),
    ("70B 模型量化成 INT4，精度会掉很多吗？", [r"评测集", r"FP8"]),
    # One failure stops a thousand-GPU job: checkpoints, automatic restart, hot spares, health checks.
    (
        "With 1000 GPUs, one GPU failure kills the whole job. How do we make training fault tolerant?",
        [r"asynchronous checkpoints", r"restart", r"hot spare", r"health checks"],
    ),
    ("千卡训练时一张卡坏了整个作业就挂，怎么做容错？", [r"异步 checkpoint", r"自动重启", r"热备节点", r"健康检查"]),
    # Renting for experiments: the platforms named, compared on price class, billing, reliability and data transfer.
    ("Lambda vs RunPod vs AutoDL for cheap experiments?", [r"AutoDL", r"RunPod", r"Lambda", r"price class", r"billed", r"reliab", r"egress"]),
    ("阿里云、AutoDL 和 RunPod 租卡做实验哪个划算？", [r"阿里云", r"AutoDL", r"RunPod", r"价格档次", r"计费", r"可靠性", r"流量|数据进出"]),
    # InfiniBand NDR acceptance: perftest per port at near line rate, then nccl-tests across nodes.
    ("How should we acceptance-test a new NDR 400G InfiniBand fabric?", [r"perftest", r"ib_write_bw", r"370-390 Gb/s", r"nccl-tests"]),
    ("InfiniBand NDR 400G 网络验收怎么测，ib_write_bw 应该跑到多少？", [r"perftest", r"ib_write_bw", r"370-390 Gb/s", r"nccl-tests"]),
]


# Operations topics (issue 7): NCCL over NVLink, GPUDirect RDMA, low MFU, periodic dips, cloud checkpoints, stragglers, ...
OPERATIONS_CASES = [
    ("Is NVLink picked up by NCCL by itself, or is there a flag to set?", [r"automatically"]),
    ("NCCL 需要配置什么才能用上 NVLink？", [r"自动使用 NVLink"]),
    ("What is GPUDirect RDMA good for in a multi-node cluster?", [r"host memory|host \(CPU\) memory"]),
    ("GPUDirect RDMA 有什么作用？", [r"主机（CPU）内存|主机内存"]),
    ("Our step time gets worse every hour for a few minutes, what periodic things should I suspect?", [r"checkpoint", r"garbage|cron"]),
    ("训练每隔一小时就慢几分钟，可能是什么周期性原因", [r"checkpoint", r"垃圾回收|定时任务"]),
    ("Where should a big training job on Google Cloud save its checkpoints?", [r"object storage", r"sharded|asynchronous"]),
    ("云上训练的checkpoint存哪里比较好", [r"对象存储", r"分片|异步"]),
    ("We have a huge folder of small JPEG files and the GPUs starve. What should we do?", [r"WebDataset"]),
    ("海量小图片训练，数据加载太慢怎么办", [r"WebDataset|打包"]),
    ("Which hidden costs come with running our own GPU servers?", [r"cooling", r"staff"]),
    ("自己买 GPU 服务器放机房，有哪些隐藏成本？", [r"制冷", r"运维"]),
    ("Which speculative decoding methods exist and when are they worth it?", [r"EAGLE|Medusa|draft", r"batch"]),
    ("One node keeps slowing the job. How do I test it and get it out of the pool?", [r"dcgmi diag|gpu-burn|DCGM", r"(?i)drain|cordon"]),
]
# Topics added from the tools' own documentation: DDP memory, RoCE GID index, FP16 on pre-Ampere cards,
# containers started by other tools, llama-server slots.
NEW_TOPIC_CASES = [
    ("Does adding more GPUs with DDP let me fit a bigger model?", [r"throughput, not room"]),
    ("用DDP多加几张卡能放下更大的模型吗？", [r"不增加空间"]),
    ("Which NCCL_IB_GID_INDEX should I use on RoCE with a recent NCCL?", [r"2\.21"]),
    ("RoCE 网络上 NCCL_IB_GID_INDEX 现在还需要手动设置吗？", [r"2\.21"]),
    ("vLLM refuses to start on a T4 because of bfloat16, what should I pass?", [r"--dtype half"]),
    ("T4 上跑 vLLM 报 bfloat16 不支持，要加什么参数？", [r"--dtype half"]),
    ("Containers launched by our orchestration tool don't see the GPUs, but docker run --gpus all works.", [r"--set-as-default|default-runtime"]),
    ("我们平台自己拉起的容器里看不到 GPU，手动 docker run --gpus all 却正常", [r"--set-as-default|default-runtime"]),
    ("With llama-server -c 16384 -np 4, how long can each request be?", [r"4,096"]),
    ("llama-server 设 -c 16384 -np 4，每个请求最长多少 token？", [r"4,096"]),
]
CASES += OPERATIONS_CASES + EXPERT_CASES + DEPLOYMENT_CASES + ANSWER_CASES + NEW_TOPIC_CASES


@pytest.fixture(scope="module")
def index(indexed_data_dir: Path, knowledge_copy: Path) -> KnowledgeIndex:
    settings = Settings(data_dir=indexed_data_dir, knowledge_dir=knowledge_copy, environment="test")
    return open_index(settings, default_catalog(knowledge_copy))


@pytest.mark.parametrize(("question", "facts"), CASES, ids=[q[:48] for q, _ in CASES])
def test_the_answer_states_the_key_fact(index: KnowledgeIndex, question: str, facts: list[str]) -> None:
    language = query_language(question)
    hits = index.search(question, k=5, language=language)
    result = compose_faq(question, language, hits, index.embed)
    answer = "\n".join([result.lead, *result.points])
    missing = [fact for fact in facts if not re.search(fact, answer)]
    assert not missing, f"missing {missing} in:\n{answer}"
