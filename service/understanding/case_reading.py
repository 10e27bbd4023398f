"""Where the case meets the routed understanding: language from the prose, slots from the prose when the case
has artefacts, the intent a case's subject implies, and the facts in the trace (what `--explain` prints)."""

from __future__ import annotations

from service.assistant.understand import Understanding
from service.contract import CaseFact
from service.understanding.case import Case

# The intent a subject is answered as (its capability answers; the intent names it for analytics and the trace).
SUBJECT_INTENTS = {"training_oom": "diagnostics", "serving_memory": "diagnostics", "error": "diagnostics",
                   "training_job_memory": "sizing", "serving_job_memory": "sizing", "training_fit": "sizing", "serving_fit": "sizing"}
FIT_ACTS = ("yes_no", "quantity", "choice", "none", "procedure", "cause")
# Intents whose questions about one's own model on one's own cards are fit questions; claims, comparisons and rent-or-buy keep theirs.
FIT_INTENTS = ("sizing", "recommend", "diagnostics", "faq", "spec")
SHOWN_FACTS = 40


def slot_text(text: str, case: Case) -> str:
    """What the slot readers read: the prose alone when a capability answers from the artefacts' facts (a log's numbers
    are not the user's GPU count), else the whole message as before."""
    return case.prose if case.subject and case.prose else text


def language_text(text: str, case: Case) -> str:
    """The language is the prose's: a Chinese question that pastes an English log is Chinese."""
    return case.prose if case.artefacts and case.prose.strip() else text


def prose_subject(und: Understanding, case: Case) -> str | None:
    """A fit question in words ("can I full fine-tune Qwen2-7B on a 3090?", "34B 推理需要多大显存", "how many A100 40GB for a 13B
    full fine-tune?"): a model, a card or a memory size or a count, and a question about memory, a count or whether it runs."""
    s = und.slots
    if und.intent not in FIT_INTENTS or case.act not in FIT_ACTS or s.compare_gpus and len(set(s.compare_gpus)) > 1:
        return None
    if not (s.model or s.params_b):
        return None
    topics = case.mentions("topic")
    asks = "memory" in topics or "count" in topics or case.act == "yes_no"
    if not asks or not (s.gpu or s.card_memory_gb or "memory" in topics or "count" in topics):
        return None
    serving = "serving" in topics and "training" not in topics or s.task == "inference"
    return "serving_fit" if serving else "training_fit"


def with_case(und: Understanding, case: Case) -> Understanding:
    if case.subject is None and (subject := prose_subject(und, case)):
        case = case.model_copy(update={"subject": subject})
    intent = SUBJECT_INTENTS.get(case.subject or "", und.intent)
    trace = und.trace
    if trace is not None:
        rules = list(trace.rules)
        if intent != und.intent:
            rules.append(f"case subject {case.subject} ({', '.join(case.signatures[:2]) or 'pasted job'}) -> {intent}")
        trace = trace.model_copy(update={
            "intent": intent, "rules": rules, "act": case.act, "subject": case.subject, "signatures": case.signatures,
            "facts": [CaseFact(name=f.name, value=f.value, line=f.line, quote=f.quote, parser=f.parser) for f in case.facts[:SHOWN_FACTS]]})
    update = {"case": case, "intent": intent, "trace": trace}
    if case.subject:
        update["clarification"] = None  # the case says what it is: no question back
    return und.model_copy(update=update)
