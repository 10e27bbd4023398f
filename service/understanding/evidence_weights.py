"""How evidence becomes intent scores: the weight of each kind of evidence and the rules that add it up,
kept apart from the understander, which gathers the evidence and turns the scores into a reading."""

from __future__ import annotations

import re

import numpy as np

from service.assistant.slots import Slots
from service.assistant.understand import INJECTION
from service.understanding.evidence import Evidence

# Weights of the evidence (the router's votes sum to W_NEIGHBOURS over the intents).
W_NEIGHBOURS = 1.0
W_RULE = 0.9  # a specific rule of the cue cascade fired
W_DEFAULT = 0.45  # the cascade fell through to its default (faq): weak
DEFAULT_AGAINST_CUES = 0.5  # its share when another intent has two or more cue words
W_CUE = 0.15  # per cue word of an intent, at most MAX_CUES counted
MAX_CUES = 3
W_DECISIVE = 3.0  # pasted logs, instruction injection: nothing else matters
W_SPEC = 0.7  # a GPU named with a spec word and no workload
NOTHING_TO_LOOK_UP = 0.5  # spec's score with no GPU named and no spec word
# A spec lookup is asked in a line ("H100 的显存带宽是多少"); a message longer than this that uses a single spec word
# ("...8 A100s with 4 NICs, how will NCCL behave?") is about something else, and the card's figures do not answer it.
SPEC_LOOKUP_WORDS = 20
W_TWO_GPUS = 0.15
W_CLAIM_NUMBERS = 0.5  # claim words ("对吧", "a consultant said") about a stated workload: the numbers are the claim
WORD_ONLY_FACTOR = 0.3  # what is left of the off-topic readings when the only domain evidence is a word
UNTRUSTED = 0.6  # share of the cascade's weight when the question has no domain evidence
W_WORKLOAD = 0.1
WORKLOAD_ASKS = ("tokens", "samples", "deadline_hours", "budget", "concurrency", "users")
# Cascade rules sharp enough that a GPU named with a spec word does not make the question a spec lookup.
SHARP_RULES = ("claim cue", "pre-flight cue", "rent-or-buy cue", "two GPUs and a comparison cue", "measured symptom")
LATIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]*")
CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")
VOTE_TEMPERATURE = 0.05  # similarity 0.05 lower = e times less weight


def prose_words(text: str) -> int:
    """Words of a message, a Chinese character counting as half of one (a Chinese word is about two characters)."""
    return len(LATIN_WORD.findall(text)) + len(CJK_CHAR.findall(text)) // 2


def neighbour_votes(neighbours: list) -> dict[str, float]:
    """Softmax over the neighbours' similarities, summed per intent: a near paraphrase outweighs several loose matches."""
    if not neighbours:
        return {}
    best = max(sim for _, sim in neighbours)
    weights: dict[str, float] = {}
    for exemplar, sim in neighbours:
        weights[exemplar.intent] = weights.get(exemplar.intent, 0.0) + float(np.exp((sim - best) / VOTE_TEMPERATURE))
    total = sum(weights.values())
    return {intent: w / total for intent, w in weights.items()}


def weigh_rules(scores: dict[str, float], rules: list[str], text: str, slots: Slots, evidence: Evidence, cascade_intent: str, rule: str) -> None:
    """The cue cascade's verdict, the cue words and the slots' evidence, each added to `scores` and noted in `rules`."""
    if evidence.pasted:
        scores["diagnostics"] += W_DECISIVE
        rules.append(f"pasted {evidence.pasted} log -> diagnostics")
    elif rule == "instruction injection" or (INJECTION.search(text) and not (slots.model or slots.params_b or slots.gpu)):
        scores["out_of_scope"] += W_DECISIVE
        rules.append("instruction injection -> out_of_scope")
    elif rule == "no domain cue":
        pass  # out of scope is decided by the understander, by distance and domain evidence, never by a missing substring
    elif rule == "default" and (slots.model or slots.params_b) and any(k in slots.stated() for k in WORKLOAD_ASKS):
        # "部署 72B 给 300 人用，预算 80 万": a model with what it is for; the fall-through to knowledge is no vote.
        rules.append("cue cascade: no specific cue, but a model with workload numbers (no default vote)")
    else:
        # The cascade's own domain gate matches substrings: without real domain evidence its verdict counts for less.
        trust = 1.0 if evidence.in_domain else UNTRUSTED
        weight = (W_DEFAULT if rule == "default" else W_RULE) * trust
        if rule == "default" and any(len(words) >= 2 for name, words in evidence.cues.items() if name != cascade_intent):
            weight *= DEFAULT_AGAINST_CUES  # falling through says little when another intent's own words are there twice
        scores[cascade_intent] += weight
        rules.append("cue cascade: no specific cue (faq by default)" if rule == "default" else f"cue cascade: {rule} -> {cascade_intent}")
    for name, words in evidence.cues.items():
        if name in scores:
            scores[name] += W_CUE * min(len(words), MAX_CUES)
            rules.append(f"{name} cue words: {', '.join(words[:MAX_CUES])}")
    stated = slots.stated()
    workload = bool(slots.model or slots.params_b)
    sharp = rule in SHARP_RULES
    quantities = (
        slots.tokens
        or slots.samples
        or slots.deadline_hours
        or slots.gpu_hours
        or slots.samples_per_second
        or slots.concurrency
        or slots.measured_busbw_gbps
        or (slots.gpus or 1) > 1
    )
    if (
        slots.gpu
        and not workload
        and "spec" in evidence.cues
        and not quantities
        and len(slots.compare_gpus or []) < 2
        and not sharp
        and "claim_check" not in evidence.cues
        and (len(set(evidence.cues["spec"])) > 1 or prose_words(text) <= SPEC_LOOKUP_WORDS)
    ):
        scores["spec"] += W_SPEC
        rules.append(f"a GPU named ({slots.gpu}) with a spec word and no workload -> spec")
    if not (slots.gpu or slots.card_memory_gb or slots.compare_gpus) and "spec" not in evidence.cues:
        # A spec lookup needs a card to look up: "how much faster is torch.compile" is near spec phrasings, not one.
        scores["spec"] *= NOTHING_TO_LOOK_UP
        rules.append("no GPU and no spec word: spec discounted")
    if "claim_check" in evidence.cues and (workload or quantities or slots.gpu) and rule != "claim cue":
        scores["claim_check"] += W_CLAIM_NUMBERS
        rules.append("claim words about a stated workload or GPU -> claim_check")
    if len(slots.compare_gpus or []) >= 2:
        scores["compare"] += W_TWO_GPUS
        rules.append(f"two GPUs named ({', '.join(slots.compare_gpus or [])}) -> compare")
    if workload and any(k in stated for k in ("tokens", "samples", "deadline_hours", "budget", "concurrency")):
        scores["sizing"] += W_WORKLOAD
        scores["recommend"] += W_WORKLOAD
        rules.append("a model with workload numbers -> sizing/recommend")


def apply_evidence_rules(scores: dict[str, float], rules: list[str], evidence: Evidence) -> bool:
    """The data-file evidence rules (registry.yaml `evidence_rules`): each adds its weight and rescales the others.

    A rule that fired decided on named evidence, so it is not a close call worth a question."""
    for rule, _ in evidence.fired:
        for name, factor in rule.scale.items():
            scores[name] *= factor
    for rule, words in evidence.fired:
        scores[rule.intent] += rule.weight
        rules.append(f"evidence rule {rule.name} ({', '.join(words[:4])}) -> {rule.intent}")
    return bool(evidence.fired)
