"""Structured evidence about a question, besides its nearest exemplars: pasted logs, catalog names,
numbers with units (from the deterministic slots), the strong domain vocabulary and cue words per intent."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.assistant.slots import Slots
from service.assistant.understand import pasted_log
from service.understanding.registry import EvidenceRule, Registry

# Slots that only a workload question states (a number with a unit, or a catalog name).
WORKLOAD_SLOTS = (
    "model",
    "params_b",
    "tokens",
    "samples",
    "deadline_hours",
    "gpu_hours",
    "budget",
    "concurrency",
    "measured_busbw_gbps",
    "samples_per_second",
    "context_len",
    "seq_len",
    "yearly_utilization",
    "gpu_utilization",
)
# Numbers only a training or serving workload states: a budget, a deadline or a utilisation figure is
# just as natural in a question about a gaming PC or a phone contract.
WORKLOAD_NUMBERS = ("tokens", "samples", "gpu_hours", "concurrency", "measured_busbw_gbps", "samples_per_second", "context_len", "seq_len")


@dataclass
class Evidence:
    pasted: str | None = None  # "topo" | "nccl"
    names: list[str] = field(default_factory=list)  # catalog ids named (GPUs, models, instances)
    quantities: list[str] = field(default_factory=list)  # slots stated with numbers and units
    domain_terms: list[str] = field(default_factory=list)
    cues: dict[str, list[str]] = field(default_factory=dict)  # intent -> cue words found
    ask_cues: dict[str, list[str]] = field(default_factory=dict)  # sizing ask -> cue words found
    kinds: set[str] = field(default_factory=set)  # evidence kinds present (registry.EVIDENCE_KINDS)
    fired: list[tuple[EvidenceRule, list[str]]] = field(default_factory=list)  # evidence rules that fired, with the words that did it

    @property
    def in_domain(self) -> bool:
        """Anything that makes the question about AI infrastructure regardless of how it is phrased."""
        return bool(self.pasted or self.names or self.domain_terms or self.quantities)

    @property
    def strongly_in_domain(self) -> bool:
        """More than a hardware name: a pasted log, a model, a workload number or a domain word that is not a GPU word.

        "which gaming laptop has the best GPU" names hardware but not AI infrastructure."""
        return bool(self.kinds & {"pasted", "workload", "quantities", "strong_domain"})


def gather(text: str, slots: Slots, registry: Registry) -> Evidence:
    stated = slots.stated()
    gpu_words: list[str] = []
    names = [v for k in ("model", "gpu") if (v := stated.get(k))]
    names += [g for g in stated.get("compare_gpus", []) if g not in names]
    evidence = Evidence(pasted=pasted_log(text, slots), names=names, quantities=[k for k in WORKLOAD_SLOTS if k in stated and k != "model"])
    # Mixed questions are common ("训练时GPU utilization一直50%"): both languages' vocabularies apply.
    for data in registry.languages.values():
        evidence.domain_terms += [t for t in data.domain.hits(text) if t not in evidence.domain_terms]
        for intent, vocabulary in data.cues.items():
            found = vocabulary.hits(text)
            if found:
                evidence.cues.setdefault(intent, []).extend(w for w in found if w not in evidence.cues.get(intent, []))
        for ask, vocabulary in data.ask_cues.items():
            found = vocabulary.hits(text)
            if found:
                evidence.ask_cues.setdefault(ask, []).extend(found)
        gpu_words += data.gpu_words.hits(text)
    kinds = {
        "pasted": bool(evidence.pasted),
        "gpu": bool(slots.gpu),
        "two_gpus": len(slots.compare_gpus or []) >= 2,
        "workload": bool(slots.model or slots.params_b),
        "cluster_workload": bool((slots.model or slots.params_b) and (slots.gpus or slots.nodes)),
        "quantities": any(k in stated for k in WORKLOAD_NUMBERS),
        "measured": slots.measured_busbw_gbps is not None,
        "budget": slots.budget is not None,
        "strong_domain": any(t not in gpu_words for t in evidence.domain_terms),
    }
    evidence.kinds = {k for k, present in kinds.items() if present}
    evidence.fired = [(rule, words) for rule in registry.rules if (words := _fires(rule, text, registry, evidence.kinds))]
    return evidence


def _fires(rule: EvidenceRule, text: str, registry: Registry, kinds: set[str]) -> list[str]:
    """The words that made `rule` fire (empty when it does not): its vocabularies of every language apply."""
    if any(k not in kinds for k in rule.needs) or any(k in kinds for k in rule.blocked_by):
        return []
    groups: dict[str, list[str]] = {"any": [], "also": [], "unless": []}
    has_also = False
    for data in registry.languages.values():
        words = data.rule_words.get(rule.name)
        if not words:
            continue
        has_also = has_also or bool(words["also"].terms)
        for group, vocabulary in words.items():
            groups[group] += vocabulary.hits(text)
    if not groups["any"] or groups["unless"] or (has_also and not groups["also"]):
        return []
    return list(dict.fromkeys(groups["any"] + groups["also"]))
