"""Reserved (committed-use, 包年包月) against on-demand (pay-as-you-go) pricing at a stated utilisation.

A reservation bills every hour of its term whether the GPUs are busy or not; on-demand bills only the hours used.
So the reservation is cheaper exactly when the share of hours the GPUs are busy exceeds reserved rate ÷ on-demand rate.
This is a rent-versus-rent question: nothing here involves buying hardware (that is cost.break_even).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.catalog import Catalog
from service.errors import InputError, Problem
from service.sizing import references as ref
from service.sizing.base import SizingRequest, SizingResult
from service.sizing.cost import DEFAULT_FX_CNY_PER_USD, HOURS_PER_YEAR, RESERVED_DISCOUNT, Currency, convert, instance_price
from service.sizing.work import Ledger, sig

# Where committed-use terms are documented (1- and 3-year terms, billed whether or not the resources are used).
GCP_CUD = ("Google Cloud, Committed use discounts overview", "https://cloud.google.com/compute/docs/instances/committed-use-discounts-overview")


class ReservedRequest(SizingRequest):
    utilization: float = Field(gt=0, le=1, description="share of the term's hours the GPUs are busy (0.45 = busy 45% of the time)")
    gpu: str | None = Field(default=None, min_length=1, max_length=80, description="catalog GPU whose instance prices to read when no price is given")
    on_demand_price_per_gpu_hour: float | None = Field(default=None, gt=0, le=10_000, description="in price_currency; default: the cheapest catalog instance")
    reserved_price_per_gpu_hour: float | None = Field(default=None, gt=0, le=10_000, description="in price_currency; or give discount")
    discount: float | None = Field(default=None, ge=0, lt=1, description="reserved discount off on-demand (0.4 = 40% off, 打6折)")
    gpus: int = Field(default=1, ge=1, le=1_000_000)
    term_years: float = Field(default=1.0, ge=0.1, le=10, description="commitment term (usually 1 or 3 years)")
    currency: Currency = "USD"
    price_currency: Currency | None = Field(default=None, description="currency of the quoted prices; default: currency")
    fx_cny_per_usd: float = Field(default=DEFAULT_FX_CNY_PER_USD, ge=0.01, le=100)


class PriceSource(BaseModel):
    model_config = ConfigDict(frozen=True)
    instance: str
    provider: str
    region: str
    as_of: str
    reserved_basis: Literal["catalog", "default-discount"]


class ReservedResult(SizingResult):
    tool: Literal["reserved-vs-on-demand"] = "reserved-vs-on-demand"
    gpu: str | None
    gpus: int
    currency: Currency
    utilization: float
    term_years: float
    on_demand_price_per_gpu_hour: float
    reserved_price_per_gpu_hour: float
    discount: float = Field(description="1 − reserved ÷ on-demand")
    break_even_utilization: float = Field(description="reserved ÷ on-demand: above this share of busy hours the reservation is cheaper")
    reservation_can_pay: bool = Field(description="false when the reserved rate is not below the on-demand rate")
    on_demand_yearly_cost: float = Field(description="on-demand · gpus · 8760 · utilization")
    reserved_yearly_cost: float = Field(description="reserved · gpus · 8760 (every hour is billed)")
    cheaper: Literal["reserved", "on-demand"]
    yearly_saving: float = Field(description="what the cheaper option saves a year")
    term_saving: float = Field(description="yearly_saving · term_years")
    reserved_term_commitment: float = Field(description="reserved_yearly_cost · term_years: what the contract commits you to")
    reserved_price_per_used_gpu_hour: float = Field(description="reserved ÷ utilization: the reservation's price per GPU-hour actually used")
    price_source: PriceSource | None = None


def reserved_vs_on_demand(req: ReservedRequest, catalog: Catalog) -> ReservedResult:
    ledger = Ledger()
    util = ledger.field(req, "utilization", "", "share of the term's hours the GPUs are busy")
    gpus = ledger.field(req, "gpus", "GPUs")
    term = ledger.field(req, "term_years", "years", "the usual 1-year term")
    currency = ledger.field(req, "currency")
    quoted_in = req.price_currency or currency
    fx = req.fx_cny_per_usd
    if req.reserved_price_per_gpu_hour is not None and req.discount is not None:
        raise InputError([Problem("discount", "give reserved_price_per_gpu_hour or discount, not both",
                                  "请只给出 reserved_price_per_gpu_hour（预留单价）或 discount（折扣）之一", allowed="one of the two")])
    gpu_id = catalog.gpu(req.gpu).id if req.gpu else None
    if gpu_id:
        ledger.given("gpu", gpu_id)
    source = None
    if req.on_demand_price_per_gpu_hour is not None:
        on_demand = _quoted(ledger, req, "on_demand_price_per_gpu_hour", quoted_in, currency, fx)
    elif gpu_id:
        wants_reserved = req.reserved_price_per_gpu_hour is None and req.discount is None
        on_demand, reserved_catalog, source = _catalog_prices(ledger, catalog, gpu_id, currency, fx, wants_reserved)
    else:
        raise InputError([Problem("on_demand_price_per_gpu_hour", "give on_demand_price_per_gpu_hour, or a catalog gpu to read it from",
                                  "请给出 on_demand_price_per_gpu_hour（按需单价），或给出 gpu（从目录读取价格）", allowed="> 0, or gpu")])
    if req.reserved_price_per_gpu_hour is not None:
        reserved = _quoted(ledger, req, "reserved_price_per_gpu_hour", quoted_in, currency, fx)
    elif req.discount is not None:
        discount = ledger.given("discount", req.discount)
        reserved = ledger.step("reserved_price_per_gpu_hour", "on_demand · (1 − discount)", on_demand * (1 - discount), f"{currency}/GPU-h")
    elif source is not None:
        reserved = reserved_catalog
    else:
        discount = ledger.default("discount", RESERVED_DISCOUNT, "", "typical 1-year reserved discount; give your quote")
        ledger.assume("reserved_discount", f"No reserved price given: {RESERVED_DISCOUNT:.0%} off on-demand is assumed (typical 1-year term; varies by provider).",
                      f"未给出预留价格：按按需价格打 {1 - RESERVED_DISCOUNT:.0%} 的折扣估算（1 年期典型值，各云厂商不同）。")
        reserved = ledger.step("reserved_price_per_gpu_hour", "on_demand · (1 − discount)", on_demand * (1 - discount), f"{currency}/GPU-h")
    ratio = ledger.step("break_even_utilization", "reserved ÷ on_demand", reserved / on_demand)
    od_year = ledger.step("on_demand.yearly", "on_demand · gpus · 8760 · utilization", on_demand * gpus * HOURS_PER_YEAR * util, currency)
    rs_year = ledger.step("reserved.yearly", "reserved · gpus · 8760 (every hour billed)", reserved * gpus * HOURS_PER_YEAR, currency)
    cheaper = "reserved" if rs_year < od_year else "on-demand"
    saving = ledger.step("saving.yearly", "|on_demand.yearly − reserved.yearly|", abs(od_year - rs_year), currency)
    term_saving = ledger.step("saving.term", "saving.yearly · term_years", saving * term, currency)
    commitment = ledger.step("reserved.term_commitment", "reserved.yearly · term_years", rs_year * term, currency)
    per_used = ledger.step("reserved.per_used_gpu_hour", "reserved ÷ utilization", reserved / util, f"{currency}/GPU-h")
    if ratio >= 1:
        ledger.warn("reserved_not_cheaper", "The reserved rate is not below the on-demand rate: a reservation never pays off; check the quote.",
                    "预留单价不低于按需单价：预留在任何利用率下都不划算，请核对报价。")
    ledger.assume("hours_billed", "A reservation bills every hour of its term; on-demand bills only the hours the GPUs run (idle instances released).",
                  "预留（包年包月）按期限内的每个小时计费；按需只为 GPU 实际运行的小时付费（空闲时释放实例）。")
    ledger.cite(*GCP_CUD)
    if source is not None:
        ledger.cite(ref.SKYPILOT.title, ref.SKYPILOT.url)
    return ReservedResult(
        gpu=gpu_id, gpus=gpus, currency=currency, utilization=util, term_years=term, on_demand_price_per_gpu_hour=sig(on_demand),
        reserved_price_per_gpu_hour=sig(reserved), discount=sig(1 - ratio, 3), break_even_utilization=sig(ratio, 3), reservation_can_pay=ratio < 1,
        on_demand_yearly_cost=sig(od_year), reserved_yearly_cost=sig(rs_year), cheaper=cheaper, yearly_saving=sig(saving),
        term_saving=sig(term_saving), reserved_term_commitment=sig(commitment), reserved_price_per_used_gpu_hour=sig(per_used),
        price_source=source, work=ledger.work(),
    )


def _quoted(ledger: Ledger, req: ReservedRequest, name: str, quoted_in: str, currency: str, fx: float) -> float:
    value = ledger.given(name, getattr(req, name), f"{quoted_in}/GPU-h")
    if quoted_in == currency:
        return value
    ledger.field(req, "fx_cny_per_usd", "CNY/USD", "approximate 2026 rate; set today's")
    return ledger.step(f"{name}_converted", f"{name} {'·' if currency == 'CNY' else '/'} fx_cny_per_usd", convert(value, quoted_in, currency, fx), f"{currency}/GPU-h")


def _catalog_prices(ledger: Ledger, catalog: Catalog, gpu_id: str, currency: str, fx: float, wants_reserved: bool) -> tuple[float, float, PriceSource]:
    """The cheapest on-demand instance with this GPU, and that same instance's reserved rate (its catalog price, else the default
    discount) when the caller gave neither a reserved price nor a discount."""
    instances = catalog.instances_for(gpu_id)
    if not instances:
        name = catalog.gpus[gpu_id].name
        raise InputError([Problem("on_demand_price_per_gpu_hour", f"the catalog has no cloud instance with {name}; give on_demand_price_per_gpu_hour",
                                  f"目录中没有配备 {name} 的云实例；请给出 on_demand_price_per_gpu_hour（按需单价）")])
    if any(i.price.currency != currency for i in instances):
        ledger.default("fx_cny_per_usd", fx, "CNY/USD", "approximate 2026 rate; set today's")
    inst = min(instances, key=lambda i: instance_price(i, "on-demand", currency, fx).price_per_gpu_hour)
    od = instance_price(inst, "on-demand", currency, fx)
    rs = instance_price(inst, "reserved", currency, fx, ledger if wants_reserved else None)
    where = f"{inst.id} ({od.region}, {od.as_of})"
    on_demand = ledger.from_catalog("on_demand_price_per_gpu_hour", od.price_per_gpu_hour, f"{currency}/GPU-h", where)
    reserved = rs.price_per_gpu_hour
    if wants_reserved and rs.price_basis == "catalog":
        reserved = ledger.from_catalog("reserved_price_per_gpu_hour", reserved, f"{currency}/GPU-h", where)
    elif wants_reserved:
        reserved = ledger.derived("reserved_price_per_gpu_hour", reserved, f"{currency}/GPU-h", f"on_demand · (1 − {RESERVED_DISCOUNT:g}), {where}")
    ledger.assume("prices_snapshot", "Prices are catalog snapshots (see the instance's date and region); check the provider's page and your own quote.",
                  "价格为目录快照（见实例的日期和地域），请以云厂商官网和您拿到的报价为准。")
    return on_demand, reserved, PriceSource(instance=inst.id, provider=inst.provider, region=od.region, as_of=od.as_of,
                                            reserved_basis="catalog" if rs.price_basis == "catalog" else "default-discount")

