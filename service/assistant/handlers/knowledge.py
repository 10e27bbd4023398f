"""Knowledge answers: FAQ from cited chunks, the pre-flight checklist, small talk and the scope notice."""

from __future__ import annotations

import re

from service.assistant.compose import extract
from service.assistant.compose.faq_answer import compose_faq
from service.assistant.compose.fmt import num
from service.assistant.compose.work import assumptions
from service.assistant.handlers.base import Context, Draft
from service.contract import BulletsBlock, ChecklistBlock, ChecklistStep, LeadBlock, ParagraphBlock

FOLLOW_UPS = {
    "reliability": (["How often should I checkpoint a large job?", "How do I resume training from a checkpoint?"], ["大模型训练多久保存一次检查点合适？", "怎么从检查点恢复训练？"]),
    "utilization": (["How do I find a data-loading bottleneck?", "What does DCGM show that nvidia-smi does not?"], ["怎么定位数据加载瓶颈？", "DCGM 比 nvidia-smi 多看到什么？"]),
    "memory": (["How much memory does my fine-tune need?", "ZeRO-3 or FSDP: which should I use?"], ["我的微调需要多少显存？", "ZeRO-3 和 FSDP 该选哪个？"]),
    "networking": (["What busbw should nccl-tests show on my GPUs?", "Is RoCE good enough instead of InfiniBand?"], ["我的机器 nccl-tests 应该跑到多少 busbw？", "RoCE 能替代 InfiniBand 吗？"]),
    "cost": (["At what utilization does buying GPUs pay off?", "What would my training run cost in the cloud?"], ["利用率多高时自建更划算？", "我的训练在云上要花多少钱？"]),
}
DEFAULT_FOLLOW_UPS = (["What configuration does my workload need?", "What should I check before a training run?"], ["我的任务需要什么配置？", "训练前需要检查哪些项目？"])


def follow_ups_for(ctx: Context, hits: list) -> list[str]:
    for hit in hits:
        for topic in hit.topics:
            if topic in FOLLOW_UPS:
                en, zh = FOLLOW_UPS[topic]
                return list(zh if ctx.lang == "zh" else en)
    en, zh = DEFAULT_FOLLOW_UPS
    return list(zh if ctx.lang == "zh" else en)


def faq(ctx: Context) -> Draft:
    hits = ctx.retrieve(k=5)
    if not hits:
        return Draft(blocks=[LeadBlock(text=ctx.t("I could not find this in the knowledge base. Could you rephrase, or name the GPU, model or tool you are asking about?",
                                "知识库里没有找到相关内容。能否换个说法，或说明具体的 GPU、模型或工具？"))], show_sources=False)
    # The sentences that answer the question, across the top sections (compose/faq_answer.py); a follow-up
    # ("Slurm 上呢？") is read together with the question it follows, as retrieval read it.
    question = f"{ctx.understanding.context} {ctx.text}" if ctx.understanding.context else ctx.text
    answer = compose_faq(question, ctx.lang, hits, getattr(ctx.index, "embed", None), skip=extract.INJECTION.search)
    if answer.lead:
        blocks: list = [LeadBlock(text=answer.lead)]
        if answer.points:
            blocks.append(BulletsBlock(items=answer.points))
        return Draft(blocks=blocks, hits=answer.cited_hits, follow_ups=follow_ups_for(ctx, answer.cited_hits))
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=6, headings=[h.heading for h in hits])
    lead = ctx.t(f"**{hits[0].heading or hits[0].title}** — from the knowledge base:", f"**{hits[0].heading or hits[0].title}** —— 知识库中的要点：")
    points, cited = extract.cite(passages, hits)
    return Draft(blocks=[LeadBlock(text=lead), *points], hits=cited, follow_ups=follow_ups_for(ctx, cited))


def preflight(ctx: Context) -> Draft:
    s = ctx.slots
    gpu_id = s.gpu or "h100-sxm"
    gpus = s.gpus or 8
    per_node = min(gpus, 8)
    assumed = []
    if not s.gpu:
        assumed.append(ctx.t("GPU assumed: H100 SXM (say which GPUs you have)", "默认按 H100 SXM 计算（请告诉我您的 GPU 型号）"))
    if not s.gpus:
        assumed.append(ctx.t("one 8-GPU node assumed", "默认按单节点 8 卡计算"))
    nccl = ctx.run("nccl-expected", {"gpu": gpu_id, "gpus": max(gpus, 2), "gpus_per_node": per_node})
    ckpt = ctx.run("checkpoint", {"model": s.model, "params_b": s.params_b, "gpus": gpus}) if (s.model or s.params_b) else None
    hits = ctx.retrieve(ctx.t("pre-deployment checks before a training run: nccl-tests, fio, monitoring, checkpoints",
                              "训练部署前检查：CUDA 兼容性、nccl-tests、fio、监控、检查点备份"), k=3)
    band = nccl.expected_busbw_gbps
    gpu_name = ctx.catalog.gpus[nccl.gpu].name
    steps = [
        ChecklistStep(text=ctx.t("**Driver, CUDA and framework agree**", "**驱动、CUDA 与框架版本一致**"), commands=[
            "nvidia-smi", "nvcc --version", "pip show torch", "python -c \"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())\""]),
        ChecklistStep(text=ctx.t(
            f"**GPU-to-GPU bandwidth**: on {gpu_name} over {nccl.fabric}, all_reduce busbw at large sizes should reach about {num(band.typical)} GB/s; below {num(band.low)} GB/s, investigate.",
            f"**卡间带宽**：{gpu_name}（{nccl.fabric}）上 all_reduce 大消息的 busbw 应达到约 {num(band.typical)} GB/s；低于 {num(band.low)} GB/s 需要排查。"),
            commands=["nvidia-smi topo -m", f"./build/all_reduce_perf -b 8 -e 8G -f 2 -g {per_node}"]),
        ChecklistStep(text=ctx.t("**Small-file random reads (IOPS)** on the training data volume:", "**存储的小文件随机读（IOPS）**："), commands=[
            "fio --name=randread --directory=/data --rw=randread --bs=4k --size=1G --numjobs=16 --iodepth=32 --ioengine=libaio --direct=1 --group_reporting"]),
        ChecklistStep(text=ctx.t("**Monitoring and alerts** for utilisation, memory, temperature, ECC/Xid:", "**监控告警**：利用率、显存、温度、ECC/Xid："),
                      commands=["nvidia-smi dmon -s pucvmet", "dcgmi diag -r 3"]),
    ]
    if ckpt is not None:
        steps.append(ChecklistStep(text=ctx.t(
            f"**Checkpoints and backups**: a full checkpoint is about {num(ckpt.size_gb)} GB; save every {num(ckpt.optimal_interval_minutes)} minutes and keep copies off the cluster.",
            f"**检查点与备份**：完整检查点约 {num(ckpt.size_gb)} GB；建议每 {num(ckpt.optimal_interval_minutes)} 分钟保存一次，并在集群外保留副本。")))
    else:
        steps.append(ChecklistStep(text=ctx.t(
            "**Checkpoints and backups**: save model, optimizer, scheduler and data-loader state on a schedule and copy them off the cluster.",
            "**检查点与备份**：定期保存模型、优化器、学习率调度器和数据加载状态，并复制到集群之外。")))
    blocks = [LeadBlock(text=ctx.t("**Pre-flight checklist** before you start training:", "**训练前检查清单**：")), *assumptions(["; ".join(assumed)] if assumed else []),
              ChecklistBlock(steps=steps)]
    draft = Draft(blocks=blocks, hits=hits, works=[("nccl-expected", nccl.work)], follow_ups=[
        ctx.t("My nccl-tests busbw is low, what is wrong?", "nccl-tests 的 busbw 偏低是什么原因？"),
        ctx.t("How often should I checkpoint?", "多久保存一次检查点合适？"),
    ])
    if ckpt is not None:
        draft.works.append(("checkpoint", ckpt.work))
    if "acceptance_test" in ctx.understanding.evidence:
        _answer_the_test_asked(ctx, draft)
    return draft


def _answer_the_test_asked(ctx: Context, draft: Draft) -> None:
    """A question about one acceptance test (gpu-burn for how long, ib_write_bw per NIC) gets the knowledge about it
    right after the lead, before the general checklist; its passages are cited first."""
    hits = ctx.retrieve(k=4, topics=["preflight", "gpu-health", "networking"]) or ctx.retrieve(k=4)
    if not hits:
        return
    answer = compose_faq(ctx.text, ctx.lang, hits, getattr(ctx.index, "embed", None), skip=extract.INJECTION.search, max_points=3)
    if not answer.lead:
        return
    cited = answer.cited_hits
    draft.blocks[1:1] = [ParagraphBlock(text=answer.lead), *([BulletsBlock(items=answer.points)] if answer.points else [])]
    draft.hits = [*cited, *(h for h in draft.hits if h not in cited)]


THANKS = re.compile(r"thank|thx|谢谢|多谢|感谢|帮大忙", re.I)


def smalltalk(ctx: Context) -> Draft:
    if THANKS.search(ctx.text):
        return Draft(blocks=[LeadBlock(text=ctx.t("You're welcome! Ask any time about GPUs, sizing, costs or troubleshooting.",
                                                  "不客气！关于 GPU 选型、资源估算、成本或故障排查，随时来问。"))], show_sources=False,
                     follow_ups=[ctx.t("What should I check before a training run?", "训练前需要检查哪些项目？")])
    return Draft(blocks=[LeadBlock(text=ctx.t(
        "Hello! I help plan AI-training infrastructure: which GPUs and how many, cloud or on-prem, memory/time/cost estimates, and troubleshooting (low utilisation, NCCL, outages). Every figure I give comes from a sizing tool or a cited source. Try: “How many A100 80GB do I need to fully fine-tune Qwen-14B within a day?”",
        "您好！我可以帮您规划 AI 训练基础设施：选什么 GPU、要几张、上云还是自建，估算显存/时间/费用，并排查利用率低、NCCL 通信、训练中断等问题。我给出的每个数字都来自计算工具或有出处的资料。可以试试问：“Qwen-14B 全参微调一天内完成需要几张 A100 80G？”"))],
        show_sources=False, follow_ups=[ctx.t("What should I check before a training run?", "训练前需要检查哪些项目？"),
                                        ctx.t("Should we rent GPUs or buy them?", "GPU 是租还是买划算？")])


def out_of_scope(ctx: Context) -> Draft:
    return Draft(blocks=[LeadBlock(text=ctx.t(
        "Sorry, that is outside what I can help with. I answer questions about AI-training infrastructure: GPUs, clusters, cloud vs on-prem, sizing, costs and troubleshooting.",
        "抱歉，这超出了我能回答的范围。我专注于 AI 训练基础设施：GPU 选型、集群、上云还是自建、资源估算、成本与故障排查。"))],
        show_sources=False, follow_ups=[ctx.t("Which GPUs do I need to fine-tune a 7B model?", "微调一个 7B 模型需要什么 GPU？")])
