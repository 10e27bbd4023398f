"""Spec cards: one English and one Chinese document per GPU and per cloud instance type.

Cards are generated from the catalog at ingest time so a question like
"H100 SXM 的显存带宽是多少？" finds the figures in the same index as the
written documents. Every figure is spelled out with its unit, and throughput
says whether it is dense or "with 2:4 structured sparsity". The catalog's
free-text notes are English, so only the English cards carry them: English
sentences inside a Chinese card would match English questions filtered to Chinese.

Like written documents, each card section declares the questions it answers
(CARD_QUESTIONS, filled with the entry's name), so a spec question meets a
question vector of the card as well as the written sections' questions.
"""

from __future__ import annotations

from collections.abc import Iterator

from service.catalog import Catalog, GpuSpec, InstanceType, normalize
from service.retrieval.documents import KnowledgeDocument, Section

VENDORS = {"nvidia": ("NVIDIA", "英伟达"), "amd": ("AMD", "AMD"), "huawei": ("Huawei", "华为")}
PROVIDERS = {
    "aws": ("AWS", "亚马逊云 AWS"),
    "gcp": ("Google Cloud", "谷歌云"),
    "azure": ("Microsoft Azure", "微软 Azure"),
    "tencent": ("Tencent Cloud", "腾讯云"),
    "alibaba": ("Alibaba Cloud", "阿里云"),
    "lambda": ("Lambda", "Lambda"),
    "other": ("another provider", "其他云厂商"),
}
RDMA = {
    "none": ("no RDMA (plain TCP networking)", "不支持 RDMA（普通 TCP 网络）"),
    "efa": ("RDMA over AWS Elastic Fabric Adapter (EFA)", "AWS EFA（Elastic Fabric Adapter）RDMA"),
    "infiniband": ("InfiniBand RDMA", "InfiniBand RDMA"),
    "roce": ("RoCE (RDMA over Converged Ethernet)", "RoCE（基于以太网的 RDMA）"),
    "gpudirect-tcpx": ("GPUDirect-TCPX (GPU-direct networking over TCP)", "GPUDirect-TCPX（基于 TCP 的 GPU 直通网络）"),
}
# Per card section heading: questions it answers, "{name}" being the entry's display name.
CARD_QUESTIONS: dict[str, tuple[str, ...]] = {
    "Memory": ("How much memory does the {name} have?", "What is the memory bandwidth of the {name}?", "{name} VRAM size and bandwidth"),
    "Compute throughput, dense and sparse": (
        "How many TFLOPS does the {name} deliver in BF16?", "{name} dense vs sparse FP16 and FP8 throughput",
        "Does the {name} support FP8?",
    ),
    "Interconnect and power": ("How fast is NVLink on the {name}?", "What is the TDP of the {name}?", "{name} PCIe generation and interconnect"),
    "Cloud instances": ("Which cloud instances have the {name}?", "Where can I rent the {name}?", "{name} instance types in the cloud"),
    "Hardware": ("How many GPUs does {name} have?", "{name} vCPUs, RAM and local NVMe", "What network bandwidth and RDMA does {name} have?"),
    "Price": ("How much does {name} cost per hour?", "{name} on-demand and spot price", "{name} price per GPU-hour"),
    "显存": ("{name} 显存多大？", "{name} 显存带宽是多少？", "{name} 的显存容量和带宽"),
    "算力（稠密与稀疏）": ("{name} 的 BF16 算力是多少 TFLOPS？", "{name} 稠密和稀疏算力分别多少", "{name} 支持 FP8 吗？"),
    "互联与功耗": ("{name} 的 NVLink 带宽多快？", "{name} 功耗 TDP 多少瓦？", "{name} 的 PCIe 代数和卡间互联"),
    "云实例": ("哪些云实例配备 {name}？", "在哪里能租到 {name}？", "{name} 对应的云服务器机型"),
    "硬件配置": ("{name} 有几张 GPU？", "{name} 的 CPU、内存和本地盘配置", "{name} 网络带宽多少，支持 RDMA 吗？"),
    "价格": ("{name} 每小时多少钱？", "{name} 按需和竞价价格", "{name} 每卡每小时价格"),
}  # fmt: skip
FORM_FACTORS = {"sxm": "SXM", "pcie": "PCIe", "oam": "OAM", "mezzanine": "mezzanine", "nvl": "NVL"}
FORM_FACTORS_ZH = {**FORM_FACTORS, "mezzanine": "夹层板"}
CONFIDENCE_ZH = {"high": "高", "medium": "中", "low": "低"}


def gpu_card_id(gpu: GpuSpec) -> str:
    return f"gpu-{gpu.id}"


def instance_card_id(instance: InstanceType) -> str:
    return f"instance-{instance.id}"


def spec_cards(catalog: Catalog) -> list[KnowledgeDocument]:
    cards: list[KnowledgeDocument] = []
    for gpu in catalog.gpus.values():
        instances = catalog.instances_for(gpu.id)
        name = _gpu_name(gpu)
        cards.append(_card(gpu_card_id(gpu), "en", f"{name} specifications", gpu, _gpu_en(gpu, instances), name))
        cards.append(_card(gpu_card_id(gpu), "zh", f"{name} 规格参数", gpu, _gpu_zh(gpu, instances), name))
    for inst in catalog.instances.values():
        gpu = catalog.gpus[inst.gpu]
        en, zh = _inst_name(inst), _inst_name(inst, zh=True)
        cards.append(_card(instance_card_id(inst), "en", f"{en} cloud instance specifications", inst, _inst_en(inst, gpu), en))
        cards.append(_card(instance_card_id(inst), "zh", f"{zh} 云实例规格", inst, _inst_zh(inst, gpu), zh))
    return cards


def _card(card_id: str, language: str, title: str, entry: GpuSpec | InstanceType, lines: Iterator[str], display: str) -> KnowledgeDocument:
    names = tuple(dict.fromkeys(filter(None, (normalize(n) for n in (entry.id, entry.name, *entry.aliases)))))
    body = "\n".join(lines)
    first = {"title": entry.sources[0].title, "url": entry.sources[0].url}
    sections = tuple(
        Section(heading=h, source=first, questions=tuple(q.format(name=display) for q in CARD_QUESTIONS[h]))
        for h in (line[3:].strip() for line in body.splitlines() if line.startswith("## "))
        if h in CARD_QUESTIONS
    )
    return KnowledgeDocument(
        id=card_id,
        language=language,
        title=title,
        topics=("hardware",),
        sources=tuple({"title": s.title, "url": s.url} for s in entry.sources),
        body=body,
        last_reviewed=entry.checked,
        kind="card",
        names=names,
        sections=sections,
    )


def _num(value: float) -> str:
    """1979.0 -> '1979', 3.35 -> '3.35': figures as people write them, no thousands separators."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _gpu_name(gpu: GpuSpec) -> str:
    vendor = VENDORS[gpu.vendor][0]
    return gpu.name if gpu.name.lower().startswith(vendor.lower()) else f"{vendor} {gpu.name}"


def _inst_name(inst: InstanceType, zh: bool = False) -> str:
    """'AWS p5.48xlarge'; Chinese cards use the Chinese provider name ('阿里云 ecs.gn8v.4xlarge')."""
    return inst.name if inst.provider == "other" else f"{PROVIDERS[inst.provider][int(zh)]} {inst.name}"


def _also(aliases: list[str], en: bool) -> str:
    if not aliases:
        return ""
    return f" (also written {', '.join(aliases)})" if en else f"（也写作 {'、'.join(aliases)}）"


def _gpu_en(gpu: GpuSpec, instances: list[InstanceType]) -> Iterator[str]:
    name = _gpu_name(gpu)
    use = (
        "a datacenter GPU for training"
        if gpu.training_class == "datacenter"
        else "an entry-class GPU sold for inference and light fine-tuning"
    )
    yield f"{name}{_also(gpu.aliases, True)} is {use}: {gpu.architecture} architecture, {FORM_FACTORS[gpu.form_factor]} form factor."
    if gpu.notes:
        yield f"Notes: {gpu.notes}"
    yield f"Figures checked {gpu.checked.isoformat()}, confidence {gpu.confidence}."
    yield "\n## Memory\n"
    yield f"- GPU memory (VRAM): {_num(gpu.memory_gb)} GB of {gpu.memory_type}."
    yield f"- Memory bandwidth: {_num(gpu.memory_bandwidth_gbps)} GB/s ({_num(gpu.memory_bandwidth_gbps / 1000)} TB/s)."
    yield "\n## Compute throughput, dense and sparse\n"
    if gpu.has_tensor_cores:
        yield f"- FP16 tensor throughput, dense (no sparsity): {_num(gpu.fp16_dense_tflops)} TFLOPS."
    else:
        yield f"- FP16 throughput, dense (no tensor cores on {gpu.architecture}): {_num(gpu.fp16_dense_tflops)} TFLOPS."
    if gpu.bf16_dense_tflops:
        yield f"- BF16 tensor throughput, dense: {_num(gpu.bf16_dense_tflops)} TFLOPS."
    if gpu.tf32_dense_tflops:
        yield f"- TF32 tensor throughput, dense: {_num(gpu.tf32_dense_tflops)} TFLOPS."
    if gpu.fp8_dense_tflops:
        yield f"- FP8 tensor throughput, dense: {_num(gpu.fp8_dense_tflops)} TFLOPS."
    if gpu.int8_dense_tops:
        kind = "tensor throughput" if gpu.has_tensor_cores else "throughput (DP4A on CUDA cores)"
        yield f"- INT8 {kind}, dense: {_num(gpu.int8_dense_tops)} TOPS."
    if gpu.fp32_tflops:
        yield f"- FP32 on CUDA cores (non-tensor, never sparse): {_num(gpu.fp32_tflops)} TFLOPS."
    if gpu.sparse_fp16_tflops:
        yield f"- FP16 with 2:4 structured sparsity (vendor's sparse figure, not reached by dense training): {_num(gpu.sparse_fp16_tflops)} TFLOPS."
    if gpu.sparse_fp8_tflops:
        yield f"- FP8 with 2:4 structured sparsity (sparse figure): {_num(gpu.sparse_fp8_tflops)} TFLOPS."
    yield f"- Precision support: BF16 {'yes' if gpu.supports_bf16 else 'no'}, FP8 {'yes' if gpu.supports_fp8 else 'no'}."
    if not gpu.supports_flash_attention_2:
        yield f"- FlashAttention-2: not supported on {gpu.architecture} (it needs Ampere or newer)."
    yield "\n## Interconnect and power\n"
    if gpu.scale_up:
        link = gpu.scale_up
        yield (
            f"- GPU-to-GPU interconnect: {link.name}, {_num(link.bandwidth_gbps_bidir)} GB/s per GPU in both directions combined "
            f"({_num(link.bandwidth_gbps_per_direction)} GB/s each direction), up to {link.max_gpus} GPUs per domain."
        )
    else:
        yield "- GPU-to-GPU interconnect: none; GPUs talk over PCIe."
    yield f"- Host interface: PCIe Gen {gpu.pcie_gen}, {_num(gpu.pcie_gbps_per_direction)} GB/s each direction."
    yield f"- Power: TDP (board power) {_num(gpu.tdp_w)} W."
    if instances:
        yield "\n## Cloud instances\n"
        yield "Cloud instance types with this GPU: " + ", ".join(f"{_inst_name(i)} ({i.gpu_count} GPUs)" for i in instances) + "."


def _gpu_zh(gpu: GpuSpec, instances: list[InstanceType]) -> Iterator[str]:
    name = _gpu_name(gpu)
    use = "面向训练的数据中心 GPU" if gpu.training_class == "datacenter" else "入门级 GPU，主要用于推理和轻量微调"
    yield f"{name}{_also(gpu.aliases, False)}是{VENDORS[gpu.vendor][1]}的{use}，{gpu.architecture} 架构，{FORM_FACTORS_ZH[gpu.form_factor]} 形态。"
    yield f"数据核对日期 {gpu.checked.isoformat()}，可信度{CONFIDENCE_ZH.get(gpu.confidence, gpu.confidence)}。"
    yield "\n## 显存\n"
    yield f"- 显存容量：{_num(gpu.memory_gb)} GB {gpu.memory_type}。"
    yield f"- 显存带宽：{_num(gpu.memory_bandwidth_gbps)} GB/s（{_num(gpu.memory_bandwidth_gbps / 1000)} TB/s）。"
    yield "\n## 算力（稠密与稀疏）\n"
    if gpu.has_tensor_cores:
        yield f"- FP16 Tensor 算力（稠密，不含稀疏）：{_num(gpu.fp16_dense_tflops)} TFLOPS。"
    else:
        yield f"- FP16 算力（稠密；{gpu.architecture} 没有 Tensor Core）：{_num(gpu.fp16_dense_tflops)} TFLOPS。"
    if gpu.bf16_dense_tflops:
        yield f"- BF16 Tensor 算力（稠密）：{_num(gpu.bf16_dense_tflops)} TFLOPS。"
    if gpu.tf32_dense_tflops:
        yield f"- TF32 Tensor 算力（稠密）：{_num(gpu.tf32_dense_tflops)} TFLOPS。"
    if gpu.fp8_dense_tflops:
        yield f"- FP8 Tensor 算力（稠密）：{_num(gpu.fp8_dense_tflops)} TFLOPS。"
    if gpu.int8_dense_tops:
        kind = "Tensor 算力" if gpu.has_tensor_cores else "算力（CUDA 核心 DP4A）"
        yield f"- INT8 {kind}（稠密）：{_num(gpu.int8_dense_tops)} TOPS。"
    if gpu.fp32_tflops:
        yield f"- FP32 CUDA 核心算力（非 Tensor，无稀疏）：{_num(gpu.fp32_tflops)} TFLOPS。"
    if gpu.sparse_fp16_tflops:
        yield f"- FP16 2:4 结构化稀疏算力（厂商稀疏口径，稠密训练达不到）：{_num(gpu.sparse_fp16_tflops)} TFLOPS。"
    if gpu.sparse_fp8_tflops:
        yield f"- FP8 2:4 结构化稀疏算力（稀疏口径）：{_num(gpu.sparse_fp8_tflops)} TFLOPS。"
    yield f"- 精度支持：BF16 {'支持' if gpu.supports_bf16 else '不支持'}，FP8 {'支持' if gpu.supports_fp8 else '不支持'}。"
    if not gpu.supports_flash_attention_2:
        yield f"- FlashAttention-2：{gpu.architecture} 架构不支持（需要 Ampere 或更新的架构）。"
    yield "\n## 互联与功耗\n"
    if gpu.scale_up:
        link = gpu.scale_up
        yield (
            # The product name without its English gloss ("NVLink bridge (3rd gen, pairs of cards)" -> "NVLink bridge").
            f"- GPU 间互联：{link.name.split(' (')[0]}，每卡双向合计 {_num(link.bandwidth_gbps_bidir)} GB/s"
            f"（单向 {_num(link.bandwidth_gbps_per_direction)} GB/s），一个互联域最多 {link.max_gpus} 张卡。"
        )
    else:
        yield "- GPU 间互联：无专用互联，卡间通信走 PCIe。"
    yield f"- 主机接口：PCIe Gen {gpu.pcie_gen}，单向 {_num(gpu.pcie_gbps_per_direction)} GB/s。"
    yield f"- 功耗：TDP（整卡功耗）{_num(gpu.tdp_w)} W。"
    if instances:
        yield "\n## 云实例\n"
        yield "搭载该 GPU 的云实例：" + "、".join(f"{_inst_name(i, zh=True)}（{i.gpu_count} 张卡）" for i in instances) + "。"


def _price_lines(inst: InstanceType, en: bool) -> Iterator[str]:
    price = inst.price
    unit = f"{price.currency}/hour" if en else f"{price.currency}/小时"
    per_gpu = _num(price.on_demand_per_hour / inst.gpu_count)
    if en:
        yield (
            f"- On-demand price: {_num(price.on_demand_per_hour)} {unit} for the whole instance "
            f"({per_gpu} {price.currency} per GPU-hour), region {price.region}, as of {price.as_of.isoformat()}."
        )
    else:
        yield (
            f"- 按需价格：整机 {_num(price.on_demand_per_hour)} {unit}（每卡每小时 {per_gpu} {price.currency}），"
            f"区域 {price.region}，价格日期 {price.as_of.isoformat()}。"
        )
    if price.spot_per_hour:
        yield f"- Spot price: {_num(price.spot_per_hour)} {unit}." if en else f"- 竞价（Spot）价格：{_num(price.spot_per_hour)} {unit}。"
    if price.reserved_1y_per_hour:
        yield (
            f"- One-year reserved price: {_num(price.reserved_1y_per_hour)} {unit}."
            if en
            else f"- 一年预留价格：{_num(price.reserved_1y_per_hour)} {unit}。"
        )


def _inst_en(inst: InstanceType, gpu: GpuSpec) -> Iterator[str]:
    total_memory = _num(gpu.memory_gb * inst.gpu_count)
    yield (
        f"{_inst_name(inst)}{_also(inst.aliases, True)} is a cloud instance type from {PROVIDERS[inst.provider][0]} "
        f"with {inst.gpu_count} × {_gpu_name(gpu)} GPUs ({total_memory} GB of GPU memory in total)."
    )
    if inst.notes:
        yield f"Notes: {inst.notes}"
    yield f"Figures checked {inst.checked.isoformat()}, confidence {inst.confidence}."
    yield "\n## Hardware\n"
    yield f"- GPUs: {inst.gpu_count} × {_gpu_name(gpu)}, {_num(gpu.memory_gb)} GB each."
    yield f"- CPU: {inst.vcpus} vCPUs."
    yield f"- System memory (RAM): {_num(inst.ram_gb)} GB."
    yield f"- Local NVMe storage: {_num(inst.local_nvme_tb)} TB." if inst.local_nvme_tb else "- Local NVMe storage: none."
    yield f"- Network bandwidth: {_num(inst.network_gbps)} Gbit/s, {RDMA[inst.rdma][0]}."
    yield "\n## Price\n"
    yield from _price_lines(inst, en=True)


def _inst_zh(inst: InstanceType, gpu: GpuSpec) -> Iterator[str]:
    total_memory = _num(gpu.memory_gb * inst.gpu_count)
    yield (
        f"{_inst_name(inst, zh=True)}{_also(inst.aliases, False)}是{PROVIDERS[inst.provider][1]}的云实例类型，"
        f"配备 {inst.gpu_count} 张 {_gpu_name(gpu)} GPU（共 {total_memory} GB 显存）。"
    )
    yield f"数据核对日期 {inst.checked.isoformat()}，可信度{CONFIDENCE_ZH.get(inst.confidence, inst.confidence)}。"
    yield "\n## 硬件配置\n"
    yield f"- GPU：{inst.gpu_count} 张 {_gpu_name(gpu)}，每张 {_num(gpu.memory_gb)} GB 显存。"
    yield f"- CPU：{inst.vcpus} 个 vCPU。"
    yield f"- 内存（RAM）：{_num(inst.ram_gb)} GB。"
    yield f"- 本地 NVMe 存储：{_num(inst.local_nvme_tb)} TB。" if inst.local_nvme_tb else "- 本地 NVMe 存储：无。"
    yield f"- 网络带宽：{_num(inst.network_gbps)} Gbit/s，{RDMA[inst.rdma][1]}。"
    yield "\n## 价格\n"
    yield from _price_lines(inst, en=False)
