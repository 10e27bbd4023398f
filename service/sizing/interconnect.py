"""Interconnect: ring all-reduce time (α-β model) and the nccl-tests bus bandwidth to expect.

busbw (nccl-tests) = algbw · 2(n−1)/n for all-reduce, so it can be compared
directly with a link's per-direction bandwidth. Latency α is second-order for
large gradient buckets; it matters for small messages.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.catalog import Catalog, GpuSpec
from service.errors import InputConflictError, InputError, Problem
from service.sizing import references as ref
from service.sizing.base import SizingRequest, SizingResult
from service.sizing.compute import Band
from service.sizing.shapes import ceil_div
from service.sizing.work import Ledger, sig

IntraFabric = Literal["nvlink", "pcie"]
InterFabric = Literal["infiniband-hdr", "infiniband-ndr", "infiniband-xdr", "roce-100", "roce-200", "roce-400", "efa", "ethernet-25", "ethernet-100"]


class Fabric(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    gbps_per_direction: float  # GB/s per GPU
    efficiency: float  # fraction of the link NCCL reaches at large messages
    latency_us: float  # α per ring step


# Per-GPU NIC figures assume one NIC per GPU (rail-optimised nodes such as DGX/HGX H100).
INTER_FABRICS: dict[str, Fabric] = {
    "infiniband-hdr": Fabric(name="InfiniBand HDR 200 Gb/s", gbps_per_direction=25.0, efficiency=0.9, latency_us=2.0),
    "infiniband-ndr": Fabric(name="InfiniBand NDR 400 Gb/s", gbps_per_direction=50.0, efficiency=0.9, latency_us=2.0),
    "infiniband-xdr": Fabric(name="InfiniBand XDR 800 Gb/s", gbps_per_direction=100.0, efficiency=0.9, latency_us=2.0),
    "roce-100": Fabric(name="RoCE v2 100 Gb/s", gbps_per_direction=12.5, efficiency=0.85, latency_us=3.0),
    "roce-200": Fabric(name="RoCE v2 200 Gb/s", gbps_per_direction=25.0, efficiency=0.85, latency_us=3.0),
    "roce-400": Fabric(name="RoCE v2 400 Gb/s", gbps_per_direction=50.0, efficiency=0.85, latency_us=3.0),
    "efa": Fabric(name="AWS EFA (p5: 3,200 Gb/s per 8 GPUs)", gbps_per_direction=50.0, efficiency=0.8, latency_us=10.0),
    "ethernet-25": Fabric(name="TCP over 25 GbE (NCCL sockets)", gbps_per_direction=3.125, efficiency=0.5, latency_us=20.0),
    "ethernet-100": Fabric(name="TCP over 100 GbE (NCCL sockets)", gbps_per_direction=12.5, efficiency=0.5, latency_us=20.0),
}
NVLINK_EFFICIENCY, PCIE_EFFICIENCY = 0.8, 0.8
NVLINK_LATENCY_US, PCIE_LATENCY_US = 1.0, 2.0
HEALTHY_AT, BROKEN_BELOW = 0.7, 0.3


class LinkRequest(SizingRequest):
    gpu: str = Field(min_length=1, max_length=80)
    gpus: int = Field(ge=2, le=1_000_000)
    gpus_per_node: int = Field(default=8, ge=1, le=72)
    intra_fabric: IntraFabric | None = Field(default=None, description="default: NVLink when the GPU has it, else PCIe")
    inter_fabric: InterFabric | None = Field(default=None, description="default: InfiniBand NDR when the job spans nodes")
    nic_gbps_per_gpu: float | None = Field(default=None, ge=0.1, le=3200, description="override: network Gbit/s per GPU")


def _intra(gpu: GpuSpec, requested: str | None, ledger: Ledger) -> Fabric:
    kind = ledger.pick("intra_fabric", requested, "nvlink" if gpu.scale_up else "pcie", why="NVLink when the GPU has it")
    if kind == "nvlink":
        if gpu.scale_up is None:
            raise InputConflictError([Problem("intra_fabric", f"{gpu.name} has no NVLink; its GPUs talk over PCIe",
                                              f"{gpu.name} 没有 NVLink，卡间通信走 PCIe", allowed="pcie")])
        bw = ledger.from_catalog("nvlink_gbps_per_direction", gpu.scale_up.bandwidth_gbps_per_direction, "GB/s", f"{gpu.id}: {gpu.scale_up.name} {gpu.scale_up.bandwidth_gbps_bidir:g} GB/s bidirectional")
        return Fabric(name=gpu.scale_up.name, gbps_per_direction=bw, efficiency=NVLINK_EFFICIENCY, latency_us=NVLINK_LATENCY_US)
    bw = ledger.from_catalog("pcie_gbps_per_direction", gpu.pcie_gbps_per_direction, "GB/s", f"{gpu.id}: PCIe Gen{gpu.pcie_gen} x16")
    return Fabric(name=f"PCIe Gen{gpu.pcie_gen} x16", gbps_per_direction=bw, efficiency=PCIE_EFFICIENCY, latency_us=PCIE_LATENCY_US)


def _inter(req: LinkRequest, ledger: Ledger) -> Fabric:
    kind = ledger.pick("inter_fabric", req.inter_fabric, "infiniband-ndr", why="400 Gb/s per GPU, as in DGX/HGX H100 clusters")
    fabric = INTER_FABRICS[kind]
    if req.nic_gbps_per_gpu is not None:
        ledger.given("nic_gbps_per_gpu", req.nic_gbps_per_gpu, "Gb/s")
        fabric = fabric.model_copy(update={"gbps_per_direction": req.nic_gbps_per_gpu / 8})
    return fabric


class Layout(BaseModel):
    model_config = ConfigDict(frozen=True)
    gpu: GpuSpec
    nodes: int
    per_node: int
    intra: Fabric
    inter: Fabric | None
    bottleneck: Fabric  # the slowest hop a ring crosses


def _layout(req: LinkRequest, catalog: Catalog, ledger: Ledger) -> Layout:
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    ledger.given("gpus", req.gpus)
    per_node = ledger.field(req, "gpus_per_node")
    nodes = ceil_div(req.gpus, per_node)
    ledger.derived("nodes", nodes, "", "ceil(gpus / gpus_per_node)")
    intra = _intra(gpu, req.intra_fabric, ledger)
    if nodes == 1:
        if req.inter_fabric is not None:
            ledger.warn("inter_unused", "All GPUs sit in one node; the inter-node fabric is not used.", "所有 GPU 都在同一节点内，不会用到节点间网络。", "info")
        return Layout(gpu=gpu, nodes=1, per_node=req.gpus, intra=intra, inter=None, bottleneck=intra)
    inter = _inter(req, ledger)
    # A ring across nodes runs at the speed of its slowest hop.
    slow = inter if inter.gbps_per_direction * inter.efficiency < intra.gbps_per_direction * intra.efficiency else intra
    return Layout(gpu=gpu, nodes=nodes, per_node=per_node, intra=intra, inter=inter, bottleneck=slow)


class AllReduceRequest(LinkRequest):
    size_mb: float | None = Field(default=None, ge=1e-6, le=10_000_000, description="message size in MB (10^6 bytes)")
    model: str | None = Field(default=None, max_length=120, description="use the model's gradients as the message")
    params_b: float | None = Field(default=None, ge=0.001, le=100_000)
    grad_bytes: float = Field(default=2.0, ge=0.125, le=8, description="bytes per gradient element (2 = bf16)")
    latency_us: float | None = Field(default=None, ge=0, le=10_000, description="override α per ring step")


class AllReduceResult(SizingResult):
    tool: Literal["allreduce"] = "allreduce"
    gpu: str
    gpus: int
    nodes: int
    fabric: str
    size_mb: float
    bus_bandwidth_gbps: float = Field(description="effective per-GPU bandwidth of the slowest hop")
    bandwidth_ms: float
    latency_ms: float
    total_ms: float
    algbw_gbps: float
    latency_share: float
    total_ms_plus_half_us: float = Field(description="the same all-reduce with α raised by 0.5 µs")
    slowdown_from_half_us: float


def allreduce_time(req: AllReduceRequest, catalog: Catalog) -> AllReduceResult:
    ledger = Ledger()
    layout = _layout(req, catalog, ledger)
    gpu, nodes, fabric = layout.gpu, layout.nodes, layout.bottleneck
    size = _message_bytes(req, catalog, ledger)
    n = req.gpus
    # Hierarchical: a ring inside each node, then one ring per rail across nodes.
    outer = layout.inter or layout.intra
    alpha = ledger.pick("latency_us", req.latency_us, outer.latency_us, "µs", f"{outer.name}: α per step (Calculon defaults)") * 1e-6
    intra_steps, inter_steps = (layout.per_node - 1, nodes - 1) if layout.inter else (n - 1, 0)
    intra_alpha = layout.intra.latency_us * 1e-6 if layout.inter else alpha
    eff = ledger.default("efficiency", fabric.efficiency, "", "share of link bandwidth NCCL reaches at large messages")
    bus = fabric.gbps_per_direction * eff
    bw_s = ledger.step("allreduce.bandwidth_term", "2(n−1)/n · S / B_bottleneck", 2 * (n - 1) / n * size / (bus * 1e9), "s")

    def latency(a: float) -> float:
        if layout.inter:
            return 2 * (intra_steps * intra_alpha + inter_steps * a)
        return 2 * intra_steps * a

    lat_s = ledger.step("allreduce.latency_term", "2·((g−1)·α_intra + (nodes−1)·α_inter)" if layout.inter else "2(n−1)·α", latency(alpha), "s")
    total = bw_s + lat_s
    plus = bw_s + latency(alpha + 0.5e-6)
    for c in (ref.NCCL_TESTS, ref.CALCULON):
        ledger.cite(c.title, c.url)
    ledger.assume("ring", "Ring all-reduce (hierarchical across nodes); NCCL's tree/NVLS algorithms have latency growing with log n, so latency here is the worse case.",
                  "按 ring 算法（跨节点分层）计算；NCCL 的 tree/NVLS 算法延迟随 log n 增长，因此这里的延迟是偏保守的估计。")
    return AllReduceResult(
        gpu=gpu.id, gpus=n, nodes=nodes, fabric=fabric.name, size_mb=sig(size / 1e6), bus_bandwidth_gbps=sig(bus),
        bandwidth_ms=sig(bw_s * 1e3), latency_ms=sig(lat_s * 1e3), total_ms=sig(total * 1e3), algbw_gbps=sig(size / total / 1e9),
        latency_share=sig(lat_s / total, 3), total_ms_plus_half_us=sig(plus * 1e3), slowdown_from_half_us=sig(plus / total - 1, 3),
        work=ledger.work(),
    )


def _message_bytes(req: AllReduceRequest, catalog: Catalog, ledger: Ledger) -> float:
    if req.size_mb is not None:
        return ledger.given("size_mb", req.size_mb, "MB") * 1e6
    if req.model or req.params_b:
        params = catalog.model(req.model).params if req.model else req.params_b * 1e9
        if req.model:
            ledger.from_catalog("params", params, "", req.model)
        ledger.field(req, "grad_bytes", "bytes")
        return ledger.step("allreduce.gradient_bytes", "params·grad_bytes", params * req.grad_bytes, "bytes")
    raise InputError([Problem("size_mb", "give size_mb, or a model (its gradients are the message)",
                              "请给出 size_mb（消息大小，MB），或给出模型（以其梯度作为消息）", allowed="size_mb > 0, model, or params_b")])


class NcclCheckRequest(LinkRequest):
    measured_busbw_gbps: float | None = Field(default=None, ge=0.001, le=10_000, description="busbw from all_reduce_perf at large sizes")
    nics_per_node: int | None = Field(default=None, ge=1, le=16, strict=True,
                                      description="network ports per node; default: one per GPU on RDMA fabrics (rail-optimised), one per node on Ethernet")


class NcclCheckResult(SizingResult):
    tool: Literal["nccl-expected"] = "nccl-expected"
    gpu: str
    gpus: int
    nodes: int
    fabric: str
    link_gbps_per_direction: float
    expected_busbw_gbps: Band
    measured_busbw_gbps: float | None = None
    ratio: float | None = None
    verdict: Literal["healthy", "degraded", "broken"] | None = None
    pcie_busbw_gbps: float = Field(description="what the same GPUs reach over PCIe alone")
    effective_gpus: float | None = Field(default=None, description="measured/expected x gpus: how many GPUs' worth of bandwidth is left")
    shortfall: float | None = Field(default=None, description="expected/measured: how many times below the expected busbw the measurement is")


def nccl_expected(req: NcclCheckRequest, catalog: Catalog) -> NcclCheckResult:
    ledger = Ledger()
    layout = _layout(req, catalog, ledger)
    gpu, nodes, fabric = layout.gpu, layout.nodes, layout.bottleneck
    if nodes > 1 and layout.inter is not None:
        # NCCL runs one ring (channel) per NIC in parallel, so across nodes the bus bandwidth is the
        # node's aggregate network bandwidth, capped by the intra-node link: a node with 7 of its 8
        # NICs down falls to an eighth of it, which the single-link figure would hide.
        rdma = (req.inter_fabric or "infiniband-ndr").startswith(("infiniband", "roce", "efa"))
        nics = ledger.field(req, "nics_per_node") if req.nics_per_node else ledger.default(
            "nics_per_node", layout.per_node if rdma else 1, "", "one NIC per GPU on RDMA fabrics (rail-optimised), one per node on Ethernet")
        inter = layout.inter
        network = ledger.step("busbw.network", "NICs per node · per-NIC GB/s · efficiency", nics * inter.gbps_per_direction * inter.efficiency, "GB/s")
        nvlink = layout.intra.gbps_per_direction * layout.intra.efficiency
        typical = ledger.step("busbw.expected", "min(network, intra-node link · efficiency)", min(network, nvlink), "GB/s")
        ceiling = min(nics * inter.gbps_per_direction, layout.intra.gbps_per_direction) * 0.95
    else:
        typical = ledger.step("busbw.expected", "link GB/s per direction · efficiency", fabric.gbps_per_direction * fabric.efficiency, "GB/s")
        ceiling = fabric.gbps_per_direction * 0.95
    band = Band(low=sig(typical * HEALTHY_AT), typical=sig(typical), high=sig(max(ceiling, typical)))
    pcie = gpu.pcie_gbps_per_direction * PCIE_EFFICIENCY
    ledger.cite(ref.NCCL_TESTS.title, ref.NCCL_TESTS.url)
    out: dict = {}
    if req.measured_busbw_gbps is not None:
        measured = ledger.given("measured_busbw_gbps", req.measured_busbw_gbps, "GB/s")
        ratio = measured / typical
        verdict = "healthy" if ratio >= HEALTHY_AT else "degraded" if ratio >= BROKEN_BELOW else "broken"
        out = {"measured_busbw_gbps": measured, "ratio": sig(ratio, 3), "verdict": verdict, "effective_gpus": sig(min(ratio, 1.0) * req.gpus, 3),
               "shortfall": sig(typical / measured, 3) if measured > 0 else None}
        ledger.step("busbw.ratio", "measured / expected", ratio, "")
        over_nvlink = nodes == 1 and gpu.scale_up is not None and fabric.name == gpu.scale_up.name
        if verdict != "healthy" and over_nvlink and measured <= pcie * 1.2:
            ledger.warn("nvlink_down", f"Measured {measured:g} GB/s is PCIe-level ({pcie:.0f} GB/s), not NVLink ({typical:.0f} GB/s): NVLink is not being used — check `nvidia-smi topo -m` and `nvidia-smi nvlink --status`.",
                        f"实测 {measured:g} GB/s 只相当于 PCIe 水平（{pcie:.0f} GB/s），而非 NVLink（{typical:.0f} GB/s）：NVLink 没有生效——请检查 `nvidia-smi topo -m` 和 `nvidia-smi nvlink --status`。", "critical")
        elif verdict != "healthy" and nodes > 1 and measured <= 15:
            ledger.warn("socket_fallback", f"{measured:g} GB/s across nodes is TCP-socket speed: NCCL is probably using NET/Socket instead of RDMA — check NCCL_DEBUG=INFO for 'NET/IB', NCCL_IB_HCA and NCCL_SOCKET_IFNAME.",
                        f"跨节点只有 {measured:g} GB/s，相当于 TCP socket 的速度：NCCL 很可能走的是 NET/Socket 而不是 RDMA——请用 NCCL_DEBUG=INFO 查看是否出现 “NET/IB”，并检查 NCCL_IB_HCA 和 NCCL_SOCKET_IFNAME。", "critical")
        elif verdict == "broken":
            ledger.warn("link_broken", f"Measured bus bandwidth is {ratio:.0%} of expected: a link, NIC or switch port is likely down or misconfigured."
                        + (" Check with NCCL_DEBUG=INFO that every HCA is used (NCCL_IB_HCA, `ibstat`), one NIC per GPU rail." if nodes > 1 else ""),
                        f"实测总线带宽只有预期的 {ratio:.0%}：很可能有链路、网卡或交换机端口故障或配置错误。"
                        + ("请用 NCCL_DEBUG=INFO 确认每块 HCA 网卡都在用（NCCL_IB_HCA、`ibstat`），每张 GPU 对应一条网卡通道（rail）。" if nodes > 1 else ""), "critical")
        elif verdict == "degraded":
            ledger.warn("link_degraded", f"Measured bus bandwidth is {ratio:.0%} of expected: check NCCL_DEBUG=INFO for the transport used, PCIe ACS, and NIC/GPU affinity.",
                        f"实测总线带宽为预期的 {ratio:.0%}：请用 NCCL_DEBUG=INFO 查看实际使用的传输方式，并检查 PCIe ACS 与网卡/GPU 亲和性。")
    return NcclCheckResult(
        gpu=gpu.id, gpus=req.gpus, nodes=nodes, fabric=fabric.name, link_gbps_per_direction=fabric.gbps_per_direction,
        expected_busbw_gbps=band, pcie_busbw_gbps=sig(pcie), work=ledger.work(), **out,
    )
