"""Follow-ups: "what about H100 instead?", "如果预算只有一半呢？" reuse the conversation's earlier slots."""

from __future__ import annotations

import re
from typing import Any

from service.assistant import consult
from service.assistant.commitment_readers import asks as asks_reserved
from service.assistant.slots import Slots
from service.assistant.understand import INJECTION, Understanding, _ask
from service.sizing.memory import TrainingMemoryRequest

I = re.IGNORECASE
WORKLOAD_INTENTS = ("recommend", "sizing", "compare", "cloud_vs_onprem", "claim_check", "preflight", "diagnostics")
FOLLOW = re.compile(r"呢[？?。.!！\s]*$|what about|how about|instead|换成|改成|改用|换用|如果|要是|假如|\bif (?:we|i|the|it)|and (?:with|for|if|on)|"
                    r"^\s*(?:and|also|then|so)\b|^\s*那|用.{0,12}的话|same (?:but|with)|\bwith \d+|\bon \d+|具体|详细|那块|这块|这部分|more detail|specifically|elaborate|"
                    r"算(?:低|高|快|慢|多|少|正常)吗|is that (?:low|high|normal|ok|good|bad|enough)|"
                    r"(?:does|would|will) (?:that|this|it) change|turns out|change (?:things|anything)|这样的话|那样的话|有变化吗|会变吗|影响大吗|"
                    # "ok but per dollar?", "but cost-wise?": the same comparison or plan, judged another way
                    r"^\s*(?:ok|okay|sure|right|fine|got it)[,.!]?\s+(?:but|and|so)\b|^\s*but\b|\bper (?:dollar|buck)\b|\b(?:cost|price)[- ]wise\b|"
                    r"^\s*(?:好的?|行|嗯)[，,]?\s*(?:但|那|不过)", I)
KV_FORMAT = re.compile(r"(fp8|int8|int4|fp16|bf16)\s*(?:的\s*)?kv|kv[ _-]?(?:cache|缓存)?\s*(?:用|改成|换成|改为|设为|是|in|at|as|to|is|of|with|using|=|:)?\s*(fp8|int8|int4|fp16|bf16)", I)
FORMAT_WORD = re.compile(r"fp8|int8|int4|fp16|bf16", I)
ROUTER_ASKS = ("checkpoint", "allreduce", "nccl", "data_loader")  # "how big is each checkpoint then?"
SERVING_ONLY = ("concurrency", "users", "context_len", "weights", "precision")  # a serving plan's inputs a training run does not share
RELATIVE = [
    ("budget", re.compile(r"(?:预算|budget|钱).{0,10}(?:一半|half|减半)|half (?:the|my|our) budget", I), 0.5),
    ("budget", re.compile(r"(?:预算|budget).{0,10}(?:翻倍|double|两倍|加倍)|double (?:the|my|our) budget", I), 2.0),
    ("gpus", re.compile(r"(?:卡|gpu|显卡).{0,8}(?:翻倍|double|加倍)|double the (?:gpus|cards)", I), 2.0),
    ("gpus", re.compile(r"(?:卡|gpu|显卡).{0,8}(?:一半|减半|half)|half the (?:gpus|cards)", I), 0.5),
    ("deadline_hours", re.compile(r"(?:时间|期限|deadline|工期).{0,8}(?:一半|减半|half)|half the time|twice as fast|快一倍", I), 0.5),
    ("deadline_hours", re.compile(r"(?:时间|期限|deadline).{0,8}(?:翻倍|double|加倍)|twice as long|double the time", I), 2.0),
    ("context_len", re.compile(r"(?:上下文|context|序列长度|seq(?:uence)?[ _-]?len\w*)[^，,。;；不]{0,8}(?:翻倍|double|加倍|两倍|x2|×2)|(?:double|twice) the (?:context|sequence)", I), 2.0),
    ("context_len", re.compile(r"(?:上下文|context|序列长度)[^，,。;；不]{0,8}(?:一半|减半|half)|half the (?:context|sequence)", I), 0.5),
    ("concurrency", re.compile(r"(?:用户|并发|人数|users|concurren\w*|traffic)[^，,。;；不]{0,8}(?:翻倍|double|加倍|两倍)|(?:double|twice) the (?:users|concurrency|traffic|load)", I), 2.0),
    ("users", re.compile(r"(?:用户|人数|users)[^，,。;；不]{0,8}(?:翻倍|double|加倍|两倍)|(?:double|twice) the users", I), 2.0),
]
# A relative change to an input the earlier turn left at its default: the default it was sized with.
# (serving: the inference tool's min(model context, 4096) for the models users name; training: the memory tool's default)
RELATIVE_BASE = {"context_len": 4096, "seq_len": TrainingMemoryRequest.model_fields["seq_len"].default}


def merge(text: str, und: Understanding, state: dict[str, Any]) -> Understanding:
    prev_intent = state.get("intent")
    if prev_intent in (None, "out_of_scope", "smalltalk") or und.intent == "smalltalk" or INJECTION.search(text):
        return und
    prev_slots: dict[str, Any] = state.get("slots") or {}
    new = und.slots.stated()
    if kv_format(text) and len(FORMAT_WORD.findall(text)) == 1:
        new.pop("precision", None)  # "and with an fp8 KV cache?": the format is the KV cache's, not the weights'
        new.pop("weights", None)
    # The router's ask counts when the cue words miss it, for quantities a follow-up asks about a run already described
    ask = _ask(text) or (und.ask if und.intent == "sizing" and und.ask in ROUTER_ASKS else None)
    short = len(text) <= 120
    cue = bool(FOLLOW.search(text)) or _relative(text)
    own_workload = bool(new.get("model") or new.get("params_b"))
    if short and not own_workload and prev_intent in ("diagnostics", "sizing") and _settings_for_slow_run(text, state):
        # "already bf16, batch 1, seq 512" after "my 4090 only reaches 40 TFLOPS": the diagnosis again, with those settings
        return und.model_copy(update={"intent": "diagnostics", "ask": None, "slots": Slots.model_validate({**prev_slots, **new}),
                                      "context": state.get("query")})
    if prev_intent == "cloud_vs_onprem" and short and not own_workload and und.intent not in ("diagnostics", "compare") \
            and ({"yearly_utilization", "gpu_utilization", "gpus", "gpu"} & new.keys()):
        # "now it's 24/7 for three years", "60% then?": the rent-or-buy question again with the new usage or fleet
        merged = {**prev_slots, **new}
        if "gpu_utilization" in new and "yearly_utilization" not in new:
            merged["yearly_utilization"] = merged.pop("gpu_utilization") / 100
        # a reserved-vs-on-demand question keeps its words for the re-run
        context = state.get("query") if asks_reserved(state.get("query") or "", usage_stated=True) else None
        return und.model_copy(update={"intent": prev_intent, "ask": "cost", "slots": Slots.model_validate(merged), "context": context})
    if short and not own_workload and prev_intent in ("sizing", "recommend") and (prev_slots.get("model") or prev_slots.get("params_b")) \
            and consult.cue("concurrency_asked", text):
        # "how many 8k-context requests fit in the rest of an 80 GB card?" after a KV-cache or serving answer: that model served
        merged = {**prev_slots, **new, "task": "inference"}
        if "seq_len" in merged and "context_len" not in new:
            merged["context_len"] = merged.pop("seq_len")
        for key in ("method", "concurrency"):
            merged.pop(key, None)
        return und.model_copy(update={"intent": "sizing", "ask": "inference", "slots": Slots.model_validate(merged), "context": state.get("query")})
    if und.intent in ("diagnostics", "claim_check", "preflight", "cloud_vs_onprem", "compare") and not cue:
        return und  # a new question of its own kind
    if not (short and (cue or (und.intent == "faq" and (new or ask)) or (ask and not own_workload and prev_slots))):
        if short and prev_intent == "recommend" and und.intent in ("recommend", "sizing"):
            # "mostly QLoRA of 7-13B, budget $3k" after "home rig, what GPU?": a new workload for the same purchase
            return und.model_copy(update={"context": state.get("query")})
        return und
    merged = {**prev_slots, **new}
    if own_workload and (new.get("tokens") or new.get("samples")) and "gpu_hours" not in new:
        merged.pop("gpu_hours", None)  # "what if we train Llama 3 8B on 1T tokens instead?": the new run replaces the hours priced before
    if own_workload and new.get("model"):
        merged.pop("params_b", None)
    elif own_workload:
        merged.pop("model", None)  # "and QLoRA on a 70B?": a size alone replaces the earlier model, which would otherwise win
    if "gpu_utilization" in new and "yearly_utilization" in prev_slots and "yearly_utilization" not in new:
        merged["yearly_utilization"] = merged.pop("gpu_utilization") / 100
    if merged.get("task") == "inference" and "seq_len" in new and "context_len" not in new:
        merged["context_len"] = merged.pop("seq_len")  # "context is more like 2k" in a serving conversation: the serving context
    for key, pattern, factor in RELATIVE:
        if key == "context_len" and merged.get("task") != "inference":
            key = "seq_len"  # "上下文翻倍" in a training conversation: the training sequence length
        base = merged.get(key) or RELATIVE_BASE.get(key)
        if pattern.search(text) and base and key not in new:  # "预算翻倍到160万": the figure stated is the new value
            merged[key] = max(1, int(base * factor)) if key in ("gpus", "context_len", "seq_len", "concurrency", "users") else base * factor
    intent, new_ask = und.intent, und.ask
    # "如果换成 H100 呢" / "what if the budget were half" change one input of the workload being sized:
    # it is still that sizing question, not a comparison of one GPU or a rent-or-buy question.
    if cue and prev_intent in ("recommend", "sizing") and und.intent in ("compare", "cloud_vs_onprem", "claim_check") \
            and len(new.get("compare_gpus") or []) < 2 and not new.get("yearly_utilization"):
        intent, new_ask = prev_intent, state.get("ask")
    elif (und.intent in ("faq", "out_of_scope") and not (und.intent == "faq" and prev_intent == "diagnostics")) or \
            (und.intent in ("recommend", "sizing") and prev_intent in ("recommend", "sizing") and ask is None):
        # After a diagnosis, a knowledge question ("how much slower is activation checkpointing?") stays one, searched with
        # the diagnosis' question as context; a report of what happened next reads as diagnostics by its own words.
        intent, new_ask = prev_intent, state.get("ask")
    if ask and not own_workload and und.intent in ("faq", "out_of_scope") and prev_intent in ("recommend", "sizing", "claim_check", "compare", "diagnostics", "cloud_vs_onprem") \
            and (merged.get("model") or merged.get("gpu")) or \
            ask and und.intent == "sizing":
        intent, new_ask = "sizing", ask
    if new.get("task") in ("fine-tune", "pretrain") and prev_slots.get("task") == "inference":
        # "what about full fine-tuning on that same node?" after a serving plan: training memory on those GPUs
        intent, new_ask = "sizing", "memory"
        und = und.model_copy(update={"evidence": [*und.evidence, "training_after_serving"]})
        for key in SERVING_ONLY:
            if key not in new:
                merged.pop(key, None)
    context = state.get("query") if intent in ("faq", "diagnostics", "preflight", "claim_check", "spec") \
        or (intent in ("recommend", "sizing") and prev_intent == "recommend") else None
    return und.model_copy(update={"intent": intent, "ask": new_ask, "slots": Slots.model_validate(merged), "context": context})


# "and the SXM one?", "40G 的呢": a form factor or a memory size that names a sibling of the GPU already discussed.
FORM_FACTOR = re.compile(r"(?<![a-z0-9])(sxm\d?|pcie|pci-e|nvl)(?![a-z0-9])", I)
MEMORY_SIZE = re.compile(r"(?<![a-z0-9.])(\d{2,3})\s*g(?:b|ib)?(?![a-z0-9/])", I)


def sibling_variant(previous_gpu: str, text: str, gpu_ids: Any) -> str | None:
    """The catalog sibling of `previous_gpu` that the turn's form factor or memory size names, else None."""
    family = previous_gpu.split("-")[0]
    siblings = [g for g in gpu_ids if g.split("-")[0] == family and g != previous_gpu]
    form = FORM_FACTOR.search(text)
    size = MEMORY_SIZE.search(text)
    if not siblings or not (form or size):
        return None
    wanted = []
    if form:
        wanted.append(form.group(1).lower().replace("pci-e", "pcie").rstrip("0123456789"))
    if size:
        wanted.append(f"{size.group(1)}gb")
    matching = [g for g in siblings if all(any(part.startswith(w) for part in g.split("-")) for w in wanted)]
    if not matching:
        return None
    kept = set(previous_gpu.split("-")[1:])  # the other parts stay: "A100 80GB SXM" -> "the 40GB one" is the 40GB SXM
    return max(matching, key=lambda g: len(kept & set(g.split("-")[1:])))


def is_follow_up(text: str, state: dict[str, Any]) -> bool:
    """A short turn with a follow-up cue ("那换成H100呢", "what about 4 GPUs?") after an in-domain turn: it reads with that turn."""
    if state.get("intent") in (None, "out_of_scope", "smalltalk") or INJECTION.search(text):
        return False
    return len(text) <= 120 and (bool(FOLLOW.search(text)) or _relative(text))


def kv_format(text: str) -> str | None:
    """"fp8 KV cache", "KV cache 改成 FP8": the KV-cache format a turn names."""
    m = KV_FORMAT.search(text)
    return (m.group(1) or m.group(2)).lower() if m else None


def _settings_for_slow_run(text: str, state: dict[str, Any]) -> bool:
    from service.assistant.handlers import slow_card  # the handlers package imports this module

    return slow_card.asks(state.get("query") or "") and slow_card.gives_settings(text)


# "cheaper option?", "有没有便宜点的": the plan on the table, asked again with cost first.
CHEAPER = re.compile(r"^\s*(?:(?:a|any|is there a|got a|what'?s a|something)\s+)?(?:cheaper|cheapest|less expensive|lower[- ]cost)\b[^.?!]{0,25}[?？.!]*\s*$|"
                     r"更便宜|便宜(?:点|些|一点|一些)|(?:更)?省钱(?:点|一点|的方案|的配置)|成本更低|降低成本的?(?:方案|办法)?[？?]?\s*$", I)


def _relative(text: str) -> bool:
    return any(pattern.search(text) for _, pattern, _ in RELATIVE) or bool(CHEAPER.search(text))


def changes_relatively(text: str) -> bool:
    """"预算翻倍", "double the users", "half the GPUs": a turn that scales a setting of the conversation."""
    return _relative(text)


CARRIED_FACTS = 120
CARRIED_MENTIONS = ("option:int8", "option:full")  # settings of the job said in words ("8-bit", "full parameter"), not changes asked about


FIGURE = re.compile(r"\d+(?:[.,]\d+)*")
LEAD_KEPT = 400
SAME_FIGURES = 0.75  # share of a lead's figures already in the previous lead for it to be the same answer again  # characters of the previous answer's lead kept to recognise a repeat


def repeats(draft_lead: str | None, previous: dict[str, Any] | None, slots: dict[str, Any] | None = None) -> bool:
    """True when a follow-up's answer would say again what the previous answer opened with: the user asked something new
    ("do I need to edit ds_config?", "can checkpointing cut it further?"), stated no new fact (`slots`, this turn's stated
    slots, are the previous turn's), and the lead is the previous one or mostly its figures again."""
    before = (previous or {}).get("lead")
    if not (draft_lead and before) or (slots is not None and slots != previous.get("slots")):
        return False
    lead = draft_lead[:LEAD_KEPT]
    figures = set(FIGURE.findall(lead))
    return lead == before or (len(figures) >= 2 and len(figures & set(FIGURE.findall(before))) >= SAME_FIGURES * len(figures))


def state(und: Understanding, text: str, previous: dict[str, Any] | None = None, lead: str | None = None) -> dict[str, Any]:
    """What the next turn can build on; chit-chat and out-of-scope turns keep the previous workload. lead: the first
    sentence this turn answered with, so the next turn can tell when it would only say it again."""
    if und.intent in ("out_of_scope", "smalltalk") and previous:
        return previous
    query = f"{und.context} {text}" if und.context else text
    kept = {"slots": und.slots.stated(), "intent": und.intent, "ask": und.ask, "query": query[-400:], "language": und.language}
    if lead:
        kept["lead"] = lead[:LEAD_KEPT]
    case = und.case
    if case is not None and case.subject:
        # The case a capability answered: its facts (with their lines) carry into a follow-up that changes one of them.
        kept["case"] = {"subject": case.subject, "signatures": case.signatures,
                        "facts": [f.model_dump() for f in case.facts if f.name != "mention" or f.value in CARRIED_MENTIONS][:CARRIED_FACTS]}
    return kept
