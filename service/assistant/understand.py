"""Understanding a message: language, intent and slots, deterministically, in zh and en."""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from pydantic import BaseModel

from service.assistant.slots import Slots, extract_slots
from service.catalog import Catalog
from service.contract import Clarification, Intent, Language, UnderstandingTrace  # the contract owns these; the pipeline reads them

SizingAsk = Literal["memory", "time", "deadline", "budget_tokens", "inference", "cost", "checkpoint", "allreduce", "data_loader", "compute", "nccl"]

I = re.IGNORECASE
CJK = re.compile(r"[\u4e00-\u9fff]")


class Understanding(BaseModel):
    language: Language
    intent: Intent
    slots: Slots
    ask: SizingAsk | None = None  # which quantity a sizing question asks for
    pasted: Literal["topo", "nccl"] | None = None
    context: str | None = None  # the previous question, when this one is a follow-up that only makes sense with it
    trace: UnderstandingTrace | None = None  # why it was read this way (copied into Answer.understanding)
    clarification: Clarification | None = None  # a close call between two readings: ask which one
    evidence: list[str] = []  # the evidence rules (registry.yaml) that fired for the chosen intent: handlers may answer by them


PASTED = re.compile(r"```.*?(?:```|$)", re.S)
LOG_LINE = re.compile(r"^\s*(?:#|GPU\d|NIC\d|mlx\d)|^(?:\s*[\d.]+){4,}")


def detect_language(text: str) -> Language:
    """The language of the sentence frame: Chinese characters weighed against English words.

    Pasted logs and code are left out; mixed questions ("训练时GPU utilization一直50%左右怎么排查")
    are Chinese when Chinese carries the sentence, English when a few Chinese terms sit in an
    English sentence.
    """
    prose = PASTED.sub(" ", text)
    prose = "\n".join(line for line in prose.splitlines() if CJK.search(line) or not LOG_LINE.match(line))
    cjk = len(CJK.findall(prose))
    words = len(re.findall(r"[A-Za-z]{2,}", prose))
    if cjk == 0:
        return "en"
    return "zh" if cjk > 0.5 * words else "en"


DOMAIN = re.compile(
    r"gpu|显卡|算力|卡|训练|train|微调|fine|tun|推理|inferen|serv|部署|deploy|模型|model|llm|大模型|cuda|nccl|nvlink|infiniband|\bib\b|roce|rdma|"
    r"显存|内存|memory|vram|oom|checkpoint|检查点|断点|集群|cluster|节点|node|云|cloud|机房|idc|on-?prem|自建|带宽|bandwidth|存储|storage|io|iops|"
    r"利用率|utili|吞吐|throughput|token|epoch|batch|zero|fsdp|deepspeed|megatron|lora|qlora|pytorch|torch|tensorflow|驱动|driver|镜像|image|"
    r"容器|docker|kubernetes|k8s|slurm|租户|tenant|noisy|邻居|隔离|isolat|mig|spot|竞价|抢占|preempt|fp8|bf16|fp16|混合精度|precision|mfu|flops|"
    r"a100|h100|h800|h200|b200|t4|a10|l4|l40|4090|910b|昇腾|mi300|xid|ecc|nvidia|dcgm|nvcc|fio|数据加载|dataloader|loader|断电|故障|outage|宕机|"
    r"预算|budget|成本|cost|费用|价格|price|多少钱|参数|param|样本|sample|序列|seq|上下文|context|并行|parallel|分布式|distributed|通信|communicat|"
    r"hardware|硬件|故障|fault|宕机|挂了|crash|hang|nan\b|loss|吞吐|延迟|latency|ttft|tpot|batch|算子|kernel|"
    r"pipeline|bubble|流水线|气泡|gradient|梯度|optimizer|优化器|activation|激活|dataset|数据集|tokeni[sz]|learning rate|学习率|busbw|algbw|goodput|hfu|"
    r"网络|network|交换机|switch|散热|cooling|功耗|power|kv ?cache|量化|quantiz|int4|int8|awq|gptq|vllm|sglang|tensorrt",
    I,
)
INJECTION = re.compile(
    r"ignore (?:all |your |the )?(?:previous |prior |above )?(?:instructions|rules)|忽略.{0,6}(?:指令|指示|规则|设定|提示)|"
    r"system prompt|系统提示|(?:print|show|reveal|dump|输出|打印|显示|泄露).{0,20}(?:api[ _-]?key|secret|token|password|env|environment|环境变量|密钥|配置|config|system)",
    I,
)
SMALLTALK = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|evening)|who are you|what can you do|你好|您好|嗨|哈喽|你是谁|你能做什么|你会什么|早上好|晚上好)\b|"
                       r"\b(?:thanks?|thank you|thx|cheers)\b|谢谢|多谢|感谢|明白了|懂了", I)
CLAIM = re.compile(r"有文章|文章说|据说|听说|宣称|号称|声称|宣传|说是|有人说|客服说|厂商说|销售说|说.{0,20}(?:就能|可以|能够)|靠谱吗|真的吗|真是这样|是这样吗|这话对吗|说法|可信吗|是真的|属实|吹牛|夸张|"
                   r"你怎么看|就(?:掉|降|会掉|能)[^，。,]{0,14}[？?]|is it true|is this true|true that|an article|a blog|blog post|vendor (?:says|claims)|claims?|someone (?:said|told)|insists|"
                   r"i read|i heard|marketing|really possible|legit|realistic\?|believable|make sense|plausible|credible|sound right|is that (?:right|true|correct)|right\?\s*$", I)
STRONG_CLAIM = re.compile(r"有文章|文章.{0,3}说|文中说|宣称|号称|声称|宣传|有人说|客服说|厂商说|销售说|说法|这话对吗|真是这样|标称.{0,40}(?:对吧|是吧|对吗)|insists|claims?|vendor (?:says|claims|told)|an article|article (?:says|said|claims)|someone (?:said|told)|make sense|is that (?:right|true)|right\?\s*$", I)
PREFLIGHT = re.compile(r"部署前|上线前|开训前|训练前.{0,10}(?:检查|测试|确认|准备)|跑之前|开跑前|之前.{0,8}(?:检查|测|做哪些|准备|验证)|(?:检查|核查|验收)清单|checklist|pre-?flight|"
                       r"before\b.{0,40}\b(?:launch|start|run|job|training)|smoke test|sanity check|要检查什么|检查哪些|验收|burn-?in\b|(?:what|which).{0,20}(?:verify|check).{0,40}(?:new|fresh|provisioned|before)", I)
CLOUD = re.compile(r"上云|云上还是|自建|买卡|买服务器|租还是买|租用还是|租.{0,6}还是.{0,6}买|买.{0,6}还是.{0,6}租|建机房|idc.{0,6}(?:还是|or)|on-?prem|buy.{0,8}(?:or|vs\.?|还是).{0,8}rent|rent.{0,8}(?:or|vs\.?|还是).{0,8}buy|"
                   r"buy (?:our|the|gpus|servers|hardware)|buy our own|break-?even|盈亏|回本|hybrid|混合云|自购|私有云|cloud (?:or|vs\.?)|(?:or|vs\.?) (?:the )?cloud|owning|capex|"
                   r"折旧|买下来|租云|云上租|租的话|depreciat", I)
COMPARE = re.compile(r"\bvs\.?\b|versus|对比|比较|区别|差别|差距|差多少|比(?:怎么样|如何|起来)|相比|哪个(?:好|更|快|划算|便宜)|选哪个|该选|compare|comparison|difference|"
                     r"better than|faster than|which is (?:better|faster|cheaper)|\bor\b.{0,30}\bwhich\b|which (?:one )?should|性价比|哪个(?:更)?(?:好|快|划算|便宜|合适|值|省)|worth (?:paying|it|the)", I)
RECOMMEND = re.compile(r"什么配置|啥配置|(?:机器|集群|硬件|gpu|卡|资源)怎么配|怎么配(?:机器|集群|硬件|gpu|卡)|如何配置(?:机器|集群|硬件|gpu)|配置(?:方案|建议|推荐)|哪种(?:gpu|卡|显卡)|什么(?:gpu|卡|显卡)|啥卡|用啥|几张|多少张|"
                       r"多少(?:块|台|个)(?:gpu|卡|显卡|节点|机器)|需要几|要几|推荐|选型|怎么选|如何选|买什么|租什么|多大的?(?:集群|规模)|什么\s*setup|怎么配(?:置)?[^，。,.;]{0,6}[？?。]?\s*$|"
                       r"(?:上|用|买|租)什么(?:机器|卡|配置|gpu)|什么机器|"
                       r"(?:机器|集群|硬件|gpu|卡|资源)\s*怎么配|practical way to (?:fine-?tune|train|run|serve)|"
                       r"what (?:hardware|setup|config|configuration|gpus?|instance|cluster|kind of (?:machine|cluster|hardware))|which (?:gpus?|instance|hardware|setup|card)|how many (?:gpus|nodes|cards|h100|a100)|"
                       r"recommend|suggest|what do (?:i|we) need|what should (?:i|we) (?:use|rent|buy|get)|sizing for|spec out|ballpark|cluster size|cheapest [\w-]*\s*(?:gpu|card|option|way|setup)|最便宜|最省钱|"
                       r"config\??\s*$|setup\??\s*$|够不够|够用吗|能搞定吗|单卡能|enough", I)
ASKS: list[tuple[SizingAsk, re.Pattern[str]]] = [
    ("nccl", re.compile(r"busbw.{0,20}(?:多少|正常|expected|should|应该)|(?:expected|正常的?).{0,12}busbw", I)),
    ("checkpoint", re.compile(r"checkpoint.{0,20}(?:多大|size|大小|how big|写入|write)|检查点.{0,10}(?:多大|大小|写)|保存间隔|checkpoint interval|how often.{0,20}checkpoint", I)),
    ("allreduce", re.compile(r"all-?reduce.{0,30}(?:多久|耗时|time|take|latency)|通信(?:时间|耗时)|梯度同步.{0,10}(?:多久|时间)", I)),
    ("data_loader", re.compile(r"(?:读取|读|存储|storage|loader|数据加载|\bio\b|\bread\b).{0,20}(?:多少|带宽|吞吐|throughput|GB/s|MB/s|iops|够不够|enough|need)", I)),
    ("budget_tokens", re.compile(r"(?:能|可以)\S{0,4}多少\s*(?:token|数据)|多少token.{0,10}(?:能|可以)|how many tokens.{0,60}(?:in|within)|tokens? (?:can|could) (?:we|i) (?:train|push)", I)),
    ("deadline", re.compile(r"(?:几张|多少张|多少(?:块|个)|how many gpus|how many cards|how many h100s?|how many a100s?).{0,60}(?:内|完成|finish|within|by|deadline|in \d)|"
                            r"(?:内|within|in)\s*\S{0,10}(?:完成|训完|跑完|搞定|finish|done).{0,20}(?:几张|多少|how many)", I)),
    ("cost", re.compile(r"多少钱|费用|成本|花费|价格|贵不贵|cost|price|how much (?:money|would it cost|does it cost|will it cost)|\$|预算够", I)),
    ("inference", re.compile(r"推理|serving|\bserve\b|inference|并发|concurren|tokens?/s|tok/s|qps|kv ?cache|首字|ttft|解码|decode", I)),
    ("time", re.compile(r"多久|多长时间|多少天|几天|多少小时|训多久|跑多久|how long|how many (?:days|hours)|time to|takes? (?:how|about)|wall-?clock|gpu[\s-]?hours?|gpu 小时|卡时", I)),
    ("memory", re.compile(r"显存|内存|memory|vram|\bfit\b|fits|放得下|装得下|放不下|装不下|oom|能不能跑|跑得动|跑不动|can i (?:run|train)|能否在|单卡", I)),
    ("compute", re.compile(r"flops|算力需求|计算量|总算力|compute budget|petaflop", I)),
]
HOW_MANY = re.compile(r"几张|多少张|多少块|多少(?:个|台)?(?:gpu|卡|显卡)|how many (?:gpus|cards|h100s?|a100s?|h200s?|b200s?|l40s|nodes)", I)
MEMORY_ASK = re.compile(r"多少显存|显存多少|显存.{0,4}够|how much (?:gpu )?memory|memory do (?:i|we) need|vram", I)
TOPO = re.compile(r"GPU0\s+GPU1|(?:^|\n)\s*GPU\d\s+(?:X|NV\d+|SYS|PHB|PIX|PXB|NODE)\s", I)
NCCL = re.compile(r"all_reduce_perf|busbw|algbw|avg bus bandwidth|#\s*size\s+count", I)
DIAG = re.compile(r"排查|诊断|怎么回事|是不是坏|正常吗|有问题吗|问题出在|哪里有问题|原因|怎么优化|锯齿|只有|上不去|卡在|is (?:this|that|it) normal|what(?:'s| is) wrong|"
                  r"diagnos|troubleshoot|slow|慢|掉速|不正常|异常|why|bottleneck|瓶颈|stuck|only", I)
SYMPTOM = re.compile(r"只(?:比|有)单卡.{0,6}快|只比.{0,8}快了?|scal(?:ing|es) (?:only|poorly|badly)|speed-?up.{0,20}only|via (?:shm|net/socket|socket)|p2p/ipc|step time", I)


@cache
def _fit_words():
    """The fit-question words ("can", "enough", "够不够", "跑得动"): data, shared with the evidence rule own_fit_question.

    Imported here, not at the top: service.understanding imports this module."""
    from service.understanding.registry import Vocabulary, load_registry

    registry = load_registry()
    return Vocabulary.of([t for data in registry.languages.values() for t in data.rule_words["own_fit_question"]["any"].terms])


def is_fit_question(text: str) -> bool:
    return bool(_fit_words().hits(text))


DEFINITION = re.compile(r"指什么|是什么|什么意思|啥意思|是啥|原理|为什么|为啥|怎么办|如何解决|怎么解决|有啥办法|有什么办法|怎么优化|怎么防|咋防|咋整|"
                        r"what (?:is|are|does)|what's (?:the|a|an) |meaning of|how does .{0,40} (?:work|help)|\bwhy\b|which knobs|what knobs|how (?:do|can|should) (?:i|we) (?:fix|avoid|reduce|handle|debug)|how much slower|"
                        r"should (?:i|we) (?:plug|use|trust|take)|what should (?:we|i) try|try next", I)


def understand(text: str, catalog: Catalog, *, language: Language | None = None, state: dict | None = None) -> Understanding:
    """The default understander's reading of one message (service.understanding), after `state`'s turn when given."""
    from service.understanding import default_understander

    return default_understander(catalog).understand(text, language=language, state=state)


def understand_by_rules(text: str, catalog: Catalog, *, language: Language | None = None) -> Understanding:
    """The rule cascade alone (no router): kept as one source of evidence and for comparison."""
    lang = language or detect_language(text)
    slots = extract_slots(text, catalog)
    intent, ask, pasted, _ = classify_with_rule(text, slots)
    return Understanding(language=lang, intent=intent, slots=for_intent(intent, slots), ask=ask, pasted=pasted)


def for_intent(intent: str, slots: Slots) -> Slots:
    if intent == "cloud_vs_onprem" and slots.gpu_utilization is not None and slots.yearly_utilization is None:
        # In a rent-or-buy question a utilisation figure means share of the year in use.
        return slots.model_copy(update={"yearly_utilization": slots.gpu_utilization / 100, "gpu_utilization": None})
    return slots


def classify(text: str, slots: Slots) -> tuple[Intent, SizingAsk | None, Literal["topo", "nccl"] | None]:
    intent, ask, pasted, _ = classify_with_rule(text, slots)
    return intent, ask, pasted


def pasted_log(text: str, slots: Slots) -> Literal["topo", "nccl"] | None:
    if TOPO.search(text):
        return "topo"
    if NCCL.search(text) and (slots.measured_busbw_gbps or re.search(r"\n\s*\d+\s+\d+\s+(?:float|half|bfloat16)", text)):
        return "nccl"
    return None


def classify_with_rule(text: str, slots: Slots) -> tuple[Intent, SizingAsk | None, Literal["topo", "nccl"] | None, str]:
    """The ordered cue cascade; the last item names the rule that decided ("default" when none did)."""
    has_workload = bool(slots.model or slots.params_b)
    domain = bool(DOMAIN.search(text)) or has_workload or bool(slots.gpu)
    pasted = pasted_log(text, slots)
    if pasted:
        return "diagnostics", None, pasted, f"pasted {pasted} log"
    if not domain:
        if SMALLTALK.search(text) and len(text) < 80 and not INJECTION.search(text):
            return "smalltalk", None, None, "smalltalk cue"
        return "out_of_scope", None, None, "no domain cue"
    if INJECTION.search(text) and not (has_workload or slots.gpu or RECOMMEND.search(text)):
        return "out_of_scope", None, None, "instruction injection"
    ask = _ask(text)
    if STRONG_CLAIM.search(text) or (CLAIM.search(text) and (has_workload or slots.gpu or slots.deadline_hours or re.search(r"\d", text))):
        return "claim_check", ask, None, "claim cue"
    if PREFLIGHT.search(text):
        return "preflight", None, None, "pre-flight cue"
    if CLOUD.search(text):
        return "cloud_vs_onprem", "cost", None, "rent-or-buy cue"
    if slots.compare_gpus and len(slots.compare_gpus) >= 2 and COMPARE.search(text):
        return "compare", ask, None, "two GPUs and a comparison cue"
    if slots.measured_busbw_gbps or SYMPTOM.search(text) or (slots.gpu_utilization is not None and DIAG.search(text)):
        return "diagnostics", None, None, "measured symptom"
    definitional = bool(DEFINITION.search(text))
    if slots.deadline_hours and HOW_MANY.search(text) and not slots.task == "inference" and (slots.tokens or slots.samples):
        return "sizing", "deadline", None, "how many GPUs by a deadline"
    if ask == "inference" and MEMORY_ASK.search(text) and has_workload:
        return "sizing", "inference", None, "serving memory for a named model"
    if is_fit_question(text) and (has_workload or slots.task):
        if slots.gpu and (slots.gpus or 1) == 1:
            # "Can it run on this one card?" is a memory question about the card named.
            return "sizing", "inference" if slots.task == "inference" or ask == "inference" else "memory", None, "fits on one named card"
        return "recommend", None, None, "does a workload fit"  # a node, or no card named: size a configuration
    if ask == "deadline" and not (slots.tokens or slots.samples):
        ask = None  # "how many GPUs to finish in a day" without a data size: size a configuration instead
    specific = ask in ("memory", "time", "deadline", "budget_tokens", "checkpoint", "allreduce", "data_loader", "nccl")
    if RECOMMEND.search(text) and not specific and (has_workload or slots.task or re.search(r"训练|train|微调|fine|推理|serv|inference|部署", text, I)):
        return "recommend", None, None, "configuration cue"
    if definitional and not (has_workload and ask) or definitional and re.search(r"怎么办|如何解决|which knobs|how much slower|为啥|为什么|why", text, I):
        return "faq", None, None, "definition or how-to cue"
    if ask and (has_workload or slots.tokens or slots.gpu):
        if ask == "deadline" and not slots.deadline_hours:
            ask = "time"
        return "sizing", ask, None, f"{ask} cue with a workload"
    if RECOMMEND.search(text) and has_workload:
        return "recommend", None, None, "configuration cue with a workload"
    return "faq", None, None, "default"


def _ask(text: str) -> SizingAsk | None:
    for name, pattern in ASKS:
        if pattern.search(text):
            return name
    return None
