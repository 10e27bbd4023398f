"""Cost: GPU-hours × price across catalog instances, and cloud vs on-prem break-even."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.catalog import Catalog, InstanceType
from service.errors import InputError, Problem
from service.i18n import BilingualValueError
from service.sizing import references as ref
from service.sizing.base import ModelRef, SizingRequest, SizingResult
from service.sizing.prices import (  # noqa: F401  (re-exported: callers import the price primitives from here)
    DEFAULT_FX_CNY_PER_USD,
    RESERVED_DISCOUNT,
    SPOT_DISCOUNT,
    Currency,
    InstancePrice,
    Pricing,
    cheapest_instance,
    convert,
    instance_price,
    listed,
)
from service.sizing.compute import Band, run_hours
from service.sizing.job_cost import PRICINGS, JobPrice, Layout, TimeBasis, job_price, layout_hours, note_unlisted
from service.sizing.shapes import resolve_shape
from service.sizing.work import Ledger, sig

HOURS_PER_YEAR = 8760.0

# Rough street price of one GPU plus its share of the server (USD). No authoritative
# public source exists: every result using these says so and asks for a real quote.
CAPEX_PER_GPU_USD = {
    "b200": 50_000, "h200": 40_000, "h100-sxm": 35_000, "h800": 35_000, "h100-nvl": 32_000, "h100-pcie": 30_000,
    "mi300x": 25_000, "ascend-910b": 20_000, "a100-80gb-sxm": 18_000, "a100-80gb-pcie": 16_000, "h20": 15_000,
    "a100-40gb-sxm": 14_000, "a100-40gb-pcie": 12_000, "l40s": 12_000, "a10": 5_000, "a10g": 5_000, "l4": 4_000,
    "t4": 3_000, "rtx-4090": 3_000, "rtx-3090": 1_500,
}


class CostRequest(SizingRequest):
    gpu_hours: float | None = Field(default=None, ge=0.01, le=1e10)
    gpu: str | None = Field(default=None, max_length=80, description="restrict to this GPU")
    model: str | None = Field(default=None, min_length=1, max_length=120, description="with tokens: price the run on every GPU type")
    params_b: float | None = Field(default=None, ge=0.001, le=100_000)
    tokens: float | None = Field(default=None, ge=1, le=1e16)
    gpus: int = Field(default=8, ge=1, le=1_000_000, description="GPUs the run uses (instances are rented whole)")
    min_gpu_memory_gib: float | None = Field(default=None, ge=0.001, le=10_000)
    pricing: Pricing = "on-demand"
    provider: str | None = Field(default=None, max_length=40)
    currency: Currency = "USD"
    fx_cny_per_usd: float = Field(default=DEFAULT_FX_CNY_PER_USD, ge=0.01, le=100)
    cloud_price_per_gpu_hour: float | None = Field(default=None, ge=0.001, le=10_000,
                                                   description="a quoted rate, in cloud_price_currency; default: each instance's catalog price")
    cloud_price_currency: Currency = Field(default="USD", description="currency of cloud_price_per_gpu_hour (a quoted ¥/卡时 rate is CNY)")
    seq_len: int | None = Field(default=None, ge=16, le=2_000_000, description="tokens per sequence; default min(context, 4096)")
    layout: Layout | None = Field(default=None, description="a stated parallel layout: each option's time comes from the step-time model on it")

    @model_validator(mode="after")
    def _layout_divides(self) -> CostRequest:
        if self.layout is not None and self.gpus % self.layout.model_parallel:
            raise BilingualValueError(f"gpus ({self.gpus}) must be a multiple of the layout's tp·pp·cp ({self.layout.model_parallel})",
                                      f"gpus（{self.gpus}）必须是布局 tp·pp·cp（{self.layout.model_parallel}）的整数倍", allowed="gpus = dp·tp·pp·cp")
        if self.layout is not None and self.gpu_hours is not None:
            raise BilingualValueError("a layout times the job from model and tokens; give those instead of gpu_hours",
                                      "并行布局需要根据模型和 token 数计算时间；请给出它们，而不是 gpu_hours")
        return self


class CostOption(BaseModel):
    model_config = ConfigDict(frozen=True)
    price: InstancePrice
    instances: int
    gpu_hours: float
    hours: float = Field(description="the job's wall-clock hours (typical)")
    total_cost: float = Field(description="the whole job at this price (typical): what options are ranked by")
    hours_band: Band | None = None
    cost: Band | None = Field(default=None, description="the job's cost band: low at the fast end of the time band")
    time_basis: TimeBasis = "gpu-hours"
    other_pricing: list[JobPrice] = Field(default_factory=list, description="the same instance at the other pricings its catalog entry lists")


class CostResult(SizingResult):
    tool: Literal["cost"] = "cost"
    currency: Currency
    pricing: Pricing
    options: list[CostOption] = Field(description="cheapest job first (instances · price/hour · the job's hours), not cheapest per hour")
    cheapest: CostOption | None


def estimate_cost(req: CostRequest, catalog: Catalog) -> CostResult:
    ledger = Ledger()
    currency = ledger.field(req, "currency")
    pricing = ledger.field(req, "pricing")
    gpus = ledger.field(req, "gpus")
    instances = list(catalog.instances.values())
    if req.provider:
        ledger.given("provider", req.provider)
        instances = [i for i in instances if i.provider == req.provider.lower()]
    if req.gpu:
        gpu_id = catalog.gpu(req.gpu).id
        ledger.given("gpu", gpu_id)
        instances = [i for i in instances if i.gpu == gpu_id]
    if req.min_gpu_memory_gib:
        ledger.given("min_gpu_memory_gib", req.min_gpu_memory_gib, "GiB")
        instances = [i for i in instances if catalog.gpus[i.gpu].memory_gb >= req.min_gpu_memory_gib]
    fx = req.fx_cny_per_usd
    quoted = req.cloud_price_per_gpu_hour
    if any(i.price.currency != currency for i in instances) or (quoted is not None and req.cloud_price_currency != currency):
        fx = ledger.field(req, "fx_cny_per_usd", "CNY/USD", "approximate 2026 rate; set today's")
    if quoted is not None:
        # The user's rate replaces every instance's catalog price; the instances still say what the GPU comes in.
        quoted = ledger.given("cloud_price_per_gpu_hour", quoted, f"{req.cloud_price_currency}/GPU-h")
        if req.cloud_price_currency != currency:
            quoted = ledger.step("cloud_price_per_gpu_hour_converted", "cloud_price_per_gpu_hour · fx", convert(quoted, req.cloud_price_currency, currency, fx),
                                 f"{currency}/GPU-h")
    priced = {i.gpu for i in instances}
    unlisted = quoted is not None and bool(req.gpu) and not instances
    if unlisted:
        priced = {gpu_id}  # the user's rate prices a GPU no listed instance carries (a 4090 on a rental platform)
    hours_of = _job_hours(req, catalog, priced, gpus, ledger)
    options = []
    for inst in instances:
        if inst.gpu not in priced:
            continue
        hours, basis = hours_of(inst.gpu, inst)
        price = instance_price(inst, pricing, currency, fx, ledger)
        others = []
        if quoted is not None:
            price = price.model_copy(update={"price_per_hour": sig(quoted * inst.gpu_count), "price_per_gpu_hour": sig(quoted), "price_basis": "quoted"})
        else:  # spot / reserved beside the requested pricing, where this instance's catalog entry lists them
            others = [job_price(instance_price(inst, p, currency, fx), gpus, hours, currency, ledger, inst.id)
                      for p in PRICINGS if p != pricing and listed(inst, p)]
        job = job_price(price, gpus, hours, currency, ledger, inst.id)
        options.append(CostOption(price=price, instances=job.instances, gpu_hours=sig(hours.typical * gpus), hours=hours.typical,
                                  total_cost=job.cost.typical, hours_band=hours, cost=job.cost, time_basis=basis, other_pricing=others))
    if unlisted:
        hours, basis = hours_of(gpu_id, None)
        price = InstancePrice(instance="quoted-rate", provider=(req.provider or "quoted").lower(), name="quoted rate", gpu=gpu_id, gpu_count=1,
                              pricing=pricing, price_per_hour=sig(quoted), price_per_gpu_hour=sig(quoted), price_basis="quoted", region="-",
                              as_of="-", confidence="user")
        job = job_price(price, gpus, hours, currency, ledger, "quoted-rate")
        options.append(CostOption(price=price, instances=gpus, gpu_hours=sig(hours.typical * gpus), hours=hours.typical, total_cost=job.cost.typical,
                                  hours_band=hours, cost=job.cost, time_basis=basis))
    options.sort(key=lambda o: (o.total_cost, o.hours))
    if options:
        ledger.step("cost.cheapest", "instances · price/hour · hours (the cheapest job, not the cheapest hour)", options[0].total_cost, currency)
    if quoted is None and options:
        note_unlisted(ledger, {p.pricing for o in options for p in (o.price, *(r.price for r in o.other_pricing))}, pricing)
    ledger.assume("prices_snapshot", "Prices are catalog snapshots (see each option's date and region); check the provider's page before buying.",
                  "价格为目录快照（见各选项的日期和地域），购买前请以云厂商官网为准。")
    ledger.cite(ref.SKYPILOT.title, ref.SKYPILOT.url)
    return CostResult(currency=currency, pricing=pricing, options=options, cheapest=options[0] if options else None, work=ledger.work())


def _job_hours(req: CostRequest, catalog: Catalog, gpu_ids: set[str], gpus: int, ledger: Ledger):
    """hours_of(gpu_id, instance) -> (Band, basis): the caller's GPU-hours, the step-time model on a stated layout
    (per instance: its own links), or the training-time MFU band per GPU type."""
    if req.gpu_hours is not None:
        ledger.given("gpu_hours", req.gpu_hours, "GPU-h")
        if req.gpu is None:
            ledger.assume("same_hours", "The same GPU-hours are priced on every GPU type; give a model and tokens to account for speed differences.",
                          "各类 GPU 按相同的 GPU 小时数计价；给出模型和 token 数可按各 GPU 的速度差异折算。")
        flat = Band(low=req.gpu_hours / gpus, typical=req.gpu_hours / gpus, high=req.gpu_hours / gpus)
        return lambda gpu_id, inst: (flat, "gpu-hours")
    if req.tokens is None or (req.model is None and req.params_b is None):
        raise InputError([Problem("gpu_hours", "give gpu_hours, or a model (or params_b) with tokens",
                                  "请给出 gpu_hours（GPU 小时数），或给出模型（或 params_b）及 tokens",
                                  allowed="gpu_hours > 0, or model + tokens")])
    shape = resolve_shape(ModelRef(model=req.model, params_b=req.params_b), catalog, ledger)
    seq_len = ledger.field(req, "seq_len", "tokens", "min(context length, 4096)", default=min(shape.context_length, 4096))
    ledger.given("tokens", req.tokens, "tokens")
    band: dict[str, Band] = {}
    for gpu_id in sorted(gpu_ids):
        gpu = catalog.gpus[gpu_id]
        band[gpu_id] = run_hours(shape, gpu, gpus, req.tokens, seq_len, "full", "bf16" if gpu.supports_bf16 else "fp16")
    ledger.assume("typical_mfu", "Without a layout, run time per GPU type is the training-time tool's MFU band (typical, low and high).",
                  "未给出并行布局时，每类 GPU 的运行时间取 training-time 工具的 MFU 区间（典型值及上下限）。")
    if req.layout is None:
        return lambda gpu_id, inst: (band[gpu_id], "mfu-band")
    ledger.given("layout", ", ".join(f"{k}={v}" for k, v in req.layout.model_dump(exclude_unset=True).items()) or "defaults")
    model = {"model": req.model} if req.model else {"params_b": req.params_b}
    cache: dict[tuple, Band | None] = {}

    def hours_of(gpu_id: str, inst: InstanceType | None):
        key = (gpu_id, inst.gpu_count if inst else None, inst.rdma if inst else None, inst.network_gbps if inst else None)
        if key not in cache:
            cache[key] = layout_hours(catalog, model, gpu_id, gpus, req.tokens, seq_len, req.layout, None, inst, ledger, inst.id if inst else gpu_id)
        found = cache[key]
        return (found, "step-time") if found is not None else (band[gpu_id], "mfu-band")

    return hours_of


class BreakEvenRequest(SizingRequest):
    gpu: str = Field(min_length=1, max_length=80)
    gpus: int = Field(default=8, ge=1, le=1_000_000)
    utilization: float = Field(default=0.6, ge=0.01, le=1, description="fraction of the year the GPUs do useful work")
    capex_per_gpu: float | None = Field(default=None, ge=1, le=10_000_000, description="per GPU including its share of server, network and storage, in capex_currency")
    capex_total: float | None = Field(default=None, ge=1, le=100_000_000_000, description="the quoted price of all the GPUs with their servers, in capex_currency; replaces capex_per_gpu")
    capex_currency: Currency = Field(default="USD", description="currency of capex_per_gpu / capex_total")
    opex_per_month: float | None = Field(default=None, ge=0, le=10_000_000_000, description="running costs a month (power, cooling, operations), in opex_currency; replaces the power and ops estimates")
    opex_currency: Currency = Field(default="USD", description="currency of opex_per_month")
    years: float = Field(default=4.0, ge=0.1, le=15, description="depreciation period")
    power_price_kwh: float = Field(default=0.10, ge=0.001, le=10, description="USD per kWh")
    pue: float = Field(default=1.58, ge=1, le=4)
    system_power_factor: float = Field(default=1.8, ge=1, le=5, description="server power per watt of GPU TDP")
    ops_fraction: float = Field(default=0.10, ge=0, le=2, description="yearly operations (staff, space, support) as a share of capex")
    cloud_price_per_gpu_hour: float | None = Field(default=None, ge=0.001, le=10_000, description="in cloud_price_currency; default: cheapest catalog instance")
    cloud_price_currency: Currency = Field(default="USD", description="currency of cloud_price_per_gpu_hour (a quoted ¥/卡时 rate is CNY)")
    pricing: Literal["on-demand", "reserved"] = "on-demand"
    currency: Currency = "USD"
    fx_cny_per_usd: float = Field(default=DEFAULT_FX_CNY_PER_USD, ge=0.01, le=100)


class BreakEvenResult(SizingResult):
    tool: Literal["break-even"] = "break-even"
    gpu: str
    gpus: int
    currency: Currency
    utilization: float
    cloud_price_per_gpu_hour: float
    capex: float
    onprem_yearly_cost: float = Field(description="depreciation + power + operations")
    cloud_yearly_cost: float = Field(description="at this utilization (on-demand bills used hours; reserved bills every hour)")
    break_even_utilization: float | None = Field(description="utilization above which on-prem is cheaper; null if never")
    months_to_recover_capex: float | None
    cheaper: Literal["cloud", "on-prem"]


def _in_usd(ledger: Ledger, step: str, name: str, value: float, currency: str, fx: float) -> float:
    """A figure the user quoted in yuan, as the USD the break-even computes in (a recorded step)."""
    if currency == "USD":
        return value
    return ledger.step(step, f"{name} / fx_cny_per_usd", convert(value, currency, "USD", fx), "USD")


def break_even(req: BreakEvenRequest, catalog: Catalog) -> BreakEvenResult:
    ledger = Ledger()
    gpu = catalog.gpu(req.gpu)
    ledger.given("gpu", gpu.id)
    gpus = ledger.field(req, "gpus")
    util = ledger.field(req, "utilization", "", "a busy shared cluster; 0.8+ is where on-prem usually wins")
    currency = ledger.field(req, "currency")
    fx = req.fx_cny_per_usd
    quoted_in_cny = {req.cloud_price_currency if req.cloud_price_per_gpu_hour is not None else "USD",
                     req.capex_currency if {"capex_total", "capex_per_gpu"} & req.model_fields_set else "USD",
                     req.opex_currency if req.opex_per_month is not None else "USD"}
    if currency == "CNY" or "CNY" in quoted_in_cny:
        ledger.field(req, "fx_cny_per_usd", "CNY/USD", "approximate 2026 rate")
    if req.capex_total is not None:
        total = ledger.given("capex_total", req.capex_total, req.capex_currency)
        capex = _in_usd(ledger, "onprem.capex", "capex_total", total, req.capex_currency, fx)
    else:
        if req.capex_per_gpu is not None:
            capex_gpu = ledger.given("capex_per_gpu", req.capex_per_gpu, req.capex_currency)
            capex_gpu = _in_usd(ledger, "capex_per_gpu_usd", "capex_per_gpu", capex_gpu, req.capex_currency, fx)
        else:
            capex_gpu = ledger.default("capex_per_gpu", CAPEX_PER_GPU_USD.get(gpu.id, 20_000), "USD", "rough street price incl. server share; replace with your quote")
            ledger.warn("capex_assumed", "Capex is a rough default, not a quote: give your quoted price per GPU for a real comparison.",
                        "资本支出使用的是粗略默认值而非报价：告诉我每张卡的实际报价即可得到可靠的比较。", "info")
        capex = ledger.step("onprem.capex", "capex_per_gpu·gpus", capex_gpu * gpus, "USD")
    years = ledger.field(req, "years", "years", "typical GPU depreciation")
    if req.opex_per_month is not None:
        # The user's own running costs replace the power and operations estimates (and do not scale with utilisation:
        # the staff, the colocation and an idle server's power are paid either way).
        month = ledger.given("opex_per_month", req.opex_per_month, req.opex_currency)
        month = _in_usd(ledger, "opex_per_month_usd", "opex_per_month", month, req.opex_currency, fx)
        running = ledger.step("onprem.running_per_year", "opex_per_month·12", month * 12, "USD")
        energy, ops_yearly = 0.0, running
    else:
        kwh_price = ledger.field(req, "power_price_kwh", "USD/kWh", "assumption; set your tariff")
        pue = ledger.field(req, "pue", "", "Uptime Institute 2023 average")
        factor = ledger.field(req, "system_power_factor", "x", "DGX H100: 10.2 kW max for 8 x 700 W GPUs")
        ops = ledger.field(req, "ops_fraction", "", "assumption: staff, space, support contracts")
        power_kw = gpu.tdp_w * factor * gpus / 1000
        energy = ledger.step("onprem.energy_per_year", "TDP·factor·gpus·PUE·8760·utilization·$/kWh", power_kw * pue * HOURS_PER_YEAR * util * kwh_price, "USD")
        ops_yearly = ops * capex
    onprem = ledger.step("onprem.yearly", "capex/years + running costs" if req.opex_per_month is not None else "capex/years + energy + ops·capex",
                         capex / years + energy + ops_yearly, "USD")
    if req.cloud_price_per_gpu_hour is not None:
        quoted = ledger.given("cloud_price_per_gpu_hour", req.cloud_price_per_gpu_hour, f"{req.cloud_price_currency}/GPU-h")
        cloud_rate = quoted if req.cloud_price_currency == "USD" else ledger.step(
            "cloud_price_per_gpu_hour_usd", "cloud_price_per_gpu_hour / fx_cny_per_usd", convert(quoted, req.cloud_price_currency, "USD", fx), "USD/GPU-h")
    else:
        cheapest = cheapest_instance(catalog, gpu.id, req.pricing, "USD", fx)
        if cheapest is None:
            raise InputError([Problem("cloud_price_per_gpu_hour", f"the catalog has no cloud instance with {gpu.name}; give cloud_price_per_gpu_hour",
                                      f"目录中没有配备 {gpu.name} 的云实例；请给出 cloud_price_per_gpu_hour")])
        cloud_rate = ledger.from_catalog("cloud_price_per_gpu_hour", cheapest.price_per_gpu_hour, "USD/GPU-h", f"{cheapest.instance} ({req.pricing}, {cheapest.as_of})")
    billed = 1.0 if req.pricing == "reserved" else util
    cloud = ledger.step("cloud.yearly", "price·gpus·8760·(utilization if on-demand else 1)", cloud_rate * gpus * HOURS_PER_YEAR * billed, "USD")
    fixed = capex / years + ops_yearly
    energy_per_util = energy / util
    cloud_per_util = cloud_rate * gpus * HOURS_PER_YEAR
    if req.pricing == "reserved":
        break_util = None if cloud_per_util <= fixed + energy_per_util else 0.0
    else:
        margin = cloud_per_util - energy_per_util
        break_util = fixed / margin if margin > 0 and fixed / margin <= 1 else None
    if break_util is not None:
        ledger.step("breakeven.utilization", "fixed yearly / (cloud per full year − energy per full year)", break_util, "")
    monthly_gain = (cloud - energy - ops_yearly) / 12
    months = capex / monthly_gain if monthly_gain > 0 else None
    for c in (ref.DGX_H100, ref.UPTIME_PUE) if req.opex_per_month is None else ():
        ledger.cite(c.title, c.url)

    def cur(x: float) -> float:
        return sig(convert(x, "USD", currency, fx))

    return BreakEvenResult(
        gpu=gpu.id, gpus=gpus, currency=currency, utilization=util, cloud_price_per_gpu_hour=cur(cloud_rate), capex=cur(capex),
        onprem_yearly_cost=cur(onprem), cloud_yearly_cost=cur(cloud), break_even_utilization=sig(break_util, 3) if break_util is not None else None,
        months_to_recover_capex=sig(months, 3) if months is not None else None, cheaper="on-prem" if onprem < cloud else "cloud",
        work=ledger.work(),
    )
