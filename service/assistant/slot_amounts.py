"""Readers for the amounts a question states besides names and GPU counts (sequence length, data, deadline, budget,
model size, utilisation), kept apart from slots.py, which calls them, so both stay readable."""

from __future__ import annotations

import re

from service.assistant.numbers import ARABIC, BIG, CN_NUMERAL, parse_number
from service.assistant.usage_readers import usage_share

NUM = rf"(?<![A-Za-z0-9_.])({ARABIC}|{CN_NUMERAL})"
MULT = rf"({BIG}|[kKmMbBtT](?![a-zA-Z]))?"
WORD_MULT = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
I = re.IGNORECASE


def number(text: str, mult: str | None = None) -> float | None:
    value = parse_number(text + (mult or ""))
    return value


def _negative(text: str, start: int) -> bool:
    """A minus sign written right before the number at `start` ("-8 H100", "−3 days"), not a range or a name ("A100-8", "1-8")."""
    head = text[:start].rstrip()
    if not head or head[-1] not in "-−－" and not head.endswith("负"):
        return False
    before = head[:-1]
    return not before or not (before[-1].isascii() and before[-1].isalnum())


def signed(value: float | None, text: str, start: int) -> float | None:
    # Kept negative on purpose: the sizing tools then refuse it with a field-named message the answer
    # shows, instead of silently computing with 8 GPUs when the user wrote -8.
    return -value if value and _negative(text, start) else value


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
_SEQ_PATTERNS = [re.compile(pattern, I) for pattern in _SEQ_PATTERNS]


def sequence_length(text: str, task: str | None) -> dict:
    for pattern in _SEQ_PATTERNS:
        m = pattern.search(text)
        if m:
            value = number(m.group(1))
            if value:
                value *= {"万": 10_000}.get(m.group(2) or "", 1024 if m.group(2) else 1)  # "3.2万" tokens, "8k"
                key = "context_len" if task == "inference" else "seq_len"
                return {key: int(value)}
    return {}


# A masked span is blanked in place (offsets stay valid), but many masked names in a row ("H100 H100 H100 …") would
# rebuild the long run of blanks the pipeline collapsed away, over which the readers' chained \s* gaps backtrack
# (tests/assistant/test_input_patterns.py). Past this length a run continues in NUL, which no reader matches as a gap
# and no message can contain (the pipeline strips control characters); one masked name is always shorter.
MAX_BLANK_RUN = 40
LONG_BLANK_RUN = re.compile(rf" {{{MAX_BLANK_RUN + 1},}}")


def blank_out(text: str, start: int, end: int) -> str:
    """`text` with [start, end) blanked, each run of blanks capped at MAX_BLANK_RUN."""
    return blank_all(text, [(start, end)])


def blank_all(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with every [start, end) blanked in one pass (hundreds of names cost one copy, not one each), each run of
    blanks capped at MAX_BLANK_RUN."""
    pieces, reached = [], 0
    for start, end in sorted(spans):
        start = max(start, reached)
        if end > start:
            pieces += [text[reached:start], " " * (end - start)]
            reached = end
    text = "".join([*pieces, text[reached:]])
    return LONG_BLANK_RUN.sub(lambda run: " " * MAX_BLANK_RUN + "\0" * (len(run.group()) - MAX_BLANK_RUN), text)


def mask_sequence(text: str) -> str:
    for pattern in _SEQ_PATTERNS:
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return blank_out(text, 0, 0)


TOKEN_COUNT = re.compile(rf"{NUM}\s*{MULT}\s*(thousand|million|billion|trillion)?\s*(?:个)?\s*(?:tokens?|词元)", I)
SAMPLE_COUNT = re.compile(rf"{NUM}\s*{MULT}\s*(thousand|million)?\s*(?:条|个|份|组)?\s*(?:[a-z-]+\s+){{0,2}}(?:样本|训练样本|数据|指令|对话|问答对|samples?|examples?|instances?|rows|records|conversations?|pairs)", I)
ROWS_COUNT = re.compile(rf"{NUM}\s*({BIG}|[kKmM](?![a-zA-Z]))?\s*条")
EPOCHS = re.compile(rf"(?:{NUM}|\b(one|two|three|four|five)\b)\s*(?:个)?\s*(?:epochs?|轮)", I)


def data_amounts(text: str) -> dict:
    out: dict = {}
    tok = TOKEN_COUNT.search(text)
    if tok:
        value = number(tok.group(1), tok.group(2))
        if value and tok.group(3):
            value *= WORD_MULT[tok.group(3).lower()]
        if value:
            out["tokens"] = value
    sam = SAMPLE_COUNT.search(text) \
        or ROWS_COUNT.search(text)
    if sam:
        value = number(sam.group(1), sam.group(2))
        if value and sam.lastindex and sam.lastindex >= 3 and sam.group(3):
            value *= WORD_MULT[sam.group(3).lower()]
        if value:
            out["samples"] = value
    ep = EPOCHS.search(text)
    if ep:
        out["epochs"] = number(ep.group(1)) if ep.group(1) else WORD_NUMBERS[ep.group(2).lower()]
    return out


DEADLINE_BEFORE = re.compile(r"(?:within|in|under|by|deadline|期限|要在|需要在|需在|在|限|最多|不超过|less than|at most|only have|只有|给)\s*(?:about|around|大约|约|大概)?\s*$", I)
DEADLINE_AFTER = re.compile(r"^\s*(?:内|以内|之内|完成|搞定|训完|跑完|结束|出结果|就能|能|可以|的\s*deadline|deadline|to (?:finish|train|complete|run)|done|出来|.{0,14}完)", I)
_UNIT_HOURS = [(r"小时|个小时|h(?![a-z0-9])|hrs?(?![a-z])|hours?", 1.0), (r"天|日|days?", 24.0), (r"周|个星期|星期|weeks?", 168.0), (r"个月|月|months?", 720.0)]
WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_DURATIONS = [(re.compile(rf"(?:{NUM}|\b(a|an|one|two|three|four|five|six|seven|ten)\s)\s*(?:多)?\s*(?:{unit})", I), hours) for unit, hours in _UNIT_HOURS]


def deadline(text: str) -> dict:
    """A deadline or time budget: a duration with words that make it one ("24小时内", "within 3 days", "10天就能")."""
    for duration, hours in _DURATIONS:
        for m in duration.finditer(text):
            value = signed(number(m.group(1)), text, m.start(1)) if m.group(1) else WORD_NUMBERS[m.group(2).lower()]
            before, after = text[max(0, m.start() - 16):m.start()], text[m.end():m.end() + 16]
            if value and (DEADLINE_BEFORE.search(before) or DEADLINE_AFTER.search(after)):
                return {"deadline_hours": value * hours}
    return {}


USD_SIGN_AMOUNT = re.compile(rf"(?:\$|US\$|USD\s*)\s*{NUM}\s*([kKmM]|万)?")
USD_WORD_AMOUNT = re.compile(rf"{NUM}\s*([kKmM]|万)?\s*(?:美元|美金|dollars?|USD|bucks)", I)
BUDGET_BARE_AMOUNT = re.compile(rf"\bbudget\s*(?:is|of|to|at|around|about|goes up to|grows to|increases to|rises to|were|was|~|:)?\s*(?:up to\s*)?{NUM}\s*([kKmM])(?![a-zA-Z])", I)
CNY_WORD_AMOUNT = re.compile(rf"{NUM}\s*(万|千|[kKmMwW])?\s*(?:元|块钱|块|人民币|RMB|CNY|¥)", I)
CNY_SIGN_AMOUNT = re.compile(rf"(?:¥|￥|RMB\s*|CNY\s*)\s*{NUM}\s*(万|千|[kKmMwW])?", I)
CNY_WAN_BUDGET = re.compile(rf"{NUM}\s*(万|千|[wW])\s*(?:左右|多)?\s*(?:的)?\s*(?:预算|经费|资金)")
BUDGET_WORD_CNY = re.compile(rf"(?:预算|经费|资金)\s*(?:大概|大约|约|有|是|在|只有|就|共|(?:能|可以|最多|可|再)?(?:提|提高|提升|涨|加|增加|升|改|放宽|翻倍|翻番|翻一倍)?(?:到|至|成))?\s*{NUM}\s*(万|千|[wW](?![a-zA-Z]))")


def budget(text: str) -> dict:
    usd = (USD_SIGN_AMOUNT.search(text) or USD_WORD_AMOUNT.search(text)
           # "what if the budget is 200k": an English budget with no currency sign is read as dollars
           or BUDGET_BARE_AMOUNT.search(text))
    if usd:
        value = number(usd.group(1), usd.group(2))
        return {"budget": value, "currency": "USD"} if value else {}
    # "50w" is chat shorthand for 50万 (wan) next to money or budget words
    cny = (CNY_WORD_AMOUNT.search(text) or CNY_SIGN_AMOUNT.search(text)
           # "40万预算", "经费大概50万": 万 with a budget word is money even without 元
           or CNY_WAN_BUDGET.search(text)
           or BUDGET_WORD_CNY.search(text))
    if cny:
        value = number(cny.group(1), "万" if (cny.group(2) or "") in ("w", "W") else cny.group(2))
        return {"budget": value, "currency": "CNY"} if value else {}
    return {}


PARAMS_YI = re.compile(rf"{NUM}\s*(亿|万亿)\s*(?:个)?\s*参数")
PARAMS_BILLION = re.compile(rf"{NUM}\s*(?:[bB](?![a-zA-Z])|billion)(?!\s*(?:个\s*)?(?:tokens?|toks?|词元|样本|samples?|images?|张|条))"
                  rf"\s*(?:参数|params?|parameters?|模型|models?|级|的|dense|-parameter)?", I)
PARAMS_MILLION = re.compile(rf"{NUM}\s*(?:[mM](?![a-zA-Z])|million)\s*(?:\)|-?参数|-?params?\b|-?parameters?\b|的?模型|models?\b)", I)


def model_size(text: str) -> float | None:
    m = PARAMS_YI.search(text)
    if m:
        value = number(m.group(1), m.group(2))
        return value / 1e9 if value else None
    # "2B tokens" is a data amount, not a model size
    m = PARAMS_BILLION.search(text)
    if m:
        return number(m.group(1))
    # "gpt2-small (124M)", "a 350M-parameter model": millions of parameters, said with a parameter or model word
    m = PARAMS_MILLION.search(text)
    if m:
        value = number(m.group(1))
        return value / 1e3 if value else None
    return None


ALWAYS_BUSY = re.compile(r"24\s*/\s*7|24\s*[x×]\s*7|7\s*[x×]\s*24|around the clock|round the clock|non-?stop|flat out|"
                         r"全天候|满负荷|满载运行|24\s*小时不停|全年无休|一直满载|不间断", I)


YEARLY_SHARE_AFTER_WORD = re.compile(rf"(?:年(?:均)?利用率|yearly|annual|per year|a year|全年|每年)[^0-9\n]{{0,16}}{NUM}\s*%", I)
YEARLY_SHARE_BEFORE_WORD = re.compile(rf"{NUM}\s*%\s*(?:的时间|of the (?:year|time)|(?:annual|yearly) utili[sz]ation|年利用率|busy|in use|loaded)", I)
UTILIZATION_AFTER_WORD = re.compile(rf"(?:利用率|utili[sz]ation|util|gpu-util|使用率)[^0-9\n]{{0,16}}{NUM}\s*%", I)
UTILIZATION_BEFORE_WORD = re.compile(rf"{NUM}\s*%\s*(?:左右)?\s*(?:的)?\s*(?:利用率|utili[sz]ation|util)", I)


def utilization(text: str) -> dict:
    out: dict = {}
    yearly = YEARLY_SHARE_AFTER_WORD.search(text) \
        or YEARLY_SHARE_BEFORE_WORD.search(text)
    if not yearly:  # words of use in a pricing question: "usage ~45%", "六成时间在跑"
        if (share := usage_share(text)) is not None:
            return {"yearly_utilization": share}
    if ALWAYS_BUSY.search(text) and not yearly:
        return {"yearly_utilization": 1.0}  # "24/7 for three years", "全年满负荷": busy all the time
    if yearly:
        value = number(yearly.group(1))
        if value is not None:
            out["yearly_utilization"] = value / 100
        return out
    util = UTILIZATION_AFTER_WORD.search(text) \
        or UTILIZATION_BEFORE_WORD.search(text)
    if util:
        out["gpu_utilization"] = number(util.group(1))
    return out
