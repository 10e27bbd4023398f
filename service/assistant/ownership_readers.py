"""Readers for the figures of an ownership decision the user states: what the purchase costs, over how many years it is
depreciated, and what running it costs a month ("报价220万，按三年折旧，每月电费加运维2万", "a $280k box, depreciated
over 3 years, power and ops about $4k a month"). The break-even uses them instead of its defaults.

Each reader returns the value, its currency and the span it read, so the caller can mask the span: a purchase price
is not a budget, and "3 years" of depreciation is not a deadline."""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.assistant.numbers import ARABIC, CN_NUMERAL, parse_number
from service.assistant.slot_readers import NUM, _CNY_SIGN, _CNY_WORD, _USD_SIGN, _USD_WORD  # one currency vocabulary with the rate reader

# A money amount: "$280k", "US$ 1.2M", "¥220万", "220万元", "220万" (万 alone only where a price word makes it money).
_USD = rf"(?:{_USD_SIGN})\s*{NUM}\s*([kKmM](?![a-zA-Z])|万)?|{NUM}\s*([kKmM](?![a-zA-Z])|万)?\s*(?:{_USD_WORD})"
_CNY = rf"(?:{_CNY_SIGN})\s*{NUM}\s*(万|千|[kKmMwW](?![a-zA-Z]))?|{NUM}\s*(万|千|[wW](?![a-zA-Z])|[kKmM](?=\s*(?:{_CNY_WORD})))?\s*(?:{_CNY_WORD})|{NUM}\s*(万|[wW](?![a-zA-Z]))"
MONEY = re.compile(rf"(?P<usd>{_USD})|(?P<cny>{_CNY})", re.I)

# Words that make a money figure the price of the hardware (not a budget to spend).
PRICE_WORDS = re.compile(
    r"报价|售价|落地价|整机|采购价|购买价|买(?:下来|一台|台|套)?|购买|采购|花了|要花|要价|"
    r"\bquoted?\b|\bpriced?\b|\bcosts?\b|\bcapex\b|purchase price|\bpaid\b|"
    r"(?:box|server|node|machine|cluster|system|DGX|HGX|rig)\w*\s+(?:is\s+|at\s+|for\s+)(?:about\s+|around\s+|~\s*)?$|"
    r"\b(?:buy|buying|purchase|purchasing|own|owning)\b[^.,;?!]{0,30}?\b(?:at|for)\s+(?:about\s+|around\s+|~\s*)?$",
    re.I,
)
# Words that make a money figure a running cost.
RUNNING_WORDS = re.compile(
    r"电费|运维|托管|机房|机柜|电力|运营|人力|"
    r"\brunning\b|\bpower\b|electricity|\bops\b|\bopex\b|operating|operations?|colo(?:cation)?|hosting|maintenance",
    re.I,
)
PER_MONTH = re.compile(r"每月|每个月|一个月|月均|/\s*月|\bper month\b|\ba month\b|/\s*mo(?:nth)?\b|\bmonthly\b|\bmonth\b", re.I)
PER_YEAR = re.compile(r"每年|一年|/\s*年|\bper year\b|\ba year\b|/\s*yr\b|\byearly\b|\bannual(?:ly)?\b", re.I)
MIN_PURCHASE = 1_000  # in either currency: below it a money figure is a rate or a fee, not hardware
BUDGET_WORDS = re.compile(r"预算|经费|资金|\bbudget\b", re.I)

DEPRECIATION = re.compile(
    rf"(?:按|分)?\s*{NUM}\s*年\s*(?:期)?\s*(?:折旧|摊销)|(?:折旧|摊销)\s*(?:期|年限|周期)?\s*(?:为|是|按|算|分)?\s*{NUM}\s*年|"
    rf"(?:depreciat\w*|amorti[sz]\w*)\s*(?:it\s*|them\s*)?(?:over|across|in)?\s*{NUM}\s*(?:-\s*)?years?|"
    rf"{NUM}\s*(?:-\s*|\s)years?\s*(?:of\s*)?(?:depreciation|amorti[sz]ation|straight[\s-]line)",
    re.I,
)


# With a purchase weighed, "over 3 years", "用三年" is the period its cost is spread over.
HORIZON = re.compile(
    rf"(?:over|for|across)\s+(?:the\s+next\s+)?{NUM}\s*(?:-\s*)?years?|(?:over|for|across)\s+(?:the\s+next\s+)?(two|three|four|five|six|seven|eight|ten)\s+years?|"
    rf"{NUM}\s*(?:-\s*|\s)?years?\s*(?:horizon|lifetime|life|of use|of ownership)|(?:用|跑|使用|算)\s*{NUM}\s*年|{NUM}\s*年(?:下来|内|期)|"
    rf"{NUM}\s*(?:-\s*)?years?\b(?!\s*(?:old|ago|of experience))",
    re.I,
)
OWNERSHIP = re.compile(r"\b(?:buy|buying|bought|own|owning|purchase|capex|on-?prem|costs?|priced|quoted?)\b|买|自建|购|折旧|回本|摊|报价", re.I)
WORD_YEARS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "ten": 10}


@dataclass(frozen=True)
class Money:
    value: float
    currency: str
    start: int
    end: int
    per_gpu: bool = False  # "$25k per card", "每张 20 万"


PER_GPU = re.compile(r"\s*(?:(?:/|per\s+|a\s+|an\s+|每|一)\s*(?:gpu|card|piece|张|卡)|each|apiece)", re.I)
PER_GPU_BEFORE = re.compile(r"(?:每张|每卡|单卡|一张卡?|per\s+(?:gpu|card)|each)\s*(?:的)?\s*(?:报价|售价|价格|要|是|at|for|costs?|is)?\s*(?:约|大概|about|around|~)?\s*$", re.I)
MIN_RUNNING = 100  # a month's running costs in either currency: below it the figure is a tariff or a rate


NUMBER_GROUP = re.compile(rf"{ARABIC}|{CN_NUMERAL}")
MULTIPLIER_GROUP = re.compile(r"[kKmMwW万千]")
YUAN_WORDS = re.compile(r"[¥￥元块]|rmb|cny", re.I)


def _money(m: re.Match) -> Money | None:
    kind = "usd" if m.group("usd") else "cny"
    groups = [g for g in m.groups()[1:] if g is not None]
    text = m.group(0)
    number = next((g for g in groups if NUMBER_GROUP.fullmatch(g)), None)
    mult = next((g for g in groups if g is not number and MULTIPLIER_GROUP.fullmatch(g)), None)
    if number is None:
        return None
    value = parse_number(number + ("万" if mult in ("w", "W") else mult or ""))
    if value is None or (kind == "cny" and "万" not in text and "w" not in text.lower() and not YUAN_WORDS.search(text)):
        return None
    return Money(value, "USD" if kind == "usd" else "CNY", m.start(), m.end())


RATE_AFTER = re.compile(r"\s*(?:/|per\b|每|一\s*(?:度|小时|月|年)|an?\s+(?:kwh|hour|month|year))", re.I)


def purchase_price(text: str) -> Money | None:
    """A price of the hardware: a money figure with a price word just before it and no running-cost or budget word
    between them, and not a per-hour or per-month rate."""
    for m in MONEY.finditer(text):
        money = _money(m)
        if money is None:
            continue
        before, after = text[max(0, m.start() - 24) : m.start()], text[m.end() : m.end() + 12]
        words = list(PRICE_WORDS.finditer(before))
        word = words[-1] if words else None  # the price word nearest the figure
        if word is None or RUNNING_WORDS.search(before[word.end() :]) or BUDGET_WORDS.search(before[word.start() :]):
            continue
        # "$0.25 per kWh", "$2/hr", "每卡每小时 12 块": a rate, not a price; a purchase is thousands, not a few dollars.
        per_gpu = bool(PER_GPU.match(after) or PER_GPU_BEFORE.search(before))
        if not per_gpu and RATE_AFTER.match(after) or money.value < MIN_PURCHASE:
            continue
        return Money(money.value, money.currency, money.start, money.end, per_gpu)
    return None


PER_KWH = re.compile(r"\s*(?:/|每|per)\s*(?:度|kwh|千瓦时|kw)", re.I)
PER_MONTH_AFTER = re.compile(r"\s*(?:per|a|/)\s*mo", re.I)


def running_cost_per_month(text: str) -> Money | None:
    """Running costs a month (power, cooling, operations), from "每月电费加运维2万", "power and ops about $4k a month",
    or a yearly figure ("运维每年30万") turned into a month's."""
    for m in MONEY.finditer(text):
        money = _money(m)
        if money is None:
            continue
        before, after = text[max(0, m.start() - 24) : m.start()], text[m.end() : m.end() + 14]
        if not RUNNING_WORDS.search(before + after[:10]) or money.value < MIN_RUNNING:
            continue  # "电价 0.6 元/度", "$0.12 per kWh": a tariff, not a month's bill
        if PER_KWH.match(after):
            continue
        if PER_MONTH.search(before[-12:]) or PER_MONTH.match(after.lstrip()) or PER_MONTH_AFTER.match(after):
            return money
        if PER_YEAR.search(before[-12:]) or PER_YEAR.match(after.lstrip()):
            return Money(money.value / 12, money.currency, money.start, money.end)
    return None


def depreciation_years(text: str) -> tuple[float, int, int] | None:
    """The depreciation period in years ("按三年折旧", "depreciated over 5 years", "a 3-year depreciation"), or with a
    purchase weighed, the period its cost is spread over ("buy at $25k, over 3 years", "买下来用三年")."""
    m = DEPRECIATION.search(text) or (OWNERSHIP.search(text) and HORIZON.search(text))
    if not m:
        return None
    words = [g for g in m.groups() if g is not None and g.lower() in WORD_YEARS]
    if words:
        return WORD_YEARS[words[0].lower()], m.start(), m.end()
    number = next(g for g in m.groups() if g is not None)
    value = parse_number(number)
    return (value, m.start(), m.end()) if value and 0.1 <= value <= 15 else None


def ownership_figures(text: str, mask) -> dict:
    """The slots an ownership decision states, each span masked once read (`mask(start, end)`)."""
    out: dict = {}
    running = running_cost_per_month(text)
    if running is not None:
        out |= {"opex_per_month": running.value, "currency": running.currency}
        mask(running.start, running.end)
    price = purchase_price(text)
    if price is not None and (running is None or price.start != running.start):
        # Not masked: where a budget reader also sees the figure ("buy for $5,000"), handlers other than the
        # break-even keep reading it as the budget they always did.
        out |= {"capex_per_gpu" if price.per_gpu else "capex": price.value, "currency": price.currency}
    years = depreciation_years(text)
    if years is not None:
        out["depreciation_years"] = years[0]
        mask(years[1], years[2])
    return out
