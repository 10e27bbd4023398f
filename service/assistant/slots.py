"""Slot extraction: the workload facts stated in a zh/en question, normalised.

Only values the user states are extracted; defaults are the tools' business
(and are reported there with provenance "default"). Names and GPU counts are read here; the other
amounts (sequence length, data, deadline, budget, model size, utilisation) in slot_amounts.py.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from service.assistant.ownership_readers import ownership_figures
from service.assistant.numbers import ARABIC
from service.assistant.slot_amounts import NUM, MULT, blank_all, blank_out, budget, data_amounts, deadline, mask_sequence, model_size, number, sequence_length, signed, utilization
from service.assistant.slot_readers import EN_COUNT, EN_COUNTS, card_by_memory, network_ports, size_after_name, storage_write_gbps, users_in
from service.assistant.slot_readers import optimizer as read_optimizer
from service.assistant.slot_readers import price as _price
from service.assistant.slot_readers import unavailable
from service.catalog import Catalog
from service.catalog.names import CatalogNames, catalog_names, find_all  # noqa: F401 — catalog_names/find_all re-exported for callers

I = re.IGNORECASE


VARIANTS = {"a100-80gb-sxm": ("a100-40gb-sxm", "a100-80gb-sxm"), "a100-40gb-sxm": ("a100-40gb-sxm", "a100-80gb-sxm")}
# "H100 PCIe 和 SXM", "H100 SXM or PCIe": the second form factor names a sibling card without repeating the family.
FORM_FACTOR_PAIR = re.compile(
    r"(pcie|sxm\d?|nvl)\s*(?:版本?|卡|versions?|variants?|cards?)?\s*(?:和|与|跟|还是|或者?|对比|vs\.?|versus|or|and|/|、)\s*(?:the\s+)?(pcie|sxm\d?|nvl)(?![A-Za-z0-9])",
    re.IGNORECASE,
)


class Slots(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    params_b: float | None = None
    task: Literal["pretrain", "fine-tune", "inference"] | None = None
    method: Literal["full", "lora", "qlora"] | None = None
    tokens: float | None = None
    samples: float | None = None
    seq_len: int | None = None
    epochs: float | None = None
    gpu: str | None = None
    gpus: int | None = None
    nodes: int | None = None
    deadline_hours: float | None = None
    budget: float | None = None
    currency: Literal["USD", "CNY"] | None = None
    precision: Literal["fp32", "fp16", "bf16", "fp8"] | None = None
    data_sensitivity: Literal["restricted"] | None = None
    yearly_utilization: float | None = None
    gpu_utilization: float | None = None
    concurrency: int | None = None
    context_len: int | None = None
    measured_busbw_gbps: float | None = None
    gpu_hours: float | None = None
    weights: Literal["int8", "int4"] | None = None
    samples_per_second: float | None = None
    bytes_per_sample: float | None = None
    compare_gpus: list[str] | None = None
    # A rental rate the user quotes ("$2.5/GPU-hr", "¥9.8/卡时"), in `currency`: the break-even uses it instead of the catalog's.
    cloud_price_per_gpu_hour: float | None = None
    card_memory_gb: int | None = None  # "24G显存的卡": a card named by its memory alone; `gpu` holds the catalog stand-in
    storage_write_gbps: float | None = None  # "our NFS writes ~200 MB/s": where checkpoints go, GB/s
    nic_gbps: float | None = None  # "8 * 100 Gbps NICs", "1000 Mbit/s": one network port's Gbit/s
    nics_per_node: int | None = None
    fabric: Literal["roce", "infiniband", "ethernet"] | None = None
    users: int | None = None  # "2,000 daily active users", "日活两万": a user count (how many are in flight is the caller's assumption)
    optimizer: Literal["adamw-8bit", "adafactor", "sgd-momentum"] | None = None  # "with 8-bit Adam": the training-memory tool's optimizer
    # An ownership decision's own figures, in `currency`: the purchase price, running costs a month, depreciation years.
    capex: float | None = None
    capex_per_gpu: float | None = None
    opex_per_month: float | None = None
    depreciation_years: float | None = None

    def stated(self) -> dict:
        return self.model_dump(exclude_none=True)


# The catalog-name finder lives with the catalogs (one finder for slots, grounding and retrieval).
_Names = CatalogNames



FAMILY_PREFIX = re.compile(r"[A-Za-z]*\d+")


def _form_factor_siblings(text: str, gpus: list[tuple[str, int, int]], names: CatalogNames) -> list[str]:
    """The catalog ids of both form factors in "H100 PCIe 和 SXM" (a family named once, beside the pair), else []."""
    pair = FORM_FACTOR_PAIR.search(text)
    near = [(s, e) for _, s, e in gpus if pair and (0 <= pair.start() - e <= 12 or 0 <= s - pair.end() <= 12 or s <= pair.start() < e)]
    family = FAMILY_PREFIX.match(text[near[0][0] : near[0][1]]) if near else None
    if pair is None or family is None:
        return []
    return list(dict.fromkeys(g for form in pair.groups() for g, _, _ in find_all(names.gpu, f"{family.group(0)} {form}")))


SIZE_AFTER_NAME = re.compile(r"\d+(?:\.\d+)?\s*[bB](?![a-zA-Z0-9])")
TWO_MEMORY_VARIANTS = re.compile(r"40\s*G(?:B)?.{0,6}(?:和|与|跟|还是|or|vs|/|、).{0,4}80\s*G|80\s*G(?:B)?.{0,6}(?:和|与|跟|还是|or|vs|/|、).{0,4}40\s*G", I)
QLORA = re.compile(r"qlora")
LORA = re.compile(r"(?<!q)lora")
FULL_FINE_TUNE = re.compile(r"全参|全量|full[\s-]*(?:parameter|param)?[\s-]*(?:fine[\s-]*tun|ft|training)|full fine|fully fine|full version|full-parameter|fft\b")
FINE_TUNE_WORDS = re.compile(r"微调|精调|fine[\s-]*tun|finetun|\bsft\b|指令调优|instruction[\s-]*tun")
SERVE_WORDS = re.compile(r"推理|serving|\bserve\b|inference|在线服务|上线服务|部署.{0,6}(?:服务|api)")
PRETRAIN_WORDS = re.compile(r"预训练|pre-?train|from scratch|从头训|从零(?:开始)?训|chinchilla|计算最优|算力最优|compute[\s-]*optimal")
AFTER_TUNING = re.compile(r"完了|之后|以后|后要|then|after")
INFERENCE_WORDS = re.compile(SERVE_WORDS.pattern + r"|\bqps\b|并发|concurren|tokens?/s|tok/s|解码|decode|"
                   r"\brag\b|req(?:uest)?s?\s*(?:/|per|a)\s*(?:s|sec|second)\b|\brps\b|每秒.{0,4}请求|\bttft\b|首字延迟|"
                   r"助手|assistant|copilot|chatbot|客服|\d+\s*(?:个|名|位)?人(?:在)?用|同时(?:跑|处理|服务|支持)几|how many (?:concurrent|simultaneous|parallel)|"
                   r"how many (?:sequences|requests) (?:at once|in parallel|concurrently)")
TRAINING_PRECISION = re.compile(r"(?<![a-z0-9])(fp8|bf16|fp16|fp32|tf32)(?![a-z0-9])")
RESTRICTED_DATA = re.compile(r"数据不能出|不能出域|不出域|出不了|不能上云|不能放.{0,4}云|不能离开|敏感数据|涉密|合规要求|监管|私有化部署|on-?prem(?:ise)? only|cannot leave|can't leave|must stay|may not leave|not allowed to leave|confidential|regulated|hipaa|gdpr|air-?gapped")
CONCURRENT_COUNT = re.compile(rf"{NUM}\s*{MULT}\s*(?:个|路)?\s*(?:并发|concurrent|simultaneous|parallel requests|users? at (?:the same time|once)|同时在线)", I)
SIMULTANEOUS_COUNT = re.compile(rf"同时\s*{NUM}\s*()(?:个|路)?\s*(?:请求|用户|会话|并发)")
BATCH_COUNT = re.compile(rf"(?:batch(?:[\s_-]*size)?|并发数?)\s*(?:=|:|为|是)?\s*{NUM}()", I)
GPU_HOURS = re.compile(rf"{NUM}\s*{MULT}\s*(?:个)?\s*(?:gpu[\s-]*(?:hours?|小时|h\b)|卡时|卡·?小时)", I)
WEIGHT_QUANTISATION = re.compile(r"(?<![a-z0-9])(int4|int8|4-?bit|8-?bit|awq|gptq)(?![a-z0-9])(?!\s*(?:paged\s*)?adam)")
SAMPLE_RATE = re.compile(rf"{NUM}\s*{MULT}\s*(?:images?|samples?|张图(?:片)?|个样本|条样本)\s*(?:/\s*s|per second|每秒)(\s*(?:per|/|每)\s*(?:gpu|卡))?", I)
SAMPLE_RATE_ZH = re.compile(rf"每秒\s*{NUM}\s*{MULT}\s*(?:张|个|条)\s*(?:图片|图|样本)()")
SAMPLE_SIZE = re.compile(rf"{NUM}\s*(kb|kib|mb|mib)\b", I)
BUSBW_BEFORE_WORD = re.compile(rf"(?<![A-Za-z0-9_.])()({ARABIC})\s*GB/s\s*(?:of\s+)?(?:busbw|bus ?bandwidth|总线带宽)", I)
BUSBW_AFTER_WORD = re.compile(rf"(?:busbw|bus ?bandwidth|总线带宽)([^0-9\n]{{0,20}})(?<![A-Za-z0-9_.])({ARABIC})(?![\d.,])"
        rf"(?!\s*(?:卡|张|块|台|个节点|x\b|×|gpus?\b|nodes?\b|cards?\b|gbps|gbit|G(?:b)?(?![A-Za-z/])))", I)


def extract_slots(text: str, catalog: Catalog) -> Slots:
    names = catalog_names(catalog)
    slots: dict = {}
    masked = text

    def mask(start: int, end: int) -> None:
        nonlocal masked
        masked = blank_out(masked, start, end)

    # -- names (masked so their digits are not read as quantities) ------------------
    models = find_all(names.model, text)
    if models:
        slots["model"] = models[0][0]
        masked = blank_all(masked, [(s, e) for _, s, e in models])
        size, token = size_after_name(text, models[0], catalog)
        if size:
            # "DeepSeek-R1-Distill-Qwen-32B": the name's own parameter count beats the family it starts with.
            del slots["model"]
            slots["params_b"] = size
            mask(*token)
    else:
        fuzzy = catalog.find_model(text)
        if fuzzy is not None:
            slots["model"] = fuzzy.id
            size = SIZE_AFTER_NAME.search(masked)
            if size:
                mask(size.start(), size.end())
    # Read before GPU counts and budgets: "每卡每小时 12 块" is a price, not 12 GPUs nor a 12-yuan budget.
    price = _price(masked)
    if price:
        value, currency, start, end = price
        slots["cloud_price_per_gpu_hour"] = value
        if currency:
            slots["currency"] = currency
        mask(start, end)
    for key, value in ownership_figures(masked, mask).items():
        slots.setdefault(key, value)
    gpus = find_all(names.gpu, masked)
    if gpus:
        slots["gpu"] = gpus[0][0]
        distinct = list(dict.fromkeys(g for g, _, _ in gpus))
        if len(distinct) > 1 and (out_of_reach := unavailable(masked, gpus)) and (options := [g for g in distinct if g not in out_of_reach]):
            distinct, slots["gpu"] = options, options[0]  # "买不到 H100，H800 还是 H20？": the options, not the reason
        # "A100 有 40G 和 80G 两个版本": one family, two memory variants.
        if distinct[0] in VARIANTS and TWO_MEMORY_VARIANTS.search(text):
            distinct = list(VARIANTS[distinct[0]])
        if len(distinct) == 1:
            distinct += [g for g in _form_factor_siblings(text, gpus, names) if g not in distinct]
        if len(distinct) > 1:
            slots["compare_gpus"] = distinct
        masked = blank_all(masked, [(s, e) for _, s, e in gpus])
        slots.update(_gpu_counts(masked, gpus))

    elif (card := card_by_memory(masked)) is not None:
        slots["gpu"], slots["card_memory_gb"] = card
    if "gpus" not in slots:
        slots.update(_bare_count(masked))

    # -- workload ---------------------------------------------------------------------
    lowered = masked.lower()
    if QLORA.search(lowered):
        slots["method"] = "qlora"
    elif LORA.search(lowered):
        slots["method"] = "lora"
    elif FULL_FINE_TUNE.search(lowered):
        slots["method"] = "full"
    tune = FINE_TUNE_WORDS.search(lowered)
    serve = SERVE_WORDS.search(lowered)
    if PRETRAIN_WORDS.search(lowered):  # Chinchilla data is pre-training data
        slots["task"] = "pretrain"
    elif tune and serve and serve.start() > tune.start() and AFTER_TUNING.search(lowered):
        slots["task"] = "inference"  # "微调完了要上线推理": the question is about serving
    elif tune or slots.get("method") in ("lora", "qlora"):
        slots["task"] = "fine-tune"
    elif INFERENCE_WORDS.search(lowered):
        slots["task"] = "inference"
    if "method" in slots and "task" not in slots:
        slots["task"] = "fine-tune"

    optimizer = read_optimizer(lowered)
    if optimizer:
        slots["optimizer"] = optimizer
    slots.update(sequence_length(masked, slots.get("task")))
    masked = mask_sequence(masked)
    slots.update(data_amounts(masked))
    slots.update(deadline(masked))
    for key, value in budget(masked).items():
        slots.setdefault(key, value)  # a currency stated with the price stays
    users = users_in(masked)
    if users:
        slots["users"] = users
    if "model" not in slots:
        size = model_size(masked)
        if size:
            slots["params_b"] = size
    prec = TRAINING_PRECISION.search(lowered)
    if prec:
        slots["precision"] = "fp32" if prec.group(1) == "tf32" else prec.group(1)
    if RESTRICTED_DATA.search(lowered):
        slots["data_sensitivity"] = "restricted"
    slots.update(utilization(masked))
    conc = CONCURRENT_COUNT.search(masked) \
        or SIMULTANEOUS_COUNT.search(masked) \
        or (slots.get("task") == "inference" and BATCH_COUNT.search(masked))
    if conc:
        value = number(conc.group(1), conc.group(2))
        if value:
            slots["concurrency"] = int(value)
    # Run over the masked text: "10,000 H100 GPU-hours" reads "10,000      GPU-hours".
    hours = GPU_HOURS.search(masked)
    if hours:
        slots["gpu_hours"] = number(hours.group(1), hours.group(2))
    # "8-bit Adam" is the optimizer's precision, not the weights'
    quant = WEIGHT_QUANTISATION.search(lowered)
    if quant:
        slots["weights"] = "int8" if "8" in quant.group(1) else "int4"
    rate = SAMPLE_RATE.search(masked) \
        or SAMPLE_RATE_ZH.search(masked)
    if rate:
        value = number(rate.group(1), rate.group(2))
        if value:
            slots["samples_per_second"] = value * (slots.get("gpus", 1) if rate.group(3) else 1)
    size = SAMPLE_SIZE.search(masked)
    if size and "samples_per_second" in slots:
        slots["bytes_per_sample"] = (number(size.group(1)) or 0) * {"kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 2**20}[size.group(2).lower()]
    slots["storage_write_gbps"] = storage_write_gbps(masked)
    slots.update(network_ports(masked))
    # "9 GB/s busbw over 400G InfiniBand": the reading is the GB/s before the word; 400G after it is the link's rate
    bus = BUSBW_BEFORE_WORD.search(masked) or BUSBW_AFTER_WORD.search(masked)
    if bus and QUESTION_GAP.search(bus.group(1)):
        bus = None  # "busbw 一般多少算正常？8卡A100": the number after the question is the GPU count, not a reading
    if bus:
        slots["measured_busbw_gbps"] = float(number(bus.group(2)) or 0) or None
    return Slots.model_validate({k: v for k, v in slots.items() if v is not None})


HOURS_AFTER_COUNT = re.compile(r"\s*(?:gpu[\s-]*hours?|gpu\s*小时|卡时|hours?)", I)
COUNT_BEFORE_NAME = re.compile(rf"{NUM}\s*(?:张|块|卡|个|x|×|\*|-?gpu|-?way)?\s*(?:卡)?\s*$", I)
WORD_COUNT_BEFORE_NAME = re.compile(rf"{EN_COUNT}\s+(?:x\s*)?$", I)
TIMES_AFTER_NAME = re.compile(rf"\s*(?:x|×|\*|GPU\s*x)\s*{NUM}", I)
COUNT_AFTER_NAME = re.compile(rf"\s*s?\s*[:：]?\s*{NUM}\s*(?:张|块|卡|个)", I)


def _count_beside(text: str, start: int, end: int) -> float | None:
    """The count written against one GPU mention: "8x H100", "eight RTX 4090", "H100 x 8", "H100：8张"."""
    before, after = text[max(0, start - 24):start], text[end:end + 16]
    if HOURS_AFTER_COUNT.match(after):
        return None
    per_node = COUNT_BEFORE_NAME.search(before) \
        or WORD_COUNT_BEFORE_NAME.search(before)  # "eight RTX 4090", "two H100s"
    times_after = TIMES_AFTER_NAME.match(after) or COUNT_AFTER_NAME.match(after)
    if per_node and per_node.group(1):
        return EN_COUNTS.get(per_node.group(1).lower()) or signed(number(per_node.group(1)), before, per_node.start(1))
    return number(times_after.group(1)) if times_after else None


NODES_BY_CARDS = re.compile(rf"{NUM}\s*台\s*{NUM}\s*卡")
NODES_ZH = re.compile(rf"{NUM}\s*(?:台|个|组)\s*[^，。,.;；?？]{{0,16}}?(?:节点|服务器|机器)")
NODES_COUNT = re.compile(rf"{NUM}\s*(?:-|\s)?(?:节点|nodes?|servers?|machines?|hosts?)(?![a-z])", I)
NODES_WORD_COUNT = re.compile(rf"{EN_COUNT}\s+(?:nodes?|servers?|machines?|hosts?)(?![a-z])", I)


def _gpu_counts(text: str, gpus: list[tuple[str, int, int]]) -> dict:
    out: dict = {}
    # The first mention that carries a count: "renting H100s at $2.5/GPU-hr, 8xH100" counts 8.
    count = next((c for _, start, end in gpus if (c := _count_beside(text, start, end))), None)
    pair = NODES_BY_CARDS.search(text)
    if pair:
        node_count, per = number(pair.group(1)), number(pair.group(2))
        if node_count and per:
            return {"nodes": int(node_count), "gpus": int(node_count * per)}
    nodes = NODES_ZH.search(text) \
        or NODES_COUNT.search(text)
    words = NODES_WORD_COUNT.search(text)  # "two H100 nodes" (name masked)
    node_count = (number(nodes.group(1)) if nodes else None) or (EN_COUNTS[words.group(1).lower()] if words else None)
    if node_count:
        out["nodes"] = int(node_count)
        # "64台8卡H100服务器" / "64 nodes of 8x H100": GPUs = nodes × GPUs per node (8 when unstated).
        per_node = None if words and not nodes and count == node_count else count  # "two H100 nodes": one "two", read twice
        out["gpus"] = int(node_count * (per_node or 8))
        return out
    if count:
        out["gpus"] = int(count)
    return out


NODES_BY_CARDS_NOT_HOURS = re.compile(rf"{NUM}\s*台\s*{NUM}\s*卡(?!时)")
NODES_ANY = re.compile(rf"{NUM}\s*(?:台|个)\s*(?:节点|服务器|机器)|{NUM}\s*(?:-|\s)?(?:nodes?|servers?)(?![a-z])", I)
NODES_WORD_ANY = re.compile(rf"{EN_COUNT}\s+(?:nodes?|servers?|machines?|hosts?)(?![a-z])", I)
SINGLE_CARD = re.compile(r"单卡|单张|一张卡|一块卡|一张\s{2,}|\bsingle\s+(?:gpu|card)s?\b|\bsingle\s{3,}|\bone (?:gpu|card)\b", I)
CARD_COUNT = re.compile(rf"{NUM}\s*(?:张|块)\s*(?:gpu|卡|显卡)?|{NUM}\s*(?:x\s*)?(?:gpus|cards)\b|{NUM}[\s-]*(?:gpu|card)(?=\s+(?:[a-z-]+\s+){{0,2}}(?:cluster|node|server|box|machine|setup|rig|system)s?\b)|{NUM}\s*卡(?!时)", I)
CARD_WORD_COUNT = re.compile(rf"{EN_COUNT}\s+(?:\w+\s+)?(?:gpus|cards|accelerators)\b", I)


# "双卡", "2*24G显存", "4x80GB": a count of cards written as a pair or as count × memory per card.
PAIR_OF_CARDS = re.compile(r"双\s*(?:卡|显卡|gpu)", I)
COUNT_TIMES_MEMORY = re.compile(r"(?<![\d.])([1-9]\d?)\s*[*x×]\s*\d{1,3}\s*G(?:B|iB)?(?![A-Za-z])", I)


def _bare_count(text: str) -> dict:
    """GPU counts without a GPU type: "8张卡", "with 8 GPUs", "单卡", "a single GPU", "两台8卡", "双卡", "2*24G"."""
    pair = NODES_BY_CARDS_NOT_HOURS.search(text)
    if pair and number(pair.group(1)) and number(pair.group(2)):
        return {"nodes": int(number(pair.group(1))), "gpus": int(number(pair.group(1)) * number(pair.group(2)))}
    # "8 nodes", "4台机器", "两台服务器" with no GPU named: HGX-class nodes of eight GPUs, as _gpu_counts assumes.
    nodes = NODES_ANY.search(text)
    words = NODES_WORD_ANY.search(text)  # "between two nodes"
    node_count = (number(nodes.group(1) or nodes.group(2)) if nodes else None) or (EN_COUNTS[words.group(1).lower()] if words else None)
    if node_count and node_count < 1e4:
        return {"nodes": int(node_count), "gpus": int(node_count * 8)}
    # A masked GPU name leaves a run of spaces: "single H100" reads "single     ".
    single = SINGLE_CARD.search(text)
    m = CARD_COUNT.search(text)
    if m and (single is None or m.start() < single.start()):
        group = next(i for i in range(1, (m.lastindex or 0) + 1) if m.group(i))
        value = signed(number(m.group(group)), text, m.start(group))
        if value and value < 1e6:
            return {"gpus": int(value)}
    words = CARD_WORD_COUNT.search(text)  # "eight GPUs", "two A100 cards" (name masked)
    if words and single is None:
        return {"gpus": EN_COUNTS[words.group(1).lower()]}
    if single is None and PAIR_OF_CARDS.search(text):
        return {"gpus": 2}
    times = COUNT_TIMES_MEMORY.search(text)
    if times and single is None:
        return {"gpus": int(times.group(1))}
    return {"gpus": 1} if single else {}


QUESTION_GAP = re.compile(r"多少|应该|正常|预期|期望|should|expect|normal|typical|what", re.I)

