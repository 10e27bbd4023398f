"""Slot extraction: the workload facts stated in a zh/en question, normalised.

Only values the user states are extracted; defaults are the tools' business
(and are reported there with provenance "default").
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from service.assistant.ownership_readers import ownership_figures
from service.assistant.numbers import ARABIC, BIG, CN_NUMERAL, parse_number
from service.assistant.slot_readers import EN_COUNT, EN_COUNTS, card_by_memory, size_after_name, storage_write_gbps, users_in
from service.assistant.slot_readers import optimizer as read_optimizer
from service.assistant.slot_readers import price as _price
from service.assistant.slot_readers import unavailable
from service.assistant.usage_readers import usage_share
from service.catalog import Catalog
from service.catalog.names import CatalogNames, catalog_names, find_all  # noqa: F401 — catalog_names/find_all re-exported for callers

NUM = rf"(?<![A-Za-z0-9_.])({ARABIC}|{CN_NUMERAL})"
MULT = rf"({BIG}|[kKmMbBtT](?![a-zA-Z]))?"
WORD_MULT = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
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
    users: int | None = None  # "2,000 daily active users", "日活两万": a user count (how many are in flight is the caller's assumption)
    optimizer: Literal["adamw-8bit", "adafactor", "sgd-momentum"] | None = None  # "with 8-bit Adam": the training-memory tool's optimizer
    # An ownership decision's own figures, in `currency`: the purchase price, running costs a month, depreciation years.
    capex: float | None = None
    capex_per_gpu: float | None = None
    opex_per_month: float | None = None
    depreciation_years: float | None = None

    def stated(self) -> dict:
        return self.model_dump(exclude_none=True)


def _num(text: str, mult: str | None = None) -> float | None:
    value = parse_number(text + (mult or ""))
    return value


# The catalog-name finder lives with the catalogs (one finder for slots, grounding and retrieval).
_Names = CatalogNames


_UNIT_HOURS = [(r"小时|个小时|h(?![a-z0-9])|hrs?(?![a-z])|hours?", 1.0), (r"天|日|days?", 24.0), (r"周|个星期|星期|weeks?", 168.0), (r"个月|月|months?", 720.0)]


def _form_factor_siblings(text: str, gpus: list[tuple[str, int, int]], names: CatalogNames) -> list[str]:
    """The catalog ids of both form factors in "H100 PCIe 和 SXM" (a family named once, beside the pair), else []."""
    pair = FORM_FACTOR_PAIR.search(text)
    near = [(s, e) for _, s, e in gpus if pair and (0 <= pair.start() - e <= 12 or 0 <= s - pair.end() <= 12 or s <= pair.start() < e)]
    family = re.match(r"[A-Za-z]*\d+", text[near[0][0] : near[0][1]]) if near else None
    if pair is None or family is None:
        return []
    return list(dict.fromkeys(g for form in pair.groups() for g, _, _ in find_all(names.gpu, f"{family.group(0)} {form}")))


def extract_slots(text: str, catalog: Catalog) -> Slots:
    names = catalog_names(catalog)
    slots: dict = {}
    masked = text

    def mask(start: int, end: int) -> None:
        nonlocal masked
        masked = masked[:start] + " " * (end - start) + masked[end:]

    # -- names (masked so their digits are not read as quantities) ------------------
    models = find_all(names.model, text)
    if models:
        slots["model"] = models[0][0]
        for _, s, e in models:
            mask(s, e)
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
            size = re.search(r"\d+(?:\.\d+)?\s*[bB](?![a-zA-Z0-9])", masked)
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
        if distinct[0] in VARIANTS and re.search(r"40\s*G(?:B)?.{0,6}(?:和|与|跟|还是|or|vs|/|、).{0,4}80\s*G|80\s*G(?:B)?.{0,6}(?:和|与|跟|还是|or|vs|/|、).{0,4}40\s*G", text, I):
            distinct = list(VARIANTS[distinct[0]])
        if len(distinct) == 1:
            distinct += [g for g in _form_factor_siblings(text, gpus, names) if g not in distinct]
        if len(distinct) > 1:
            slots["compare_gpus"] = distinct
        for _, s, e in gpus:
            mask(s, e)
        slots.update(_gpu_counts(masked, gpus))

    elif (card := card_by_memory(masked)) is not None:
        slots["gpu"], slots["card_memory_gb"] = card
    if "gpus" not in slots:
        slots.update(_bare_count(masked))

    # -- workload ---------------------------------------------------------------------
    lowered = masked.lower()
    if re.search(r"qlora", lowered):
        slots["method"] = "qlora"
    elif re.search(r"(?<!q)lora", lowered):
        slots["method"] = "lora"
    elif re.search(r"全参|全量|full[\s-]*(?:parameter|param)?[\s-]*(?:fine[\s-]*tun|ft|training)|full fine|fully fine|full version|full-parameter|fft\b", lowered):
        slots["method"] = "full"
    tune = re.search(r"微调|精调|fine[\s-]*tun|finetun|\bsft\b|指令调优|instruction[\s-]*tun", lowered)
    serve = re.search(r"推理|serving|\bserve\b|inference|在线服务|上线服务|部署.{0,6}(?:服务|api)", lowered)
    if re.search(r"预训练|pre-?train|from scratch|从头训|从零(?:开始)?训", lowered):
        slots["task"] = "pretrain"
    elif tune and serve and serve.start() > tune.start() and re.search(r"完了|之后|以后|后要|then|after", lowered):
        slots["task"] = "inference"  # "微调完了要上线推理": the question is about serving
    elif tune or slots.get("method") in ("lora", "qlora"):
        slots["task"] = "fine-tune"
    elif re.search(r"推理|serving|\bserve\b|inference|在线服务|上线服务|部署.{0,6}(?:服务|api)|\bqps\b|并发|concurren|tokens?/s|tok/s|解码|decode|"
                   r"\brag\b|req(?:uest)?s?\s*(?:/|per|a)\s*(?:s|sec|second)\b|\brps\b|每秒.{0,4}请求|\bttft\b|首字延迟|"
                   r"助手|assistant|copilot|chatbot|客服|\d+\s*(?:个|名|位)?人(?:在)?用|同时(?:跑|处理|服务|支持)几|how many (?:concurrent|simultaneous|parallel)|"
                   r"how many (?:sequences|requests) (?:at once|in parallel|concurrently)", lowered):
        slots["task"] = "inference"
    if "method" in slots and "task" not in slots:
        slots["task"] = "fine-tune"

    optimizer = read_optimizer(lowered)
    if optimizer:
        slots["optimizer"] = optimizer
    slots.update(_sequence(masked, slots.get("task")))
    masked = _mask_sequence(masked)
    slots.update(_data_amounts(masked))
    slots.update(_duration(masked))
    for key, value in _budget(masked).items():
        slots.setdefault(key, value)  # a currency stated with the price stays
    users = users_in(masked)
    if users:
        slots["users"] = users
    if "model" not in slots:
        size = _params(masked)
        if size:
            slots["params_b"] = size
    prec = re.search(r"(?<![a-z0-9])(fp8|bf16|fp16|fp32|tf32)(?![a-z0-9])", lowered)
    if prec:
        slots["precision"] = "fp32" if prec.group(1) == "tf32" else prec.group(1)
    if re.search(r"数据不能出|不能出域|不出域|出不了|不能上云|不能放.{0,4}云|不能离开|敏感数据|涉密|合规要求|监管|私有化部署|on-?prem(?:ise)? only|cannot leave|can't leave|must stay|may not leave|not allowed to leave|confidential|regulated|hipaa|gdpr|air-?gapped", lowered):
        slots["data_sensitivity"] = "restricted"
    slots.update(_utilization(masked))
    conc = re.search(rf"{NUM}\s*{MULT}\s*(?:个|路)?\s*(?:并发|concurrent|simultaneous|parallel requests|users? at (?:the same time|once)|同时在线)", masked, I) \
        or re.search(rf"同时\s*{NUM}\s*()(?:个|路)?\s*(?:请求|用户|会话|并发)", masked) \
        or (slots.get("task") == "inference" and re.search(rf"(?:batch(?:[\s_-]*size)?|并发数?)\s*(?:=|:|为|是)?\s*{NUM}()", masked, I))
    if conc:
        value = _num(conc.group(1), conc.group(2))
        if value:
            slots["concurrency"] = int(value)
    # Run over the masked text: "10,000 H100 GPU-hours" reads "10,000      GPU-hours".
    hours = re.search(rf"{NUM}\s*{MULT}\s*(?:个)?\s*(?:gpu[\s-]*(?:hours?|小时|h\b)|卡时|卡·?小时)", masked, I)
    if hours:
        slots["gpu_hours"] = _num(hours.group(1), hours.group(2))
    # "8-bit Adam" is the optimizer's precision, not the weights'
    quant = re.search(r"(?<![a-z0-9])(int4|int8|4-?bit|8-?bit|awq|gptq)(?![a-z0-9])(?!\s*(?:paged\s*)?adam)", lowered)
    if quant:
        slots["weights"] = "int8" if "8" in quant.group(1) else "int4"
    rate = re.search(rf"{NUM}\s*{MULT}\s*(?:images?|samples?|张图(?:片)?|个样本|条样本)\s*(?:/\s*s|per second|每秒)(\s*(?:per|/|每)\s*(?:gpu|卡))?", masked, I) \
        or re.search(rf"每秒\s*{NUM}\s*{MULT}\s*(?:张|个|条)\s*(?:图片|图|样本)()", masked)
    if rate:
        value = _num(rate.group(1), rate.group(2))
        if value:
            slots["samples_per_second"] = value * (slots.get("gpus", 1) if rate.group(3) else 1)
    size = re.search(rf"{NUM}\s*(kb|kib|mb|mib)\b", masked, I)
    if size and "samples_per_second" in slots:
        slots["bytes_per_sample"] = (_num(size.group(1)) or 0) * {"kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 2**20}[size.group(2).lower()]
    slots["storage_write_gbps"] = storage_write_gbps(masked)
    # "9 GB/s busbw over 400G InfiniBand": the reading is the GB/s before the word; 400G after it is the link's rate
    bus = re.search(rf"(?<![A-Za-z0-9_.])()({ARABIC})\s*GB/s\s*(?:of\s+)?(?:busbw|bus ?bandwidth|总线带宽)", masked, I) or re.search(
        rf"(?:busbw|bus ?bandwidth|总线带宽)([^0-9\n]{{0,20}})(?<![A-Za-z0-9_.])({ARABIC})(?![\d.,])"
        rf"(?!\s*(?:卡|张|块|台|个节点|x\b|×|gpus?\b|nodes?\b|cards?\b|gbps|gbit|G(?:b)?(?![A-Za-z/])))", masked, I)
    if bus and QUESTION_GAP.search(bus.group(1)):
        bus = None  # "busbw 一般多少算正常？8卡A100": the number after the question is the GPU count, not a reading
    if bus:
        slots["measured_busbw_gbps"] = float(_num(bus.group(2)) or 0) or None
    return Slots.model_validate({k: v for k, v in slots.items() if v is not None})


def _negative(text: str, start: int) -> bool:
    """A minus sign written right before the number at `start` ("-8 H100", "−3 days"), not a range or a name ("A100-8", "1-8")."""
    head = text[:start].rstrip()
    if not head or head[-1] not in "-−－" and not head.endswith("负"):
        return False
    before = head[:-1]
    return not before or not (before[-1].isascii() and before[-1].isalnum())


def _signed(value: float | None, text: str, start: int) -> float | None:
    # Kept negative on purpose: the sizing tools then refuse it with a field-named message the answer
    # shows, instead of silently computing with 8 GPUs when the user wrote -8.
    return -value if value and _negative(text, start) else value


def _count_beside(text: str, start: int, end: int) -> float | None:
    """The count written against one GPU mention: "8x H100", "eight RTX 4090", "H100 x 8", "H100：8张"."""
    before, after = text[max(0, start - 24):start], text[end:end + 16]
    if re.match(r"\s*(?:gpu[\s-]*hours?|gpu\s*小时|卡时|hours?)", after, I):
        return None
    per_node = re.search(rf"{NUM}\s*(?:张|块|卡|个|x|×|\*|-?gpu|-?way)?\s*(?:卡)?\s*$", before, I) \
        or re.search(rf"{EN_COUNT}\s+(?:x\s*)?$", before, I)  # "eight RTX 4090", "two H100s"
    times_after = re.match(rf"\s*(?:x|×|\*|GPU\s*x)\s*{NUM}", after, I) or re.match(rf"\s*s?\s*[:：]?\s*{NUM}\s*(?:张|块|卡|个)", after, I)
    if per_node and per_node.group(1):
        return EN_COUNTS.get(per_node.group(1).lower()) or _signed(_num(per_node.group(1)), before, per_node.start(1))
    return _num(times_after.group(1)) if times_after else None


def _gpu_counts(text: str, gpus: list[tuple[str, int, int]]) -> dict:
    out: dict = {}
    # The first mention that carries a count: "renting H100s at $2.5/GPU-hr, 8xH100" counts 8.
    count = next((c for _, start, end in gpus if (c := _count_beside(text, start, end))), None)
    pair = re.search(rf"{NUM}\s*台\s*{NUM}\s*卡", text)
    if pair:
        node_count, per = _num(pair.group(1)), _num(pair.group(2))
        if node_count and per:
            return {"nodes": int(node_count), "gpus": int(node_count * per)}
    nodes = re.search(rf"{NUM}\s*(?:台|个|组)\s*[^，。,.;；?？]{{0,16}}?(?:节点|服务器|机器)", text) \
        or re.search(rf"{NUM}\s*(?:-|\s)?(?:节点|nodes?|servers?|machines?|hosts?)(?![a-z])", text, I)
    words = re.search(rf"{EN_COUNT}\s+(?:nodes?|servers?|machines?|hosts?)(?![a-z])", text, I)  # "two H100 nodes" (name masked)
    node_count = (_num(nodes.group(1)) if nodes else None) or (EN_COUNTS[words.group(1).lower()] if words else None)
    if node_count:
        out["nodes"] = int(node_count)
        # "64台8卡H100服务器" / "64 nodes of 8x H100": GPUs = nodes × GPUs per node (8 when unstated).
        per_node = None if words and not nodes and count == node_count else count  # "two H100 nodes": one "two", read twice
        out["gpus"] = int(node_count * (per_node or 8))
        return out
    if count:
        out["gpus"] = int(count)
    return out


def _bare_count(text: str) -> dict:
    """GPU counts without a GPU type: "8张卡", "with 8 GPUs", "单卡", "a single GPU", "两台8卡"."""
    pair = re.search(rf"{NUM}\s*台\s*{NUM}\s*卡(?!时)", text)
    if pair and _num(pair.group(1)) and _num(pair.group(2)):
        return {"nodes": int(_num(pair.group(1))), "gpus": int(_num(pair.group(1)) * _num(pair.group(2)))}
    # "8 nodes", "4台机器", "两台服务器" with no GPU named: HGX-class nodes of eight GPUs, as _gpu_counts assumes.
    nodes = re.search(rf"{NUM}\s*(?:台|个)\s*(?:节点|服务器|机器)|{NUM}\s*(?:-|\s)?(?:nodes?|servers?)(?![a-z])", text, I)
    words = re.search(rf"{EN_COUNT}\s+(?:nodes?|servers?|machines?|hosts?)(?![a-z])", text, I)  # "between two nodes"
    node_count = (_num(nodes.group(1) or nodes.group(2)) if nodes else None) or (EN_COUNTS[words.group(1).lower()] if words else None)
    if node_count and node_count < 1e4:
        return {"nodes": int(node_count), "gpus": int(node_count * 8)}
    # A masked GPU name leaves a run of spaces: "single H100" reads "single     ".
    single = re.search(r"单卡|单张|一张卡|一块卡|一张\s{2,}|\bsingle\s+(?:gpu|card)s?\b|\bsingle\s{3,}|\bone (?:gpu|card)\b", text, I)
    m = re.search(rf"{NUM}\s*(?:张|块)\s*(?:gpu|卡|显卡)?|{NUM}\s*(?:x\s*)?(?:gpus|cards)\b|{NUM}[\s-]*(?:gpu|card)(?=\s+(?:[a-z-]+\s+){{0,2}}(?:cluster|node|server|box|machine|setup|rig|system)s?\b)|{NUM}\s*卡(?!时)", text, I)
    if m and (single is None or m.start() < single.start()):
        group = next(i for i in range(1, (m.lastindex or 0) + 1) if m.group(i))
        value = _signed(_num(m.group(group)), text, m.start(group))
        if value and value < 1e6:
            return {"gpus": int(value)}
    words = re.search(rf"{EN_COUNT}\s+(?:\w+\s+)?(?:gpus|cards|accelerators)\b", text, I)  # "eight GPUs", "two A100 cards" (name masked)
    if words and single is None:
        return {"gpus": EN_COUNTS[words.group(1).lower()]}
    return {"gpus": 1} if single else {}


_SEQ_PATTERNS = [
    rf"(?:序列长度|上下文(?:长度|窗口)?|seq(?:uence)?(?:[\s_-]*len(?:gth)?)?|context(?:[\s_-]*(?:length|window|len))?|max[\s_-]*len(?:gth)?)\s*(?:为|是|=|:|：|of|to|开到|设为|设成|调到|到|is)?\s*(?:more like|closer to|about|around|roughly|only|~|大概|大约|约)?\s*{NUM}\s*(万|[kK])?",
    rf"{NUM}\s*([kK])?\s*-?\s*tokens?\s+(?:context|window|requests?|sequences?|prompts?)",
    rf"(?:samples?|examples?|条)\s*[x×*]\s*{NUM}\s*([kK])?\s*(?:tokens?)",
    rf"每条(?:样本|数据)?(?:约|大约|平均)?\s*{NUM}\s*([kK])?\s*(?:个)?\s*tokens?",
    rf"{NUM}\s*([kK])?\s*tokens?\s*(?:each|per (?:sample|example|sequence|request)|一条|每条|/条|长)",
    rf"{NUM}\s*([kK])\s*[-\s]?\s*(?:的)?\s*(?:context|ctx|上下文|长度|序列)",
    # "80,000 samples, avg 3,000 tokens", "平均每条 2k token": a length per sample, not the dataset's tokens
    rf"(?:avg|average|mean|平均|平均每条|平均长度)\s*(?:of|是|为|约|大约|~|:|：)?\s*(?:about|around|~)?\s*{NUM}\s*([kK])?\s*(?:个)?\s*tokens?",
]


def _sequence(text: str, task: str | None) -> dict:
    for pattern in _SEQ_PATTERNS:
        m = re.search(pattern, text, I)
        if m:
            value = _num(m.group(1))
            if value:
                value *= {"万": 10_000}.get(m.group(2) or "", 1024 if m.group(2) else 1)  # "3.2万" tokens, "8k"
                key = "context_len" if task == "inference" else "seq_len"
                return {key: int(value)}
    return {}


def _mask_sequence(text: str) -> str:
    for pattern in _SEQ_PATTERNS:
        text = re.sub(pattern, lambda m: " " * len(m.group(0)), text, flags=I)
    return text


def _data_amounts(text: str) -> dict:
    out: dict = {}
    tok = re.search(rf"{NUM}\s*{MULT}\s*(thousand|million|billion|trillion)?\s*(?:个)?\s*(?:tokens?|词元)", text, I)
    if tok:
        value = _num(tok.group(1), tok.group(2))
        if value and tok.group(3):
            value *= WORD_MULT[tok.group(3).lower()]
        if value:
            out["tokens"] = value
    sam = re.search(rf"{NUM}\s*{MULT}\s*(thousand|million)?\s*(?:条|个|份|组)?\s*(?:[a-z-]+\s+){{0,2}}(?:样本|训练样本|数据|指令|对话|问答对|samples?|examples?|instances?|rows|records|conversations?|pairs)", text, I) \
        or re.search(rf"{NUM}\s*({BIG}|[kKmM](?![a-zA-Z]))?\s*条", text)
    if sam:
        value = _num(sam.group(1), sam.group(2))
        if value and sam.lastindex and sam.lastindex >= 3 and sam.group(3):
            value *= WORD_MULT[sam.group(3).lower()]
        if value:
            out["samples"] = value
    ep = re.search(rf"(?:{NUM}|\b(one|two|three|four|five)\b)\s*(?:个)?\s*(?:epochs?|轮)", text, I)
    if ep:
        out["epochs"] = _num(ep.group(1)) if ep.group(1) else WORD_NUMBERS[ep.group(2).lower()]
    return out


DEADLINE_BEFORE = re.compile(r"(?:within|in|under|by|deadline|期限|要在|需要在|需在|在|限|最多|不超过|less than|at most|only have|只有|给)\s*(?:about|around|大约|约|大概)?\s*$", I)
DEADLINE_AFTER = re.compile(r"^\s*(?:内|以内|之内|完成|搞定|训完|跑完|结束|出结果|就能|能|可以|的\s*deadline|deadline|to (?:finish|train|complete|run)|done|出来|.{0,14}完)", I)
WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


def _duration(text: str) -> dict:
    """A deadline or time budget: a duration with words that make it one ("24小时内", "within 3 days", "10天就能")."""
    for unit, hours in _UNIT_HOURS:
        for m in re.finditer(rf"(?:{NUM}|\b(a|an|one|two|three|four|five|six|seven|ten)\s)\s*(?:多)?\s*(?:{unit})", text, I):
            value = _signed(_num(m.group(1)), text, m.start(1)) if m.group(1) else WORD_NUMBERS[m.group(2).lower()]
            before, after = text[max(0, m.start() - 16):m.start()], text[m.end():m.end() + 16]
            if value and (DEADLINE_BEFORE.search(before) or DEADLINE_AFTER.search(after)):
                return {"deadline_hours": value * hours}
    return {}


def _budget(text: str) -> dict:
    usd = (re.search(rf"(?:\$|US\$|USD\s*)\s*{NUM}\s*([kKmM]|万)?", text) or re.search(rf"{NUM}\s*([kKmM]|万)?\s*(?:美元|美金|dollars?|USD|bucks)", text, I)
           # "what if the budget is 200k": an English budget with no currency sign is read as dollars
           or re.search(rf"\bbudget\s*(?:is|of|to|at|around|about|goes up to|grows to|increases to|rises to|were|was|~|:)?\s*(?:up to\s*)?{NUM}\s*([kKmM])(?![a-zA-Z])", text, I))
    if usd:
        value = _num(usd.group(1), usd.group(2))
        return {"budget": value, "currency": "USD"} if value else {}
    # "50w" is chat shorthand for 50万 (wan) next to money or budget words
    cny = (re.search(rf"{NUM}\s*(万|千|[kKmMwW])?\s*(?:元|块钱|块|人民币|RMB|CNY|¥)", text, I) or re.search(rf"(?:¥|￥|RMB\s*|CNY\s*)\s*{NUM}\s*(万|千|[kKmMwW])?", text, I)
           # "40万预算", "经费大概50万": 万 with a budget word is money even without 元
           or re.search(rf"{NUM}\s*(万|千|[wW])\s*(?:左右|多)?\s*(?:的)?\s*(?:预算|经费|资金)", text)
           or re.search(rf"(?:预算|经费|资金)\s*(?:大概|大约|约|有|是|在|只有|就|共|(?:能|可以|最多|可|再)?(?:提|提高|提升|涨|加|增加|升|改|放宽|翻倍|翻番|翻一倍)?(?:到|至|成))?\s*{NUM}\s*(万|千|[wW](?![a-zA-Z]))", text))
    if cny:
        value = _num(cny.group(1), "万" if (cny.group(2) or "") in ("w", "W") else cny.group(2))
        return {"budget": value, "currency": "CNY"} if value else {}
    return {}


def _params(text: str) -> float | None:
    m = re.search(rf"{NUM}\s*(亿|万亿)\s*(?:个)?\s*参数", text)
    if m:
        value = _num(m.group(1), m.group(2))
        return value / 1e9 if value else None
    # "2B tokens" is a data amount, not a model size
    m = re.search(rf"{NUM}\s*(?:[bB](?![a-zA-Z])|billion)(?!\s*(?:个\s*)?(?:tokens?|toks?|词元|样本|samples?|images?|张|条))"
                  rf"\s*(?:参数|params?|parameters?|模型|models?|级|的|dense|-parameter)?", text, I)
    if m:
        return _num(m.group(1))
    # "gpt2-small (124M)", "a 350M-parameter model": millions of parameters, said with a parameter or model word
    m = re.search(rf"{NUM}\s*(?:[mM](?![a-zA-Z])|million)\s*(?:\)|-?参数|-?params?\b|-?parameters?\b|的?模型|models?\b)", text, I)
    if m:
        value = _num(m.group(1))
        return value / 1e3 if value else None
    return None


QUESTION_GAP = re.compile(r"多少|应该|正常|预期|期望|should|expect|normal|typical|what", re.I)
ALWAYS_BUSY = re.compile(r"24\s*/\s*7|24\s*[x×]\s*7|7\s*[x×]\s*24|around the clock|round the clock|non-?stop|flat out|"
                         r"全天候|满负荷|满载运行|24\s*小时不停|全年无休|一直满载|不间断", I)


def _utilization(text: str) -> dict:
    out: dict = {}
    yearly = re.search(rf"(?:年(?:均)?利用率|yearly|annual|per year|a year|全年|每年)[^0-9\n]{{0,16}}{NUM}\s*%", text, I) \
        or re.search(rf"{NUM}\s*%\s*(?:的时间|of the (?:year|time)|(?:annual|yearly) utili[sz]ation|年利用率|busy|in use|loaded)", text, I)
    if not yearly:  # words of use in a pricing question: "usage ~45%", "六成时间在跑"
        if (share := usage_share(text)) is not None:
            return {"yearly_utilization": share}
    if ALWAYS_BUSY.search(text) and not yearly:
        return {"yearly_utilization": 1.0}  # "24/7 for three years", "全年满负荷": busy all the time
    if yearly:
        value = _num(yearly.group(1))
        if value is not None:
            out["yearly_utilization"] = value / 100
        return out
    util = re.search(rf"(?:利用率|utili[sz]ation|util|gpu-util|使用率)[^0-9\n]{{0,16}}{NUM}\s*%", text, I) \
        or re.search(rf"{NUM}\s*%\s*(?:左右)?\s*(?:的)?\s*(?:利用率|utili[sz]ation|util)", text, I)
    if util:
        out["gpu_utilization"] = _num(util.group(1))
    return out

