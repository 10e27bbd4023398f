"""Understanding a message: language, intent and slots, deterministically, in zh and en."""

from __future__ import annotations

import re
from typing import Literal, get_args

from pydantic import BaseModel

from service.assistant.slots import Slots, extract_slots
from service.catalog import Catalog
from service.contract import Clarification, Intent, Language, UnderstandingTrace  # the contract owns these; the pipeline reads them
from service import budget
from service.understanding.case.model import Case

SizingAsk = Literal["memory", "time", "deadline", "budget_tokens", "inference", "cost", "checkpoint", "allreduce", "data_loader", "compute", "nccl", "model_size", "gpu_count"]

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
    spec_words: list[str] = []  # the spec words of the question ("VRAM", "datasheet"): a spec card answers only such a question
    far_from_domain: bool = False  # no in-domain exemplar near, and no domain evidence or cue word: off topic even as a follow-up
    case: Case | None = None  # the message read once: prose, pasted artefacts, facts with their lines, the act (service/understanding/case)


PASTED = re.compile(r"```.*?(?:```|$)", re.S)
LOG_LINE = re.compile(r"^\s*(?:#|GPU\d|NIC\d|mlx\d)|^(?:\s*[\d.]+){4,}")
# From an error's opening ("[Rank 3] Watchdog caught...", "torch.cuda.OutOfMemoryError: ...", "NCCL WARN ...") up to the next
# Chinese character: the pasted part of a line that also carries the user's own words.
LOG_SPAN = re.compile(
    r"(?:\[Rank\s*\d+\]|\b[\w.]*(?:Error|Exception)\b:?|\bTraceback\b|\bNCCL (?:WARN|INFO)\b|\bWatchdog caught\b|\bXid\b)[^\u4e00-\u9fff]*")


CHINESE_WORD = re.compile(r"[\u4e00-\u9fff]{3}")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def detect_language(text: str) -> Language:
    """The language of the sentence frame: Chinese characters weighed against English words.

    Pasted logs and code are left out; mixed questions ("训练时GPU utilization一直50%左右怎么排查")
    are Chinese when Chinese carries the sentence, English when a few Chinese terms sit in an
    English sentence.
    """
    prose = PASTED.sub(" ", text)
    prose = "\n".join(line for line in prose.splitlines() if CJK.search(line) or not LOG_LINE.match(line))
    # An error pasted inline before or after the user's own Chinese words ("...OutOfMemoryError: ... 明明还有十几G没用啊")
    # is not their sentence: drop the log text and weigh what they wrote.
    prose = LOG_SPAN.sub(" ", prose) if CHINESE_WORD.search(prose) or len(CJK.findall(prose)) >= 4 else prose
    cjk = len(CJK.findall(prose))
    words = len(LATIN_WORD.findall(prose))
    if cjk == 0:
        return "en"
    return "zh" if cjk > 0.5 * words else "en"


# The cue vocabulary is data: service/understanding/data/<lang>/rule_cues.yaml. Structural patterns
# (pasted logs, topology tables, NCCL output) stay here, next to the code that reads their shape.
CUE_NAMES = {
    "DOMAIN": "domain",
    "INJECTION": "injection",
    "SMALLTALK": "smalltalk",
    "CLAIM": "claim",
    "STRONG_CLAIM": "strong_claim",
    "PREFLIGHT": "preflight",
    "CLOUD": "cloud",
    "COMPARE": "compare",
    "RECOMMEND": "recommend",
    "HOW_MANY": "how_many",
    "MEMORY_ASK": "memory_ask",
    "DIAG": "diag",
    "SYMPTOM": "symptom",
    "DEFINITION": "definition",
    "TASK_WORDS": "task_words",
    "FAQ_HOW_TO": "faq_how_to",
}
SIZING_ASKS: tuple[str, ...] = get_args(SizingAsk)


@budget.loader
def _cues():
    """The cascade's cues, read from data on first use.

    Imported here, not at the top: service.understanding imports this module, and names such as
    INJECTION are imported from here while that package is still loading."""
    from service.understanding.rule_cues import load_rule_cues

    cues = load_rule_cues()
    unknown = [name for name, _ in cues.asks if name not in SIZING_ASKS]
    if unknown:
        raise ValueError(f"rule_cues.yaml names sizing asks this code does not know: {unknown}")
    return cues


def __getattr__(name: str):
    """DOMAIN, INJECTION, ..., ASKS: the module-level names other modules import, resolved from the data (PEP 562)."""
    if name in CUE_NAMES:
        return _cues()[CUE_NAMES[name]]
    if name == "ASKS":
        return list(_cues().asks)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


TOPO = re.compile(r"GPU0\s+GPU1|(?:^|\n)\s*GPU\d\s+(?:X|NV\d+|SYS|PHB|PIX|PXB|NODE)\s", I)
NCCL = re.compile(r"all_reduce_perf|busbw|algbw|avg bus bandwidth|#\s*size\s+count", I)


@budget.loader
def _fit_words():
    """The fit-question words ("can", "enough", "够不够", "跑得动"): data, shared with the evidence rule own_fit_question.

    Imported here, not at the top: service.understanding imports this module."""
    from service.understanding.registry import Vocabulary, load_registry

    registry = load_registry()
    return Vocabulary.of([t for data in registry.languages.values() for t in data.rule_words["own_fit_question"]["any"].terms])


def is_fit_question(text: str) -> bool:
    return bool(_fit_words().hits(text))


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


NCCL_TABLE_ROW = re.compile(r"\n\s*\d+\s+\d+\s+(?:float|half|bfloat16)")


def pasted_log(text: str, slots: Slots) -> Literal["topo", "nccl"] | None:
    if TOPO.search(text):
        return "topo"
    if NCCL.search(text) and (slots.measured_busbw_gbps or NCCL_TABLE_ROW.search(text)):
        return "nccl"
    return None


DIGIT = re.compile(r"\d")


def classify_with_rule(text: str, slots: Slots) -> tuple[Intent, SizingAsk | None, Literal["topo", "nccl"] | None, str]:
    """The ordered cue cascade; the last item names the rule that decided ("default" when none did)."""
    cue = _cues()
    has_workload = bool(slots.model or slots.params_b)
    domain = bool(cue["domain"].search(text)) or has_workload or bool(slots.gpu)
    pasted = pasted_log(text, slots)
    if pasted:
        return "diagnostics", None, pasted, f"pasted {pasted} log"
    if not domain:
        if cue["smalltalk"].search(text) and len(text) < 80 and not cue["injection"].search(text):
            return "smalltalk", None, None, "smalltalk cue"
        return "out_of_scope", None, None, "no domain cue"
    if cue["injection"].search(text) and not (has_workload or slots.gpu or cue["recommend"].search(text)):
        return "out_of_scope", None, None, "instruction injection"
    ask = _ask(text)
    if cue["strong_claim"].search(text) or (cue["claim"].search(text) and (has_workload or slots.gpu or slots.deadline_hours or DIGIT.search(text))):
        return "claim_check", ask, None, "claim cue"
    if cue["preflight"].search(text) and not (has_workload and (slots.tokens or slots.samples) and ask):
        # "sanity check: 1.3B on 26B tokens, how many A100-hours" asks for a number, not a checklist
        return "preflight", None, None, "pre-flight cue"
    if cue["cloud"].search(text):
        return "cloud_vs_onprem", "cost", None, "rent-or-buy cue"
    if slots.compare_gpus and len(slots.compare_gpus) >= 2 and cue["compare"].search(text):
        return "compare", ask, None, "two GPUs and a comparison cue"
    if slots.measured_busbw_gbps or cue["symptom"].search(text) or (slots.gpu_utilization is not None and cue["diag"].search(text)):
        return "diagnostics", None, None, "measured symptom"
    definitional = bool(cue["definition"].search(text))
    if slots.deadline_hours and cue["how_many"].search(text) and not slots.task == "inference" and (slots.tokens or slots.samples):
        return "sizing", "deadline", None, "how many GPUs by a deadline"
    if (ask == "inference" or slots.task == "inference") and cue["memory_ask"].search(text) and has_workload:
        return "sizing", "inference", None, "serving memory for a named model"
    if is_fit_question(text) and (has_workload or slots.task):
        if slots.gpu and (slots.gpus or 1) == 1:
            # "Can it run on this one card?" is a memory question about the card named.
            return "sizing", "inference" if slots.task == "inference" or ask == "inference" else "memory", None, "fits on one named card"
        return "recommend", None, None, "does a workload fit"  # a node, or no card named: size a configuration
    if ask == "deadline" and not (slots.tokens or slots.samples):
        ask = None  # "how many GPUs to finish in a day" without a data size: size a configuration instead
    specific = ask in ("memory", "time", "deadline", "budget_tokens", "checkpoint", "allreduce", "data_loader", "nccl")
    if cue["recommend"].search(text) and not specific and (has_workload or slots.task or cue["task_words"].search(text)):
        return "recommend", None, None, "configuration cue"
    if definitional and not (has_workload and ask) or definitional and cue["faq_how_to"].search(text):
        return "faq", None, None, "definition or how-to cue"
    # A GPU alone with a memory word ("how fast is the memory on an H100") asks about the card, not a workload's memory.
    if ask and (has_workload or slots.tokens or (slots.gpu and ask != "memory")):
        if ask == "deadline" and not slots.deadline_hours:
            ask = "time"
        return "sizing", ask, None, f"{ask} cue with a workload"
    if cue["recommend"].search(text) and has_workload:
        return "recommend", None, None, "configuration cue with a workload"
    return "faq", None, None, "default"


def _ask(text: str) -> SizingAsk | None:
    for name, pattern in _cues().asks:
        if pattern.search(text):
            return name  # type: ignore[return-value]  # _cues() checked the names against SizingAsk
    return None
