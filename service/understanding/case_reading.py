"""Where the case meets the routed understanding: language from the prose, slots from the prose when the case
has artefacts, the intent a case's subject implies, and the facts in the trace (what `--explain` prints)."""

from __future__ import annotations

from service.assistant.understand import INJECTION, Understanding
from service.contract import CaseFact
from service.understanding.case import Case
from service.understanding.case.entities import named_tools

# The intent a subject is answered as (its capability answers; the intent names it for analytics and the trace).
SUBJECT_INTENTS = {"training_oom": "diagnostics", "serving_memory": "diagnostics", "error": "diagnostics",
                   "training_job_memory": "sizing", "serving_job_memory": "sizing", "training_count": "sizing", "training_step": "sizing"}
SHOWN_FACTS = 40
STATED_CASE_CHARS = 160  # a description this long states its case: answered, never asked which reading was meant


def slot_text(text: str, case: Case) -> str:
    """What the slot readers read: the prose alone when a capability answers from the artefacts' facts (a log's numbers
    are not the user's GPU count), else the whole message as before."""
    return case.prose if case.subject and case.prose else text


def language_text(text: str, case: Case) -> str:
    """The language is the prose's: a Chinese question that pastes an English log is Chinese."""
    return case.prose if case.artefacts and case.prose.strip() else text


def enriched_slots(slots, case: Case, catalog):
    """The prose slots with what the case read more precisely: the card variant a memory size picks ("A100 GPUs (40GB)"),
    and serving for a model one wants to "run" or "load" when no training word is said ("enough to run the 5B model?")."""
    update = {}
    variant = case.get("gpu_variant")
    if variant and variant in catalog.gpus and (slots.gpu is None or _family(catalog, slots.gpu) == _family(catalog, str(variant))):
        update["gpu"] = str(variant)
    topics = set(case.mentions("topic"))
    fit_question = case.act in ("yes_no", "quantity") and (slots.gpu or slots.card_memory_gb) and not (slots.budget or slots.users)
    if slots.task is None and fit_question and "run" in topics and "training" not in topics and not slots.method and not case.artefacts:
        update["task"] = "inference"
    return slots.model_copy(update=update) if update else slots


def _family(catalog, gpu_id: str) -> str:
    spec = catalog.gpus.get(gpu_id)
    return spec.name.split()[1][:4].upper() if spec and len(spec.name.split()) > 1 else gpu_id


KNOWLEDGE_ACTS = ("procedure", "cause", "explain", "yes_no", "consequence")


def engine_question(und: Understanding, case: Case) -> bool:
    """How a named serving engine or runtime behaves ("how do I cap TensorRT-LLM's memory?", "why does Ollama use one GPU?"):
    its documentation answers, not a sizing of weights — unless the question asks for a count, a load or a length."""
    s = und.slots
    return (bool(case.mentions("engine")) and case.subject is None and case.act in KNOWLEDGE_ACTS and und.intent in ("sizing", "recommend")
            and not ({"count", "speed", "cost"} & set(case.mentions("topic"))) and not (s.concurrency or s.users or s.budget or s.context_len))


def prose_subject(und: Understanding, case: Case) -> str | None:
    """Two questions in words a capability answers better than a table: an OOM of one's own named model ("我 24G 的卡微调 7B
    爆显存了") — its memory figure and verdict first — and how many cards a named training job needs ("how many A100 40GB to
    full fine-tune a 13B?"). A question that also asks for time, cost, speed or a serving load stays with its handler."""
    s = und.slots
    topics = set(case.mentions("topic"))
    if case.artefacts:
        return None
    if not (s.model or s.params_b):
        engine = bool(case.mentions("engine")) or s.task == "inference"
        return "serving_memory" if engine and "oom_report" in set(case.mentions("topic")) else None
    if "step" in topics and case.fact("tp") is not None and (s.gpus or s.gpu):
        return "training_step"  # "TP 8, PP 4, micro-batch 1, 1,024 A100s: how long per step?" — the layout is given
    if topics & {"time", "cost", "speed"} or s.deadline_hours or s.budget or s.tokens:
        return None
    serving = s.task == "inference" or ("serving" in topics and "training" not in topics) or bool(case.mentions("engine"))
    if serving and "oom_report" in topics:
        return "serving_memory"  # "the SGLang server crashes with CUDA OOM when long requests arrive"
    if serving or "rl" in topics or und.intent in ("claim_check", "compare", "cloud_vs_onprem"):
        return None
    if "oom_report" in topics:  # "... 爆显存了", "keeps hitting OOM"; not "will it OOM?"
        return "training_oom"
    carded = bool(s.gpu or s.card_memory_gb)
    if "count" in topics and carded and ("training" in topics or s.method or s.task in ("fine-tune", "pretrain")) and not s.gpus:
        return "training_count"
    return None


def with_case(und: Understanding, case: Case) -> Understanding:
    if case.subject is None and (subject := prose_subject(und, case)):
        case = case.model_copy(update={"subject": subject})
    intent = SUBJECT_INTENTS.get(case.subject or "", und.intent)
    if engine_question(und, case):
        intent = "faq"
    if intent == "out_of_scope" and not INJECTION.search(case.prose) and (case.artefacts or named_tools(case.prose)):
        intent = "faq"  # a paste, or a tool of the stack named ("llama.cpp slots", "ZeRO-3 offload"): in scope, answered from knowledge
    trace = und.trace
    if trace is not None:
        rules = list(trace.rules)
        if intent != und.intent:
            why = f"case subject {case.subject} ({', '.join(case.signatures[:2]) or 'pasted job'})" if case.subject else \
                f"a question about how {', '.join(case.mentions('engine'))} behaves ({case.act})"
            rules.append(f"{why} -> {intent}")
        trace = trace.model_copy(update={
            "intent": intent, "rules": rules, "act": case.act, "subject": case.subject, "signatures": case.signatures,
            "facts": [CaseFact(name=f.name, value=f.value, line=f.line, quote=f.quote, parser=f.parser) for f in case.facts[:SHOWN_FACTS]]})
    update = {"case": case, "intent": intent, "trace": trace}
    if case.subject or case.artefacts or len(case.prose) >= STATED_CASE_CHARS:
        update["clarification"] = None  # the case says what it is (or says enough to be answered): no question back
    return und.model_copy(update=update)


# A follow-up that states a new value replaces the carried facts that value overrides ("what about 8 GPUs?" drops gpus_total).
OVERRIDDEN_BY_SLOT = {
    "gpus": ("gpus_total", "gpus_per_node", "processes", "visible_gpus", "nodes", "nodes_total"), "nodes": ("nodes", "nodes_total", "gpus_total"),
    "gpu": ("gpu_id", "gpu_name", "gpu_variant", "card_memory_gib", "oom_total_gib", "gpu_memory_total_gib"),
    "method": ("method", "finetuning_type", "adapter", "use_lora", "lora_rank", "load_in_4bit", "quant_bits"), "seq_len": ("train_seq_len", "seq_len"),
    "context_len": ("max_model_len",), "precision": ("precision", "bf16", "fp16", "mixed_precision", "dtype"),
    "model": ("model", "model_id", "params_b"), "params_b": ("model", "model_id", "params_b"),
}
MAX_FOLLOW_UP_CHARS = 300


def carried_case(und: Understanding, case: Case, state: dict | None) -> Case:
    """A short follow-up to a case a capability answered ("and with ZeRO-3?", "换成 8 张卡呢") is that case with the change:
    the previous facts carried, those the new turn overrides dropped, the new turn's act and prose facts on top."""
    previous = (state or {}).get("case")
    if not previous or case.artefacts or case.subject in ("training_oom", "serving_memory", "error") or len(case.prose) > MAX_FOLLOW_UP_CHARS:
        return case
    from service.understanding.case.model import Fact

    before = (state or {}).get("slots") or {}
    changed = {slot for slot, value in und.slots.stated().items() if before.get(slot) != value}  # what this turn itself states
    dropped = {name for slot in changed for name in OVERRIDDEN_BY_SLOT.get(slot, ())}
    kept = [Fact.model_validate(f) for f in previous["facts"] if f["name"] not in dropped]
    return case.model_copy(update={"facts": [*case.facts, *kept], "signatures": previous.get("signatures") or case.signatures,
                                   "subject": case.subject or previous.get("subject")})
