"""Readers for slots that have several spellings each: a quoted rental rate, a user count, a GPU count in words.

Kept beside slots.py (which calls them) so that file stays readable; closed vocabularies only.
"""

from __future__ import annotations

import re

from service.assistant.numbers import ARABIC, CN_NUMERAL, parse_number
from service.catalog import Catalog

I = re.IGNORECASE
NUM = rf"(?<![A-Za-z0-9_.])({ARABIC}|{CN_NUMERAL})"

# -- a rental rate per GPU-hour ---------------------------------------------------------------------
_USD_SIGN = r"\$|US\$|USD\s*"
_CNY_SIGN = r"¥|￥|RMB\s*|CNY\s*"
_USD_WORD = r"美元|美金|dollars?|usd|bucks"
_CNY_WORD = r"元|块钱|块|人民币|rmb|cny"
_GPU = r"(?:gpu|卡|card)"
_HOUR = r"(?:hours?|hrs?|h|小时|时)(?![a-z])"
# "/GPU-hr", "per GPU hour", "an hour per GPU", "/卡时", "每卡每小时", "/卡/小时", "每小时每卡"
_PER_GPU_HOUR = (
    rf"(?:/|per|an?|每)\s*{_GPU}[\s-]*(?:/|per|每)?\s*{_HOUR}"
    rf"|(?:/|per|an?|每)\s*{_HOUR}\s*(?:/|per|每|for each|each)\s*{_GPU}"
)
_PRICE_PATTERNS = [
    # "$2.5/GPU-hr", "¥9.8/卡时", "$2.99 per GPU hour"
    rf"(?P<sign>{_USD_SIGN}|{_CNY_SIGN})\s*{NUM}\s*(?:{_USD_WORD}|{_CNY_WORD})?\s*(?:{_PER_GPU_HOUR})",
    # "2.5 USD/GPU-hour", "12 元/卡时", "12块每卡每小时"
    rf"{NUM}\s*(?P<word>{_USD_WORD}|{_CNY_WORD})\s*(?:{_PER_GPU_HOUR})",
    # "每卡每小时 12 块", "per GPU-hour: $2.5", "每卡时 9.8 元"
    rf"(?:每\s*{_GPU}\s*每?\s*{_HOUR}|每小时每\s*{_GPU}|per\s+{_GPU}[\s-]*{_HOUR})\s*(?:是|要|大概|约|大约|about|around|is|of|at|[:：])?\s*"
    rf"(?P<sign>{_USD_SIGN}|{_CNY_SIGN})?\s*{NUM}\s*(?P<word>{_USD_WORD}|{_CNY_WORD})?",
    # "每张卡 2.49 美元一小时", "each GPU is $2.1 an hour": the card named before the rate, the hour after it
    rf"(?:每\s*(?:张|块)?\s*{_GPU}|per\s+{_GPU}|each\s+{_GPU})\s*(?:是|要|大概|约|大约|about|around|is|of|at|costs?|[:：])?\s*"
    rf"(?P<sign>{_USD_SIGN}|{_CNY_SIGN})?\s*{NUM}\s*(?P<word>{_USD_WORD}|{_CNY_WORD})?\s*(?:/|per|an?|每|一)\s*{_HOUR}",
    # "rent 2x 4090 at $1.89 for 1,000 GPU-hours": a rate quoted beside GPU-hours is per GPU-hour
    rf"(?:at|@)\s*(?P<sign>{_USD_SIGN}|{_CNY_SIGN})\s*{NUM}(?=[^.;。；]{{0,30}}(?:gpu[\s-]*hours?|卡时))",
    # "$2.2/hr", "¥15 一小时": no GPU said, read as per GPU only at a single card's rate and when no node is priced (_PER_CARD_ONLY)
    rf"(?P<sign>{_USD_SIGN}|{_CNY_SIGN})\s*{NUM}\s*(?:{_USD_WORD}|{_CNY_WORD})?\s*(?:/|per|an?|每|一)\s*{_HOUR}",
]
_PRICE_PATTERNS = [re.compile(pattern, I) for pattern in _PRICE_PATTERNS]
# The last pattern prices a whole instance as often as one card: kept only under a single card's on-demand rate, and never
# next to a node, an instance or a machine ("$24/hr for the 8x node").
_PER_CARD_ONLY = {"USD": 15.0, "CNY": 100.0}
_USD_SPELLED = re.compile(rf"{_USD_SIGN}|{_USD_WORD}", I)
_NUMBER_GROUP = re.compile(rf"{ARABIC}|{CN_NUMERAL}")
_WHOLE_MACHINE = re.compile(r"node|instance|machine|server|box|节点|整机|一台|每台|实例|服务器", I)


def _currency_of(sign: str | None, word: str | None) -> str | None:
    spelled = (sign or word or "").strip().lower()
    if not spelled:
        return None
    return "USD" if _USD_SPELLED.fullmatch(spelled) else "CNY"


def price(text: str) -> tuple[float, str | None, int, int] | None:
    """(price per GPU-hour, its currency or None, start, end) of a quoted rental rate."""
    for pattern in _PRICE_PATTERNS:
        m = pattern.search(text)
        if m is None:
            continue
        groups = m.groupdict()
        sign, word = groups.get("sign"), groups.get("word")
        number = next(g for i, g in enumerate(m.groups(), 1) if g and _NUMBER_GROUP.fullmatch(g))
        value = parse_number(number)
        if value and pattern is _PRICE_PATTERNS[-1]:
            nearby = text[max(0, m.start() - 30):m.end() + 30]
            if value > _PER_CARD_ONLY[_currency_of(sign, word) or "USD"] or _WHOLE_MACHINE.search(nearby):
                continue
        if value:
            return value, _currency_of(sign, word), m.start(), m.end()
    return None


# -- an optimizer other than AdamW ----------------------------------------------------------------
OPTIMIZERS = (
    ("adamw-8bit", re.compile(r"8[\s-]*bit\s*(?:paged\s*)?adam|adam\w*[\s-]*8[\s-]*bit|adamw8bit|adam8bit|bnb[\s_.-]*(?:optim|adam)|8\s*位\s*adam", re.I)),
    ("adafactor", re.compile(r"adafactor", re.I)),
    ("sgd-momentum", re.compile(r"\bsgd\b", re.I)),
)


def optimizer(text: str) -> str | None:
    """"with 8-bit Adam", "bnb adamw8bit", "Adafactor": an optimizer other than the default AdamW."""
    return next((name for name, pattern in OPTIMIZERS if pattern.search(text)), None)


# -- a user count -----------------------------------------------------------------------------------
# "日活两万", "三千个用户": a Chinese count word before 万/千 is read as its digit.
_CHINESE_COUNT = re.compile(r"(?<![\d.])(一|两|二|三|四|五|六|七|八|九|十)\s*(万|千)")
_CHINESE_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_USER_WORDS = r"(?:concurrent|simultaneous|daily|monthly|weekly|active|internal|registered|paying|online)"
USERS = re.compile(
    rf"(\d[\d,]*(?:\.\d+)?)\s*(k|K|千|万)?\s*(?:个|名|位)?\s*(?:(?:{_USER_WORDS}[\s-]+){{0,3}}(?:users?|people|employees|staff|players?|customers?|devs?|developers?|engineers?|programmers?|seats?)\b"
    r"|(?:同时在线的?|并发|活跃)?(?:用户|客户|玩家|员工|开发者|程序员|工程师|研发人员|人(?:同时)?(?:在用|使用|用))|日活|月活|\bDAU\b|\bMAU\b)",
    I,
)
_USERS_AFTER = re.compile(
    r"(?:日活|月活|\bDAU\b|\bMAU\b|(?:daily|monthly) active users)\s*(?:大概|约|大约|有|是|of|about|around|~|[:：])?\s*(\d[\d,]*(?:\.\d+)?)\s*(k|K|千|万)?", I
)
_USER_SCALE = {"k": 1e3, "K": 1e3, "千": 1e3, "万": 1e4}


def users_in(text: str) -> int | None:
    """ "2,000 daily active users", "5k DAU", "日活两万", "两万日活" -> the count."""
    text = _CHINESE_COUNT.sub(lambda m: f"{_CHINESE_DIGITS[m.group(1)]}{m.group(2)}", text)
    match = USERS.search(text) or _USERS_AFTER.search(text)
    if not match:
        return None
    return int(float(match.group(1).replace(",", "")) * _USER_SCALE.get(match.group(2) or "", 1))


# -- counts in words --------------------------------------------------------------------------------
EN_COUNTS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    # "dual RTX 3090s", "a quad A100 box": how builders and resellers count cards
    "dual": 2,
    "twin": 2,
    "quad": 4,
}
EN_COUNT = r"\b(" + "|".join(sorted(EN_COUNTS, key=len, reverse=True)) + r")\b"


# -- a parameter count inside a longer model name ---------------------------------------------------
_NAME_TAIL = re.compile(r"[A-Za-z0-9._\-/]*")
_SIZE_IN_TAIL = re.compile(r"(?:^|[-_/])(\d+(?:\.\d+)?)[bB](?![A-Za-z0-9])")


def size_after_name(text: str, found: tuple[str, int, int], catalog: Catalog) -> tuple[float | None, tuple[int, int]]:
    """A parameter count later in the same hyphenated name that contradicts the catalog entry matched at its start.

    "DeepSeek-R1-Distill-Qwen-32B" starts with DeepSeek-R1 (671B) but is a 32B dense model; "Qwen2.5-7B-Instruct" agrees with
    its entry and stays. Returns (size in billions or None, the whole name's span)."""
    ident, start, end = found
    tail = _NAME_TAIL.match(text[end:]).group(0)
    sizes = _SIZE_IN_TAIL.findall(tail)
    if not sizes:
        return None, (start, end)
    size = float(sizes[-1])
    params = catalog.models[ident].params_b
    if abs(size - params) <= 0.15 * params:
        return None, (start, end)
    return size, (start, end + len(tail))


# -- the write speed of the storage a checkpoint goes to ----------------------------------------------------------
# "our NFS writes ~200 MB/s", "共享存储写入 1.5GB/s": bytes per second (MB/s, GB/s; not the Gb/s of a network link) with a
# storage or writing word within a few words of it, so a memory bandwidth or a busbw is never read as one.
_STORAGE_WORD = r"(?:nfs|nas|storage|disk|ssd|nvme|lustre|gpfs|weka|ceph|s3|ebs|file ?system|fs\b|writes?|writing|written|save|saving|" \
    r"存储|磁盘|硬盘|共享盘|网盘|文件系统|写入|写盘|写速|写|落盘|保存)"
_BYTES_RATE = rf"{NUM}\s*(mb|mib|gb|gib|tb)\s*(?:/\s*s|ps|per second|每秒)"
_WRITE_RATE = [
    re.compile(rf"{_STORAGE_WORD}[^0-9\n。.?？]{{0,30}}?{_BYTES_RATE}", I),
    re.compile(rf"{_BYTES_RATE}[^0-9\n。.?？]{{0,12}}{_STORAGE_WORD}", I),
]
_TO_GBPS = {"mb": 1e-3, "mib": 2**20 / 1e9, "gb": 1.0, "gib": 2**30 / 1e9, "tb": 1e3}


def storage_write_gbps(text: str) -> float | None:
    """A checkpoint target's write speed in GB/s, or None. "Gb/s" (bits, a network link) is not read: case matters there."""
    for pattern in _WRITE_RATE:
        for m in pattern.finditer(text):
            unit = text[m.start(2) : m.end(2)]
            if unit[-1] == "b" and unit[0] in "GT":  # "400 Gb/s": a network link's bits, not storage bytes
                continue
            value = parse_number(m.group(1))
            if value:
                return value * _TO_GBPS[unit.lower()]
    return None


# -- a card known only by its memory ------------------------------------------------------------------------------
# "24G显存的卡", "a 48GB card", "显存只有 16G": the catalog card of that size stands in for it in a fit question (memory is
# what decides a fit); the answer says which card stood in. Only sizes with one obvious stand-in are read: the card
# most askers of that size own (8 and 12 GB: the GeForce cards; 32 GB: the V100), each a catalog entry of that memory.
STAND_INS = {8: "rtx-4060", 12: "rtx-3060", 16: "t4", 24: "rtx-4090", 32: "v100-32gb", 40: "a100-40gb-sxm", 48: "l40s",
             80: "a100-80gb-sxm", 96: "h20", 141: "h200"}
_CARD_WORD = r"(?:的)?\s*(?:显存的?(?:卡|显卡|gpu)?|显卡|卡|vram|(?:gpu|graphics) card|card|gpu)"
_CARD_MEMORY = [
    re.compile(rf"(?<![A-Za-z0-9_.])(\d{{1,3}})\s*g(?:b|ib)?\s*{_CARD_WORD}", I),  # "只有8G显存": a Chinese word may precede
    re.compile(r"(?:显存|vram)\s*(?:只有|才|是|有|为)?\s*(\d{1,3})\s*g(?:b|ib)?(?![a-z/])", I),
]


def card_by_memory(text: str) -> tuple[str, int] | None:
    """(stand-in catalog GPU id, memory in GB) for a card named only by its memory, else None."""
    for pattern in _CARD_MEMORY:
        m = pattern.search(text)
        if m and int(m.group(1)) in STAND_INS:
            return STAND_INS[int(m.group(1))], int(m.group(1))
    return None


# -- GPUs named only as out of reach -------------------------------------------------------------------
# "国内买不到H100了，H800、H20 还是国产卡？", "we can't get H100s, A100 or L40S?": the card named as unavailable is the
# reason for the question, not one of its options.
_UNAVAILABLE_BEFORE = re.compile(
    r"(?:买不到|买不了|拿不到|租不到|搞不到|没货|缺货|禁售|禁运|限售|不让买|can'?t (?:get|buy|find|rent)|can ?not (?:get|buy|find|rent)|"
    r"unable to (?:get|buy|source)|no access to|without any|no longer (?:get|buy))\s*(?:到|the|any)?\s*$",
    I,
)
_UNAVAILABLE_AFTER = re.compile(
    r"^\s*(?:s\b)?\s*(?:了)?\s*(?:现在|目前|已经|都|也|一直|根本|完全)*\s*(?:买不到|买不了|拿不到|租不到|搞不到|没货|缺货|禁售|禁运|限售|被禁|不让买|"
    r"(?:is|are) (?:not available|unavailable|banned|sold out|out of stock|export[- ]restricted|off the table)|sold out|out of stock)",
    I,
)


def unavailable(text: str, mentions: list[tuple[str, int, int]]) -> set[str]:
    """The GPUs (catalog ids) that the question names only as out of reach."""
    out = set()
    for gpu_id, start, end in mentions:
        if _UNAVAILABLE_BEFORE.search(text[max(0, start - 20) : start]) or _UNAVAILABLE_AFTER.search(text[end : end + 30]):
            out.add(gpu_id)
    return out


# -- the network the user has -----------------------------------------------------------------------------------------
# "8 * 100 Gbps NICs", "each node has 8x200G RoCE", "1000 Mbit/s GB NIC", "10 Gbps ethernet", "万兆网卡": the ports per node
# and each port's Gbit/s, and the fabric's kind. A figure followed by "busbw" or "GB/s" is a measurement, not a port.
_LINK_UNIT = r"(?:gbps|(?-i:Gb/s)|gbit(?:/s)?|g(?=\s*(?:nic|网卡|roce|ib\b|infiniband|ethernet|以太网|网络|network|port|端口)))"
_PORTS_TIMES_RATE = re.compile(rf"(?<![\d.])(\d{{1,2}})\s*[*x×]\s*(\d{{1,4}})\s*{_LINK_UNIT}", I)
_RATE_OF_PORT = re.compile(rf"(?<![\d.])(\d{{1,4}}(?:\.\d+)?)\s*{_LINK_UNIT}\s*(?:\w+\s+){{0,2}}?(?:nics?|网卡|roce|ib\b|infiniband|ethernet|以太网|network|links?|ports?|interfaces?|interface controller)", I)
_BARE_RATE = re.compile(r"(?<![\d.])(\d{1,4})\s*(?:gbps|(?-i:Gb/s)|gbit/s)", I)  # "over 10 Gbps", in a message about the network
_NETWORK_WORDS = re.compile(r"nic|网卡|network|网络|communication|通信|inter-?node|between (?:machines|nodes)|机器间|节点间|ethernet|以太网|roce|infiniband", I)
# "the bandwidth reaches 600Gbps", "测到 300Gb/s": a measured rate in bits, read as busbw in GB/s (÷ 8)
_MEASURED_GBIT = re.compile(r"(?:reach(?:es|ed)?|gets?|got|measured?|shows?|see|达到|跑到|测到|测出|只有|才)\s*(?:about|around|~|约|到)?\s*(\d{1,4}(?:\.\d+)?)\s*(?:gbps|(?-i:Gb/s)|gbit/s)", I)
_MBIT_PORT = re.compile(r"(?<![\d.])(\d{2,5})\s*(?:mbit/s|mbps|mb/s)", I)
_GIGABIT = re.compile(r"\bGB NIC\b|\bgigabit\b|\b1\s?GbE\b|千兆", I)
_TEN_GIGABIT = re.compile(r"\b10\s?GbE\b|万兆", I)
_FABRICS = (("roce", re.compile(r"\broce", I)), ("infiniband", re.compile(r"infiniband|\bIB\b|\bNDR\b|\bHDR\b")),
            ("ethernet", re.compile(r"ethernet|以太网|\bTCP\b|\bGbE\b|千兆|万兆|\bGB NIC\b|gigabit", I)))


_TARGET = re.compile(r"(?:upgrad\w*|switch\w*|mov\w*|go(?:ing)?)\s+to\b[^.?!。？]{0,24}$|(?:升级|换成|换到|升到|改成)[^。？?]{0,12}$|\bor\s+$", I)


def _first_own(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first rate that is the user's link, not the one they consider moving to ("upgrade to a 40G or 100G NIC")."""
    return next((m for m in pattern.finditer(text) if not _TARGET.search(text[max(0, m.start() - 40):m.start()])), None)


def network_ports(text: str) -> dict:
    """{"nic_gbps": Gbit/s per port, "nics_per_node": ports, "fabric": roce | infiniband | ethernet, "measured_busbw_gbps": a
    rate the user measured in Gbit/s, as GB/s}, what the text states."""
    out: dict = {}
    pair = _PORTS_TIMES_RATE.search(text)
    if pair:
        out["nics_per_node"], out["nic_gbps"] = int(pair.group(1)), float(pair.group(2))
    elif (rate := _first_own(_RATE_OF_PORT, text) or (_first_own(_BARE_RATE, text) if _NETWORK_WORDS.search(text) else None)) is not None:
        out["nic_gbps"] = float(rate.group(1))
    elif (mbit := _MBIT_PORT.search(text)) is not None and _NETWORK_WORDS.search(text):
        out["nic_gbps"] = float(mbit.group(1)) / 1000
    elif _TEN_GIGABIT.search(text):
        out["nic_gbps"] = 10.0
    elif _GIGABIT.search(text):
        out["nic_gbps"] = 1.0
    fabric = next((name for name, pattern in _FABRICS if pattern.search(text)), None)
    if fabric:
        out["fabric"] = fabric
    measured = _MEASURED_GBIT.search(text)
    if measured and float(measured.group(1)) != out.get("nic_gbps"):
        out["measured_busbw_gbps"] = float(measured.group(1)) / 8
    return out
