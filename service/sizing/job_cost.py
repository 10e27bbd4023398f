"""Cost per job: the whole job's validated time × its GPUs × a dated price per GPU-hour, the figure options are ranked by.

    job cost = instances · price per instance-hour · job hours        (low / typical / high with the time's band)

Time: the step-time model when a layout is stated (its band is the held-out p90 error `advisor validate` measures),
else the training-time MFU band (typical, with low/high at the band's ends), or the GPU-hours the caller gives.
Price: the instance the job would rent (min(gpus, 8) GPUs inside one instance, RDMA instances for multi-node jobs),
at the requested pricing; spot and reserved rows stand beside it only where the catalog lists those prices (a default
discount is a guess, not a price, so it never becomes a row of its own). Every row names its instance, region, date
and source in the work. SkyPilot, dstack and Azure's recommender rank by price per hour; a slower card that is cheaper
per hour can cost more per job, and this ranking shows it.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.catalog import Catalog, InstanceType
from service.errors import InputError
from service.sizing.base import SizingRequest
from service.sizing.compute import Band, default_goodput
from service.sizing.prices import InstancePrice, Pricing, cheapest_instance, instance_price, listed
from service.sizing.interconnect import InterFabric
from service.sizing.step_time import StepTimeRequest, step_time
from service.sizing.work import Ledger, sig

TimeBasis = Literal["step-time", "mfu-band", "gpu-hours"]
PRICINGS: tuple[Pricing, ...] = ("on-demand", "spot", "reserved")
# The step-time model's band: its held-out p90 absolute error in `advisor validate` (18.0% on 20 measured runs, 2026-12);
# tests/evaluators/test_validate.py keeps this at or above the measured figure.
STEP_TIME_BAND = 0.18
STEP_TIME_BAND_SOURCE = "advisor validate: step-time held-out p90 absolute error 18.0% (20 measured runs)"


class Layout(SizingRequest):
    """A stated parallel layout (the step-time tool's fields); GPUs, model, tokens and sequence come from the job."""

    tp: int = Field(default=1, ge=1, le=64)
    pp: int = Field(default=1, ge=1, le=512)
    cp: int = Field(default=1, ge=1, le=64)
    virtual_stages: int = Field(default=1, ge=1, le=64)
    micro_batch: int = Field(default=1, ge=1, le=4096)
    global_batch: int | None = Field(default=None, ge=1, le=10_000_000, description="sequences per step")
    grad_accumulation: int | None = Field(default=None, ge=1, le=100_000)
    recompute: Literal["none", "selective", "full"] = "selective"
    sequence_parallel: bool | None = None
    zero_stage: int = Field(default=1, ge=0, le=3)
    flash_attention: bool | None = None
    inter_fabric: InterFabric | None = Field(default=None, description="default: the rented instance's own network")
    tp_comm_overlap: bool = False
    overlap_grad_reduce: bool = True
    framework: Literal["megatron", "pytorch-fsdp"] = "megatron"

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp


class JobPrice(BaseModel):
    """One way to pay for the job: an instance at one pricing, with the job's cost band."""

    model_config = ConfigDict(frozen=True)
    price: InstancePrice
    instances: int
    cost: Band = Field(description="low at the fast end of the time band")


class JobCost(BaseModel):
    """A job on one GPU type: its time band, how that time was found, and its price rows (the requested pricing first)."""

    model_config = ConfigDict(frozen=True)
    gpu: str
    gpus: int
    hours: Band
    time_basis: TimeBasis
    prices: list[JobPrice] = Field(description="the requested pricing first, then spot / reserved where the catalog lists them")

    @property
    def cost(self) -> Band:
        return self.prices[0].cost


def rent(catalog: Catalog, gpu_id: str, gpus: int, pricing: str, currency: str, fx: float, *, listed_only: bool = False) -> InstancePrice | None:
    """The cheapest way to rent `gpus` GPUs that can train together.

    Multi-GPU jobs need min(gpus, 8) GPUs inside one instance (tensor/ZeRO traffic cannot cross VMs cheaply); multi-node
    jobs prefer instances with RDMA. `listed_only`: only instances whose catalog entry lists this pricing.
    """
    want = min(gpus, 8)
    together = [i for i in catalog.instances_for(gpu_id) if i.gpu_count >= want and (not listed_only or listed(i, pricing))]
    if gpus > max((i.gpu_count for i in together), default=0):
        together = [i for i in together if i.rdma != "none"] or together
    prices = [instance_price(i, pricing, currency, fx) for i in together]
    return min(prices, key=lambda p: math.ceil(gpus / p.gpu_count) * p.price_per_hour, default=None)


def job_price(price: InstancePrice, gpus: int, hours: Band, currency: str, ledger: Ledger | None = None, label: str = "",
              per_gpu: bool = False) -> JobPrice:
    """The job's cost at one price, with the price's date and source (and the cost band) recorded in the work.
    Whole instances are billed; `per_gpu` bills GPU-hours at the instance's per-GPU rate (a comparison of cards)."""
    count = math.ceil(gpus / price.gpu_count)
    hourly = gpus * price.price_per_gpu_hour if per_gpu else count * price.price_per_hour
    cost = Band(low=sig(hourly * hours.low), typical=sig(hourly * hours.typical), high=sig(hourly * hours.high))
    if ledger is not None:
        key = f"{label}.{price.pricing}" if label else price.pricing
        where = f"{price.instance} {price.pricing}, {price.region}, as of {price.as_of}"
        if price.price_basis == "catalog":
            ledger.from_catalog(f"price.{key}", price.price_per_gpu_hour, f"{currency}/GPU-h",
                                f"{where}; {price.source_title or 'catalog'} {price.source_url or ''}".strip())
        elif price.price_basis == "default-discount":
            ledger.derived(f"price.{key}", price.price_per_gpu_hour, f"{currency}/GPU-h", f"{where}: on-demand less the default {price.pricing} discount")
        billed = f"{gpus} GPUs · price/GPU-h" if per_gpu else f"⌈{gpus}/{price.gpu_count}⌉ instances · price/h"
        ledger.step(f"job_cost.{key}", f"{billed} · hours (typical)", cost.typical, currency)
        if cost.low != cost.high:
            ledger.step(f"job_cost.{key}.low", f"{billed} · hours at the fast end of the band", cost.low, currency)
            ledger.step(f"job_cost.{key}.high", f"{billed} · hours at the slow end of the band", cost.high, currency)
    return JobPrice(price=price, instances=count, cost=cost)


def price_job(catalog: Catalog, gpu_id: str, gpus: int, hours: Band, basis: TimeBasis, pricing: str, currency: str, fx: float,
              ledger: Ledger | None = None, label: str | None = None, per_gpu: bool = False) -> JobCost | None:
    """The job on `gpus` GPUs of one type, priced at the requested pricing and at every other pricing the catalog lists.
    `per_gpu`: each row is the cheapest listed rate per GPU-hour, billed per GPU-hour (how cards are compared)."""
    primary = cheapest_instance(catalog, gpu_id, pricing, currency, fx) if per_gpu else rent(catalog, gpu_id, gpus, pricing, currency, fx)
    if primary is None:
        return None
    label = label or gpu_id
    rows = [job_price(primary, gpus, hours, currency, ledger, label, per_gpu)]
    inst = catalog.instances.get(primary.instance)
    for other in PRICINGS:
        if other == pricing:
            continue
        if basis == "step-time":  # the time was found on this instance's links: another instance would take another time
            price = instance_price(inst, other, currency, fx) if inst is not None and listed(inst, other) else None
        elif per_gpu:
            price = cheapest_instance(catalog, gpu_id, other, currency, fx, listed_only=True)
        else:
            price = rent(catalog, gpu_id, gpus, other, currency, fx, listed_only=True)
        if price is not None:
            rows.append(job_price(price, gpus, hours, currency, ledger, label, per_gpu))
    return JobCost(gpu=gpu_id, gpus=gpus, hours=hours, time_basis=basis, prices=rows)


def rank(costs: list[JobCost]) -> list[JobCost]:
    """Cheapest job first (the requested pricing's typical cost), then the faster one."""
    return sorted(costs, key=lambda c: (c.cost.typical, c.hours.typical))


def note_unlisted(ledger: Ledger, shown: set[str], pricing: str) -> None:
    """Say which pricings no option's catalog entry lists, so a missing reserved row is not read as 'no discount'."""
    for other in PRICINGS:
        if other != pricing and other not in shown:
            zh = {"spot": "竞价", "reserved": "预留", "on-demand": "按需"}[other]
            ledger.assume(f"no_{other}_prices", f"The catalog lists no {other} price for these options, so no {other} row is shown; ask the provider for a quote.",
                          f"目录中这些选项没有{zh}价格，因此不列{zh}行；请向云厂商询价。")


def shown_pricings(costs: list[JobCost]) -> set[str]:
    return {p.price.pricing for c in costs for p in c.prices}


def instance_fabric(inst: InstanceType) -> tuple[InterFabric, float]:
    """The rented instance's own network as the step-time model's fabric: (kind, Gbit/s per GPU)."""
    per_gpu = inst.network_gbps / inst.gpu_count
    if inst.rdma == "efa":
        return "efa", per_gpu
    if inst.rdma == "infiniband":
        return ("infiniband-ndr" if per_gpu >= 400 else "infiniband-hdr"), per_gpu
    if inst.rdma in ("roce", "gpudirect-tcpx"):
        return ("roce-400" if per_gpu >= 400 else "roce-200" if per_gpu >= 200 else "roce-100"), per_gpu
    return ("ethernet-100" if inst.network_gbps >= 100 else "ethernet-25"), per_gpu


def layout_hours(catalog: Catalog, model: dict, gpu_id: str, gpus: int, tokens: float, seq_len: int, layout: Layout,
                 precision: str | None, inst: InstanceType | None, ledger: Ledger | None = None, label: str = "") -> Band | None:
    """The job's hours from the step-time model on this layout and the instance's links; None when the layout cannot run here."""
    stated = layout.model_dump(exclude_unset=True)
    fields = {**model, **stated, "gpu": gpu_id, "gpus": gpus, "seq_len": seq_len, "tokens": tokens}
    if precision is not None:
        fields["precision"] = precision
    if inst is not None:
        fields["gpus_per_node"] = inst.gpu_count
        if layout.inter_fabric is None:
            fields["inter_fabric"], fields["nic_gbps_per_gpu"] = instance_fabric(inst)
            fields["nic_gbps_per_gpu"] = min(max(fields["nic_gbps_per_gpu"], 1.0), 3200.0)
    try:
        result = step_time(StepTimeRequest(**fields), catalog)
    except (InputError, ValidationError, ValueError) as exc:
        if ledger is not None:
            ledger.warn(f"layout_not_run.{label or gpu_id}", f"The stated layout cannot run on {label or gpu_id} ({_first_line(exc)}): its time is the MFU band's.",
                        f"给定的并行布局无法在 {label or gpu_id} 上运行（{_first_line(exc)}）：其时间按 MFU 区间估算。", "info")
        return None
    goodput = default_goodput(gpus)
    typical = tokens / result.tokens_per_second / 3600 / goodput
    if ledger is not None:
        key = label or gpu_id
        ledger.step(f"step_time.{key}.step_s", "the step-time model on the stated layout (see the step-time tool for its terms)", result.step_time_s, "s")
        ledger.step(f"job_hours.{key}", "tokens / (global_batch·seq_len / step_s) / goodput / 3600", typical, "h")
        ledger.default("step_time_band", STEP_TIME_BAND, "", STEP_TIME_BAND_SOURCE)
    return Band(low=sig(typical * (1 - STEP_TIME_BAND)), typical=sig(typical), high=sig(typical * (1 + STEP_TIME_BAND)))


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[-1] if isinstance(exc, ValidationError) else text[0])[:160] if text else type(exc).__name__
