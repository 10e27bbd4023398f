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
]


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
