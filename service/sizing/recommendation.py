"""What a tier recommendation is made of: the Workload asked about, a candidate configuration and its rental
price, and the Option and Recommendation it becomes; shared by the training search (recommend.py) and the
serving search (recommend_inference.py), so neither imports the other."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.catalog import Catalog, GpuSpec, TierProfile
from service.sizing.base import Method, SizingResult, TrainPrecision
from service.sizing.compute import Band, TrainingTimeResult, WorkloadTokens
from service.sizing.cost import (
    DEFAULT_FX_CNY_PER_USD,
    BreakEvenResult,
    Currency,
    InstancePrice,
    Pricing,
)
from service.sizing.inference import InferenceResult
from service.sizing.job_cost import JobCost, Layout, rent
from service.sizing.memory import TrainingMemoryResult
from service.sizing.work import sig

Tier = Literal["entry", "mid", "production"]
TIER_RANK = {"entry": 0, "mid": 1, "production": 2}
MAX_GPUS = 65_536


class Workload(WorkloadTokens):
    task: Literal["pretrain", "fine-tune", "inference"] = "fine-tune"
    method: Method = "full"
    deadline_hours: float | None = Field(default=None, ge=0.01, le=24 * 365 * 10)
    budget: float | None = Field(default=None, ge=0.01, le=1e12)
    currency: Currency = "USD"
    fx_cny_per_usd: float = Field(default=DEFAULT_FX_CNY_PER_USD, ge=0.01, le=100)
    precision: TrainPrecision | None = None
    data_sensitivity: Literal["public", "internal", "restricted"] = Field(default="internal", description="restricted: data may not leave your premises")
    yearly_utilization: float | None = Field(default=None, ge=0.01, le=1, description="expected share of the year the GPUs stay busy")
    gpu: str | None = Field(default=None, max_length=80, description="pin a GPU type")
    gpus: int | None = Field(default=None, ge=1, le=MAX_GPUS, description="pin a GPU count")
    pricing: Pricing = "on-demand"
    concurrency: int = Field(default=1, ge=1, le=100_000, description="inference: sequences served at once")
    context_len: int | None = Field(default=None, ge=1, le=10_000_000, description="inference: tokens per sequence")
    layout: Layout | None = Field(default=None, description="training: a stated parallel layout; each option's time then comes from the step-time model")


class Configuration(BaseModel):
    model_config = ConfigDict(frozen=True)
    gpu: str
    gpu_name: str
    gpus: int
    nodes: int
    gpus_per_node: int
    instance: InstancePrice | None
    cpu: str
    cpu_cores_per_node: int
    ram_gb_per_node: float
    storage: str
    network: str
    scale_up: str = Field(description="GPU-to-GPU link inside a node")
    precision: str
    sharding: str
    recompute: str
    per_gpu_memory_gib: float
    gpu_memory_gib: float


class Option(BaseModel):
    model_config = ConfigDict(frozen=True)
    label: Literal["recommended", "fastest", "cheapest", "fewest-gpus", "other-gpu"]
    tier: Tier
    configuration: Configuration
    hours: Band | None
    cost: Band | None = Field(description="in the workload currency: low at high MFU")
    cost_per_hour: float | None
    meets_deadline: bool | None
    within_budget: bool | None


class Recommendation(SizingResult):
    tool: Literal["recommend"] = "recommend"
    task: str
    method: str
    model: str
    params_b: float
    tokens: float | None
    currency: Currency
    tier: Tier
    tier_name_en: str
    tier_name_zh: str
    recommended: Option
    alternatives: list[Option]
    deployment: Literal["cloud", "on-prem", "hybrid"]
    deployment_reason_en: str
    deployment_reason_zh: str
    checkpoint_gb: float | None
    memory: TrainingMemoryResult | None = None
    timing: TrainingTimeResult | None = None
    inference: InferenceResult | None = None
    break_even: BreakEvenResult | None = None
    ranking: list[JobCost] = Field(default_factory=list, description="every GPU type sized, cheapest job first (time × GPUs × dated price), "
                                                                     "with spot / reserved rows where the catalog lists them")


@dataclass
class Candidate:
    gpu: GpuSpec
    gpus: int
    precision: str
    sharding: str
    recompute: str
    per_gpu_bytes: float
    hours: Band | None
    price: InstancePrice | None
    time_basis: str = "mfu-band"

    def cost(self, currency_rate: float = 1.0) -> Band | None:
        if self.hours is None or self.price is None:
            return None
        n_inst = math.ceil(self.gpus / self.price.gpu_count)
        hourly = n_inst * self.price.price_per_hour
        return Band(low=sig(hourly * self.hours.low), typical=sig(hourly * self.hours.typical), high=sig(hourly * self.hours.high))

    @property
    def cost_per_hour(self) -> float | None:
        return None if self.price is None else sig(math.ceil(self.gpus / self.price.gpu_count) * self.price.price_per_hour)


def tier_for(gpus: int, gpus_per_node: int = 8) -> Tier:
    if gpus == 1:
        return "entry"
    return "mid" if gpus <= gpus_per_node else "production"


def rental_price(catalog: Catalog, gpu: GpuSpec, gpus: int, pricing: str, currency: str, fx: float) -> InstancePrice | None:
    """The cheapest way to rent `gpus` GPUs that can train together (job_cost.rent: min(gpus, 8) GPUs in one instance,
    RDMA instances for multi-node jobs)."""
    return rent(catalog, gpu.id, gpus, pricing, currency, fx)


# One node needs no inter-node fabric: the tier's InfiniBand line would be gear the plan never uses.
SINGLE_NODE_NETWORK = ("One node: no inter-node fabric needed; GPUs talk over the scale-up link below, clients and storage over the "
                       "data-centre Ethernet (单节点：无需节点间高速网络；卡间走下方的节点内互联，客户端与存储走数据中心以太网)")


def option_of(label: str, cand: Candidate, catalog: Catalog, meets: bool | None, within: bool | None) -> Option:
    per_node = cand.price.gpu_count if cand.price is not None else 8
    tier = tier_for(cand.gpus, max(per_node, 8) if cand.gpus > 1 else 8)
    profile: TierProfile = catalog.tiers[tier]
    nodes = math.ceil(cand.gpus / per_node) if cand.price else math.ceil(cand.gpus / profile.gpus_per_node)
    inst = catalog.instances[cand.price.instance] if cand.price else None
    config = Configuration(
        gpu=cand.gpu.id, gpu_name=cand.gpu.name, gpus=cand.gpus, nodes=nodes, gpus_per_node=min(cand.gpus, per_node if inst else profile.gpus_per_node),
        instance=cand.price, cpu=f"{inst.vcpus} vCPU ({inst.name})" if inst else profile.cpu,
        cpu_cores_per_node=inst.vcpus if inst else profile.cpu_cores_min, ram_gb_per_node=inst.ram_gb if inst else profile.ram_gb,
        storage=profile.storage, network=(f"{inst.network_gbps:g} Gb/s, RDMA: {inst.rdma}" if inst else profile.network if nodes > 1 else SINGLE_NODE_NETWORK),
        scale_up=f"{cand.gpu.scale_up.name}, {cand.gpu.scale_up.bandwidth_gbps_bidir:g} GB/s" if cand.gpu.scale_up else f"PCIe Gen{cand.gpu.pcie_gen}",
        precision=cand.precision, sharding=cand.sharding, recompute=cand.recompute,
        per_gpu_memory_gib=sig(cand.per_gpu_bytes / 2**30), gpu_memory_gib=cand.gpu.memory_gb,
    )
    return Option(label=label, tier=tier, configuration=config, hours=cand.hours, cost=cand.cost(), cost_per_hour=cand.cost_per_hour,
                  meets_deadline=meets, within_budget=within)
