"""Advice around a chosen configuration: bottlenecks to warn about, and where to run it (cloud, on-prem, hybrid)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.catalog import Catalog
from service.sizing.cost import BreakEvenRequest, BreakEvenResult, break_even
from service.sizing.memory import TIGHT_ABOVE
from service.sizing.work import Ledger

if TYPE_CHECKING:
    from service.sizing.recommendation import Configuration, Workload, Candidate


def warn_bottlenecks(cand: Candidate, config: Configuration, req: Workload, ledger: Ledger) -> None:
    if cand.gpus > 1 and cand.gpu.scale_up is None and req.task == "inference":
        ledger.warn("pcie_only", f"{cand.gpu.name} has no NVLink: tensor-parallel traffic between its {cand.gpus} GPUs goes over PCIe and adds "
                    "latency to every token; fewer GPUs per replica (quantised weights, more replicas) usually serve faster.",
                    f"{cand.gpu.name} 没有 NVLink：{cand.gpus} 张卡之间的张量并行通信走 PCIe，每个 token 都会多一些延迟；"
                    "每个副本用更少的卡（量化权重、多副本）通常更快。")
    elif cand.gpus > 1 and cand.gpu.scale_up is None:
        ledger.warn("pcie_only", f"{cand.gpu.name} has no NVLink: gradient and ZeRO traffic between its {cand.gpus} GPUs goes over PCIe and will limit scaling.",
                    f"{cand.gpu.name} 没有 NVLink：{cand.gpus} 张卡之间的梯度与 ZeRO 通信走 PCIe，会限制扩展效率。")
    inst = config.instance
    if config.nodes > 1 and inst is not None and config.network.endswith("RDMA: none"):
        ledger.warn("no_rdma", f"{config.nodes} nodes without RDMA (InfiniBand/RoCE/EFA): inter-node all-reduce will be slow.",
                    f"{config.nodes} 个节点之间没有 RDMA（InfiniBand/RoCE/EFA）：跨节点 all-reduce 会很慢。")
    if cand.per_gpu_bytes > TIGHT_ABOVE * cand.gpu.memory_gb * 2**30 * 0.98:
        ledger.warn("memory_tight", "Per-GPU memory is close to the limit; keep micro-batch 1 and expect to tune.",
                    "每卡显存接近上限；请保持 micro-batch 为 1，并预留调参空间。")
    if cand.gpus > 8 and req.task == "fine-tune" and req.method != "full":
        ledger.warn("many_gpus_peft", "Many GPUs for a LoRA/QLoRA job: most of them are there for speed, not memory.",
                    "LoRA/QLoRA 任务用了很多 GPU：主要是为了速度而不是显存。", "info")


def deployment_advice(req: Workload, cand: Candidate, catalog: Catalog, ledger: Ledger) -> tuple[str, str, str, BreakEvenResult | None]:
    be = None
    if req.yearly_utilization is not None:
        ledger.given("yearly_utilization", req.yearly_utilization)
        if catalog.instances_for(cand.gpu.id):
            be = break_even(BreakEvenRequest(gpu=cand.gpu.id, gpus=cand.gpus, utilization=req.yearly_utilization,
                                             currency=req.currency, fx_cny_per_usd=req.fx_cny_per_usd), catalog)
    if req.data_sensitivity == "restricted":
        ledger.given("data_sensitivity", "restricted")
        return ("on-prem", "Your data may not leave your premises: run on-prem (or in a dedicated, compliant region); burst only non-sensitive work to the cloud.",
                "数据不能出域：建议本地部署（或使用专属、合规的区域）；只有非敏感任务才可弹性上云。", be)
    if be is not None and be.break_even_utilization is not None:
        util = req.yearly_utilization
        if util >= be.break_even_utilization:
            return ("on-prem", f"At {util:.0%} yearly utilization, owning is cheaper than renting (break-even at {be.break_even_utilization:.0%}).",
                    f"年利用率 {util:.0%} 时，自建比租用更便宜（盈亏平衡点为 {be.break_even_utilization:.0%}）。", be)
        if util >= be.break_even_utilization - 0.15:
            return ("hybrid", f"Utilization {util:.0%} is near the break-even point ({be.break_even_utilization:.0%}): own the steady baseline, rent the peaks.",
                    f"利用率 {util:.0%} 接近盈亏平衡点（{be.break_even_utilization:.0%}）：稳定负载自建，峰值租用云资源。", be)
        return ("cloud", f"At {util:.0%} yearly utilization renting is cheaper (break-even at {be.break_even_utilization:.0%}).",
                f"年利用率 {util:.0%} 时租用更便宜（盈亏平衡点为 {be.break_even_utilization:.0%}）。", be)
    if be is not None:
        return ("cloud", "Renting stays cheaper than owning at any utilization with these prices.", "按这些价格，无论利用率多高，租用都比自建便宜。", be)
    return ("cloud", "No sustained utilization given: renting avoids capex and lead time; tell me how many hours a year the GPUs would be busy (your yearly utilization) to compare with owning.",
            "未给出持续利用率：租用可避免资本支出和采购周期；告诉我每年预计的 GPU 利用率，即可与自建对比。", None)
