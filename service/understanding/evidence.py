"""Structured evidence about a question, besides its nearest exemplars: pasted logs, catalog names,
numbers with units (from the deterministic slots), the strong domain vocabulary and cue words per intent."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.assistant.slots import Slots
from service.assistant.understand import pasted_log
from service.understanding.registry import Registry

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


@dataclass
class Evidence:
    pasted: str | None = None  # "topo" | "nccl"
    names: list[str] = field(default_factory=list)  # catalog ids named (GPUs, models, instances)
    quantities: list[str] = field(default_factory=list)  # slots stated with numbers and units
    domain_terms: list[str] = field(default_factory=list)
    cues: dict[str, list[str]] = field(default_factory=dict)  # intent -> cue words found
    ask_cues: dict[str, list[str]] = field(default_factory=dict)  # sizing ask -> cue words found

    @property
    def in_domain(self) -> bool:
        """Anything that makes the question about AI infrastructure regardless of how it is phrased."""
        return bool(self.pasted or self.names or self.domain_terms or self.quantities)


def gather(text: str, slots: Slots, registry: Registry) -> Evidence:
    stated = slots.stated()
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
    return evidence
