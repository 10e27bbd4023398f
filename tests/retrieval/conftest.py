"""Fixtures for the retrieval tests: the real knowledge base indexed once, and small synthetic ones.

Everything is real: Chroma on disk in tmp dirs, the ONNX embedder, jieba.
"""

from __future__ import annotations

import datetime as dt
import shutil
import textwrap
from pathlib import Path

import pytest

from service.catalog import Catalog, GpuSpec, InstanceType, default_catalog
from service.config import Settings
from service.retrieval import KnowledgeIndex, ingest, open_index

MINIMAL_GPUS_YAML = """\
- id: testgpu-x1
  name: TestGPU X1
  aliases: ["X1"]
  vendor: nvidia
  architecture: Testwell
  form_factor: sxm
  memory_gb: 96
  memory_type: HBM3
  memory_bandwidth_gbps: 4000
  fp16_dense_tflops: 500
  bf16_dense_tflops: 500
  supports_bf16: true
  supports_fp8: false
  pcie_gen: 5
  tdp_w: 600
  sources:
    - title: TestGPU X1 data sheet
      url: https://example.com/x1.pdf
  checked: 2026-01-01
"""


def write_doc(
    root: Path,
    language: str,
    doc_id: str,
    title: str,
    sections: dict[str, str],
    *,
    topics: str = "[memory]",
    intro: str = "",
) -> Path:
    """A valid knowledge document under root/docs/<language>/<doc_id>.md."""
    body = "\n\n".join(f"## {heading}\n\n{text}" for heading, text in sections.items())
    path = root / "docs" / language / f"{doc_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        textwrap.dedent(
            f"""\
            ---
            id: {doc_id}
            title: "{title}"
            language: {language}
            topics: {topics}
            sources:
              - title: Source for {doc_id}
                url: https://example.com/{doc_id}
            last_reviewed: 2026-11-29
            ---

            # {title}

            """
        )
        + (intro + "\n\n" if intro else "")
        + body
        + "\n",
        encoding="utf-8",
    )
    return path


def write_small_knowledge(root: Path) -> Path:
    """Four documents (two topics, both languages) plus a one-GPU catalog."""
    write_doc(
        root, "en", "checkpoints", "Checkpoints and resuming training",
        {
            "Saving state": "A checkpoint stores model weights, optimizer state and the data loader position.",
            "Choosing the interval": "Young's formula balances the time spent saving against work lost to failures.",
        },
        topics="[reliability, storage]",
    )  # fmt: skip
    write_doc(
        root, "zh", "checkpoints", "检查点与断点续训",
        {
            "保存状态": "检查点要保存模型权重、优化器状态和数据加载位置，否则断点续训会重复或跳过数据。",
            "选择间隔": "Young 公式在保存耗时和故障丢失的工作量之间取平衡。",
        },
        topics="[reliability, storage]",
    )  # fmt: skip
    write_doc(
        root, "en", "memory-usage", "What fills GPU memory",
        {
            "Optimizer state": "Adam keeps two moments per parameter plus FP32 master weights: about 16 bytes per parameter.",
            "Activations": "Activation memory grows with batch size and sequence length; recomputation trades compute for memory.",
        },
    )  # fmt: skip
    write_doc(
        root, "zh", "memory-usage", "显存被什么占满",
        {
            "优化器状态": "Adam 优化器每个参数保存两份动量和 FP32 主权重，大约每参数 16 字节。",
            "激活值": "激活值显存随批大小和序列长度增长，激活重计算用算力换显存。",
        },
    )  # fmt: skip
    hardware = root / "hardware"
    hardware.mkdir(parents=True, exist_ok=True)
    (hardware / "gpus.yaml").write_text(MINIMAL_GPUS_YAML, encoding="utf-8")
    for name in ("models.yaml", "instances.yaml", "tiers.yaml"):
        (hardware / name).write_text("[]\n", encoding="utf-8")
    return root


def small_catalog() -> Catalog:
    """One GPU and one instance: enough to render both kinds of spec card."""
    source = [{"title": "Test data sheet", "url": "https://example.com/spec"}]
    gpu = GpuSpec(
        id="testgpu-x1", name="TestGPU X1", aliases=["X1"], vendor="nvidia", architecture="Testwell",
        form_factor="sxm", memory_gb=96, memory_type="HBM3", memory_bandwidth_gbps=4000,
        fp16_dense_tflops=500, bf16_dense_tflops=500, fp8_dense_tflops=1000, sparse_fp16_tflops=1000,
        supports_bf16=True, supports_fp8=True, pcie_gen=5, tdp_w=600, sources=source, checked=dt.date(2026, 1, 1),
        scale_up={"name": "NVLink 4", "bandwidth_gbps_bidir": 900, "max_gpus": 8},
    )  # fmt: skip
    instance = InstanceType(
        id="testcloud-x1.8xl", provider="other", name="x1.8xl", gpu="testgpu-x1", gpu_count=8, vcpus=192,
        ram_gb=2048, local_nvme_tb=30, network_gbps=3200, rdma="infiniband", sources=source,
        checked=dt.date(2026, 1, 1),
        price={"on_demand_per_hour": 80, "currency": "USD", "region": "test-1", "as_of": dt.date(2026, 1, 1)},
    )  # fmt: skip
    return Catalog(gpus={gpu.id: gpu}, models={}, instances={instance.id: instance}, tiers={})


@pytest.fixture
def small_knowledge(tmp_path: Path) -> Path:
    return write_small_knowledge(tmp_path / "knowledge")


@pytest.fixture
def small_settings(tmp_path: Path, small_knowledge: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", knowledge_dir=small_knowledge)


@pytest.fixture(scope="session")
def real_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The packaged knowledge base, copied so the index never sees files change mid-session."""
    from importlib.resources import files

    knowledge = tmp_path_factory.mktemp("real-knowledge") / "knowledge"
    shutil.copytree(str(files("knowledge")), knowledge, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return Settings(data_dir=tmp_path_factory.mktemp("real-index"), knowledge_dir=knowledge)


@pytest.fixture(scope="session")
def real_index(real_settings: Settings) -> KnowledgeIndex:
    """The real knowledge base indexed once per test session."""
    catalog = default_catalog(real_settings.knowledge_dir)
    ingest(real_settings, catalog)
    return open_index(real_settings, catalog)
