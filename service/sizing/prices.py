"""Prices of catalog instances: one instance at one pricing (on-demand, reserved, spot) in a currency, with its region,
date and source; the primitives the cost, job-cost and recommendation tools share."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.catalog import Catalog, InstanceType
from service.sizing.work import Ledger, sig

Pricing = Literal["on-demand", "reserved", "spot"]
Currency = Literal["USD", "CNY"]

DEFAULT_FX_CNY_PER_USD = 7.1
# Used only when the catalog has no reserved/spot price for an instance.
RESERVED_DISCOUNT = 0.35
SPOT_DISCOUNT = 0.60


def convert(amount: float, from_currency: str, to_currency: str, fx: float) -> float:
    if from_currency == to_currency:
        return amount
    return amount * fx if to_currency == "CNY" else amount / fx


class InstancePrice(BaseModel):
    model_config = ConfigDict(frozen=True)
    instance: str
    provider: str
    name: str
    gpu: str
    gpu_count: int
    pricing: Pricing
    price_per_hour: float = Field(description="whole instance, in the result currency")
    price_per_gpu_hour: float
    price_basis: Literal["catalog", "default-discount", "quoted"]
    region: str
    as_of: str
    confidence: str
    source_title: str | None = None
    source_url: str | None = None


def instance_price(inst: InstanceType, pricing: str, currency: str, fx: float, ledger: Ledger | None = None) -> InstancePrice:
    price = inst.price
    basis = "catalog"
    if pricing == "on-demand":
        hourly = price.on_demand_per_hour
    elif pricing == "reserved":
        hourly = price.reserved_1y_per_hour or price.on_demand_per_hour * (1 - RESERVED_DISCOUNT)
        basis = "catalog" if price.reserved_1y_per_hour else "default-discount"
    else:
        hourly = price.spot_per_hour or price.on_demand_per_hour * (1 - SPOT_DISCOUNT)
        basis = "catalog" if price.spot_per_hour else "default-discount"
    if ledger is not None and basis == "default-discount":
        pct = RESERVED_DISCOUNT if pricing == "reserved" else SPOT_DISCOUNT
        ledger.assume(f"{pricing}_discount", f"Where the catalog has no {pricing} price, {pct:.0%} off on-demand is assumed (typical, varies by provider and time).",
                      f"目录中没有{_PRICING_ZH[pricing]}价格时，按按需价格打 {1 - pct:.0%} 的折扣估算（典型值，随云厂商和时间变化）。")
    hourly = convert(hourly, price.currency, currency, fx)
    return InstancePrice(
        instance=inst.id, provider=inst.provider, name=inst.name, gpu=inst.gpu, gpu_count=inst.gpu_count, pricing=pricing,
        price_per_hour=sig(hourly), price_per_gpu_hour=sig(hourly / inst.gpu_count), price_basis=basis, region=price.region,
        as_of=price.as_of.isoformat(), confidence=inst.confidence,
        source_title=inst.sources[0].title if inst.sources else None, source_url=inst.sources[0].url if inst.sources else None,
    )


_PRICING_ZH = {"on-demand": "按需", "reserved": "预留", "spot": "竞价"}


def listed(inst: InstanceType, pricing: str) -> bool:
    """Does the catalog list this pricing for the instance (rather than the default discount standing in for it)?"""
    return pricing == "on-demand" or (inst.price.spot_per_hour if pricing == "spot" else inst.price.reserved_1y_per_hour) is not None


def cheapest_instance(catalog: Catalog, gpu_id: str, pricing: str = "on-demand", currency: str = "USD", fx: float = DEFAULT_FX_CNY_PER_USD,
                      *, listed_only: bool = False) -> InstancePrice | None:
    """The lowest rate per GPU-hour for this GPU; `listed_only`: only instances whose catalog entry lists this pricing."""
    prices = [instance_price(i, pricing, currency, fx) for i in catalog.instances_for(gpu_id) if not listed_only or listed(i, pricing)]
    return min(prices, key=lambda p: p.price_per_gpu_hour, default=None)
