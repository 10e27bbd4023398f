"""Understanding as a pluggable stage: the `Understander` protocol and the default, `RoutedUnderstander`.

Every intent gets a score from three kinds of evidence, and the trace records all of them:

- the semantic router: similarity-weighted votes of the question's nearest exemplars (data files);
- structured evidence: pasted logs, catalog names, numbers with units (the deterministic slots),
  the strong domain vocabulary and cue words per intent (data files);
- the cue cascade of service.assistant.understand: its verdict is one weighted vote, so a phrasing
  it has never seen is still read by its neighbours, and a sharp cue (a pasted log, "号称") still counts.

Out of scope means far from every in-domain exemplar AND no domain evidence. A close call between two
intents that need different inputs asks which one was meant. The weights live in evidence_weights.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from service import budget
from service.assistant import followup
from service.assistant.slots import Slots, extract_slots
from service.assistant.understand import INJECTION, Understanding, classify_with_rule, detect_language, for_intent
from service.catalog import Catalog
from service.contract import Clarification, Language, Neighbour, UnderstandingTrace
from service.understanding.case import read_case
from service.understanding.case_reading import carried_case, enriched_slots, language_text, slot_text, with_case
from service.understanding.evidence import Evidence, gather
from service.understanding.evidence_weights import W_NEIGHBOURS, W_RULE, WORD_ONLY_FACTOR, apply_evidence_rules, neighbour_votes, weigh_rules
from service.understanding.registry import Registry, load_registry
from service.understanding.router import TOP_K, Encoder, SemanticRouter

CLOSE_CALL = 0.08  # score gap under which two intents needing different inputs get a clarifying question
OOD_QUANTILE = 0.02  # the out-of-domain threshold: this quantile of in-domain exemplars' nearest in-domain similarity
SHOWN_NEIGHBOURS = 5
SETTINGS_ONLY_CHARS = 60  # a follow-up this short with no Chinese and at most SETTINGS_ONLY_WORDS words keeps a Chinese conversation's language
SETTINGS_ONLY_WORDS = 1
CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")
MAX_CONTINUATION_CHARS = 200  # a turn longer than this says enough on its own to be read alone


class Understander(Protocol):
    def understand(self, text: str, *, language: Language | None = None, state: dict[str, Any] | None = None,
                   raw: str | None = None) -> Understanding: ...

    def handler(self, intent: str) -> str: ...


class RoutedUnderstander:
    def __init__(
        self,
        catalog: Catalog,
        *,
        encoder: Encoder | None = None,
        registry: Registry | None = None,
        cache_dir: Path | None = None,
        k: int = TOP_K,
    ) -> None:
        self.catalog = catalog
        self.registry = registry or load_registry()
        self._encoder, self._cache_dir, self._k = encoder, cache_dir, k
        self._router: SemanticRouter | None = None
        intents = [e.intent for e in self.registry.exemplars]
        self._in_domain = np.array([self.registry.in_domain(i) for i in intents])
        self._threshold: tuple[float, float] | None = None

    # -- the router, built on first use (the encoder is the process's shared one) --------------
    @property
    def router(self) -> SemanticRouter:
        if self._router is None:
            with budget.not_charged():  # the exemplar matrix: built (or read from the cache) once per process
                self._router = self._build_router()
        return self._router

    def _build_router(self) -> SemanticRouter:
        encoder = self._encoder
        if encoder is None:
            from service.retrieval.embeddings import shared_use_multilingual

            encoder = shared_use_multilingual()
        return SemanticRouter(encoder, self.registry.exemplars, digest=self.registry.digest, k=self._k, cache_dir=self._cache_dir)

    @property
    def ood_thresholds(self) -> tuple[float, float]:
        """(far, near), calibrated on the exemplars.

        far: the median similarity of an off-topic exemplar to its nearest in-domain one; below it a
        question is far from the domain whatever its neighbours. near: nearly every in-domain exemplar
        (1 - OOD_QUANTILE) has another this close; below it, and nearest to an off-topic exemplar, it is far too.
        """
        if self._threshold is None:
            with budget.not_charged():  # once per process
                self._threshold = self._calibrate()
        return self._threshold

    def _calibrate(self) -> tuple[float, float]:
        matrix = self.router.matrix
        sims = matrix @ matrix[self._in_domain].T
        sims[np.flatnonzero(self._in_domain), np.arange(sims.shape[1])] = -1.0  # not oneself
        nearest = sims.max(axis=1)
        off_topic = np.array([e.intent == "out_of_scope" for e in self.registry.exemplars])
        return float(np.median(nearest[off_topic])), float(np.quantile(nearest[self._in_domain], OOD_QUANTILE))

    def handler(self, intent: str) -> str:
        return self.registry.handler(intent)

    # -- understanding ----------------------------------------------------------------------------
    def understand(self, text: str, *, language: Language | None = None, state: dict[str, Any] | None = None,
                   raw: str | None = None) -> Understanding:
        """`text` is the message with its whitespace collapsed (what the readers see); `raw` keeps its lines and indentation
        for the case reader's parsers (YAML, tables), which are linear in it."""
        case = read_case(raw if raw is not None else text, self.catalog)
        budget.check("understand:case")
        und = self._understand(text, language, state, case)
        if state and followup.is_follow_up(text, state):
            case = carried_case(und, case, state)
        return with_case(und, case)

    def _understand(self, text: str, language: Language | None, state: dict[str, Any] | None, case) -> Understanding:
        lang = language or _language_kept(text, state) or detect_language(language_text(text, case))
        slots = enriched_slots(extract_slots(slot_text(text, case), self.catalog), case, self.catalog)
        budget.check("understand:slots")
        previous_gpu = ((state or {}).get("slots") or {}).get("gpu")
        if previous_gpu and slots.gpu is None and len(text) <= MAX_CONTINUATION_CHARS:
            sibling = followup.sibling_variant(previous_gpu, text, self.catalog.gpus)
            if sibling:
                slots = slots.model_copy(update={"gpu": sibling})
        und = self.read(text, slots, lang, vector=self.router.embed(text))
        budget.check("understand:read")
        # "what about the weather tomorrow?": a follow-up cue, but far from the domain with no word or setting of it
        off_topic = bool(state) and und.intent == "out_of_scope" and und.far_from_domain and not slots.stated() and not followup.changes_relatively(text)
        if state and not off_topic and followup.is_follow_up(text, state):
            # A follow-up's words say little on their own ("what about H100 instead?" is not a comparison):
            # the cue cascade reads it, and merge() carries the previous turn's intent and workload over.
            intent, ask, _, rule = classify_with_rule(text, slots)
            trace = (
                und.trace.model_copy(update={"rules": [*und.trace.rules, f"follow-up cue after a {state.get('intent')} turn: {rule} -> {intent}"]})
                if und.trace
                else None
            )
            und = und.model_copy(
                update={
                    "intent": intent,
                    "ask": ask,
                    "slots": for_intent(intent, slots),
                    "pasted": None,
                    "trace": trace,
                    "clarification": None,
                }
            )
        if state and (previous := self._continued_intent(text, slots, und, state)):
            und = self._continue(und, slots, state, previous)
            off_topic = False
        if state and not off_topic:
            merged = followup.merge(text, und, state)
            changed = merged.intent != und.intent or merged.slots != und.slots or merged.context != und.context
            if changed and und.trace:
                rules = [*und.trace.rules, f"follow-up of a {state.get('intent')} turn: reads as {merged.intent}"]
                merged = merged.model_copy(update={"trace": und.trace.model_copy(update={"intent": merged.intent, "rules": rules})})
            # A follow-up reads with the previous turn: no clarifying question about this one alone.
            und = merged.model_copy(update={"clarification": None}) if changed else merged
            if und.clarification is not None and len(text) <= MAX_CONTINUATION_CHARS and state.get("intent") in self.registry.intents:
                # "nodes only have 25GbE, no IB" after a plan: the conversation settles a close call better than a question
                trace = und.trace.model_copy(update={"rules": [*und.trace.rules, "close call inside a conversation: answered, not asked"]}) if und.trace else None
                und = und.model_copy(update={"clarification": None, "trace": trace})
        return und

    def _continued_intent(self, text: str, slots: Slots, und: Understanding, state: dict[str, Any]) -> str | None:
        """The previous turn's intent when this turn only continues it, else None.

        "Switched to another machine and the same code works, what does that tell me" names nothing from the
        domain, so on its own it reads as out of scope (or as whatever its generic words suggest); after a turn whose
        follow-up policy is `context` (diagnostics, faq, claim check, pre-flight, spec) and with a word that
        refers back to the conversation, it is that conversation's next step. An off-topic rule that fired
        ("who won the game yesterday"), injection, chit-chat or a domain question of its own are not."""
        previous = state.get("intent")
        registry = self.registry
        if previous not in registry.intents or registry.follow_up(previous) != "context" or not registry.in_domain(previous):
            return None
        # Without a domain word of its own, whatever this turn read as ("配置" -> recommend) rests on generic words.
        if und.intent == "smalltalk" or previous == und.intent or len(text) > MAX_CONTINUATION_CHARS or INJECTION.search(text):
            return None
        evidence = gather(text, slots, registry)
        if evidence.in_domain or any(not registry.in_domain(rule.intent) for rule, _ in evidence.fired):
            return None
        if not any(data.follow_up_words.hits(text) for data in registry.languages.values()):
            return None
        return previous

    @staticmethod
    def _continue(und: Understanding, slots: Slots, state: dict[str, Any], previous: str) -> Understanding:
        """`und` read as the next turn of a `previous` conversation: its intent, its slots and its question as context."""
        carried = Slots.model_validate({**(state.get("slots") or {}), **slots.stated()})
        trace = und.trace
        if trace is not None:
            rule = f"continues the {previous} conversation: no domain word of its own, a word referring back to it -> {previous}"
            trace = trace.model_copy(update={"intent": previous, "rules": [*trace.rules, rule]})
        return und.model_copy(
            update={
                "intent": previous,
                "ask": state.get("ask"),
                "slots": for_intent(previous, carried),
                "context": state.get("query"),
                "clarification": None,
                "trace": trace,
                "evidence": [],
            }
        )

    def read(self, text: str, slots: Slots, lang: Language, *, vector: np.ndarray, exclude: np.ndarray | None = None) -> Understanding:
        """Score every intent for one message; `exclude` hides exemplars (cross-validation)."""
        registry = self.registry
        sims = self.router.matrix @ vector
        if exclude is not None:
            sims = np.where(exclude, -np.inf, sims)
        order = np.argsort(-sims)[: self._k]
        neighbours = [(registry.exemplars[i], float(sims[i])) for i in order]
        votes = neighbour_votes(neighbours)
        in_domain_sims = np.where(self._in_domain, sims, -np.inf)
        nearest_in_domain = float(in_domain_sims.max())
        evidence = gather(text, slots, registry)
        budget.check("understand:evidence")
        cascade_intent, cascade_ask, pasted, rule = classify_with_rule(text, slots)

        scores = {name: W_NEIGHBOURS * votes.get(name, 0.0) for name in registry.intents}
        rules: list[str] = []
        weigh_rules(scores, rules, text, slots, evidence, cascade_intent, rule)

        far_below, near_below = self.ood_thresholds
        nearest_is_off_topic = not registry.in_domain(neighbours[0][0].intent)
        far = nearest_in_domain < far_below or (nearest_is_off_topic and nearest_in_domain < near_below)
        if evidence.in_domain:
            # A catalog name, a workload number or a pasted log rules out the two non-domain readings;
            # a domain word alone only weakens them ("英伟达的股票" names the company, not a GPU).
            # Only a GPU's name or a GPU word ("4090 挖矿", "gaming laptop with a good GPU") weakens them too:
            # an off-topic neighbour or an off-topic evidence rule can still win.
            if not INJECTION.search(text):
                factor = 0.0 if evidence.strongly_in_domain else WORD_ONLY_FACTOR
                scores["out_of_scope"] *= factor
                scores["smalltalk"] *= factor
            rules.append("domain evidence: " + ", ".join([*evidence.names, *evidence.quantities, *evidence.domain_terms][:6]))
        elif far and not any(registry.in_domain(r.intent) for r, _ in evidence.fired):
            rules.append(
                f"far from every in-domain exemplar (nearest {nearest_in_domain:.2f}; thresholds {far_below:.2f}, "
                f"{near_below:.2f} when an off-topic exemplar is nearer) and no domain evidence"
            )
            for name in registry.intents:
                if registry.in_domain(name):
                    scores[name] = 0.0
            if scores["smalltalk"] <= scores["out_of_scope"]:
                scores["out_of_scope"] = max(scores["out_of_scope"], W_RULE)

        fired = apply_evidence_rules(scores, rules, evidence)

        ranked = sorted(scores, key=lambda name: (-scores[name], name))
        ranked = self._without_missing_requirements(ranked, evidence, slots, rule, rules)
        intent, runner_up = ranked[0], ranked[1]
        ask = self._ask(intent, cascade_intent, cascade_ask, evidence, neighbours, slots)
        clarification = None if fired else self._close_call(intent, runner_up, scores, rule, lang, rules)
        trace = UnderstandingTrace(
            intent=intent,
            runner_up=runner_up,
            scores={k: round(v, 3) for k, v in sorted(scores.items(), key=lambda kv: -kv[1]) if v > 0},
            neighbours=[
                Neighbour(intent=e.intent if e.ask is None else f"{e.intent}/{e.ask}", exemplar=e.text, similarity=round(s, 3))
                for e, s in neighbours[:SHOWN_NEIGHBOURS]
            ],
            rules=rules,
        )
        return Understanding(
            language=lang,
            intent=intent,
            slots=for_intent(intent, slots),
            ask=ask,
            pasted=pasted if intent == "diagnostics" else None,
            trace=trace,
            clarification=clarification,
            evidence=[r.name for r, _ in evidence.fired if r.intent == intent],
            spec_words=evidence.cues.get("spec", []),
            far_from_domain=far and not evidence.in_domain and not any(registry.in_domain(name) for name in evidence.cues),
        )

    def _without_missing_requirements(self, ranked: list[str], evidence: Evidence, slots: Slots, rule: str, rules: list[str]) -> list[str]:
        """Intents whose required evidence (registry `requires`) is absent move to the end: a claim check with no
        claim ("what happens when a spot VM is reclaimed") or a comparison with one GPU ("wait for GB200 or buy H200")
        reads as the next-ranked intent."""
        present = set()
        if "claim_check" in evidence.cues or rule == "claim cue" or any(r.intent == "claim_check" for r, _ in evidence.fired):
            present.add("claim")
        if len(set(slots.compare_gpus or [])) >= 2:
            present.add("two_gpus")
        missing = [name for name in ranked if set(self.registry.intents[name].requires) - present]
        if missing and ranked[0] in missing:
            rules.append(f"{ranked[0]} set aside: it requires {', '.join(sorted(set(self.registry.intents[ranked[0]].requires) - present))}")
        return [name for name in ranked if name not in missing] + missing

    def _ask(self, intent: str, cascade_intent: str, cascade_ask: str | None, evidence: Evidence, neighbours: list, slots: Slots) -> str | None:
        # The quantity the question's own words name: the cascade's ask, else the ask with the most cue words.
        named = cascade_ask or (max(evidence.ask_cues, key=lambda a: len(evidence.ask_cues[a])) if evidence.ask_cues else None)
        fallback = [r.fallback_ask for r, _ in evidence.fired if r.intent == intent and r.fallback_ask]
        if fallback and (named in (None, "memory") or not (slots.model or slots.params_b)):
            return fallback[0]  # "最少要几张 H100": no other quantity named, so the count itself
        implied = [r.ask for r, _ in evidence.fired if r.intent == intent and r.ask]
        if implied:
            return implied[0]  # "200k GPU-hours: what size model?" asks for a model size, not the time its cue words name
        if intent == cascade_intent and cascade_ask:
            return cascade_ask
        if intent == "cloud_vs_onprem":
            return "cost"
        if intent not in ("sizing", "claim_check", "compare"):
            return None
        if named:
            return named
        if intent != "sizing":
            return None
        # The sizing neighbours' asks, similarity-weighted.
        asks: dict[str, float] = {}
        for exemplar, sim in neighbours:
            if exemplar.ask:
                asks[exemplar.ask] = asks.get(exemplar.ask, 0.0) + max(sim, 0.0)
        return max(asks, key=lambda a: asks[a]) if asks else "memory"

    def _close_call(self, intent: str, runner_up: str, scores: dict[str, float], rule: str, lang: str, rules: list[str]) -> Clarification | None:
        registry = self.registry
        if rule not in ("default", "no domain cue") or not (registry.in_domain(intent) and registry.in_domain(runner_up)):
            return None  # a sharp cue decided, or one reading is not about infrastructure
        if "faq" in (intent, runner_up):
            return None  # the knowledge answer needs nothing more from the user: answer it rather than ask
        if scores[intent] - scores[runner_up] >= CLOSE_CALL or registry.same_inputs(intent, runner_up):
            return None
        labels = registry.languages[lang].labels
        first, second = labels[intent], labels[runner_up]
        rules.append(f"close call: {intent} {scores[intent]:.2f} vs {runner_up} {scores[runner_up]:.2f} -> ask which one")
        return Clarification(question=registry.message(lang, "clarify", first=first, second=second), suggestions=[first, second])


LONG_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
ANY_DIGIT = re.compile(r"\d")


def _language_kept(text: str, state: dict[str, Any] | None) -> Language | None:
    """A short follow-up of settings and numbers ("bf16, bs=8, seq 2048") has no sentence frame of its own: it keeps the
    conversation's language instead of reading as English for its Latin abbreviations."""
    previous = (state or {}).get("language")
    if previous != "zh" or CJK_CHAR.search(text) or len(text) > SETTINGS_ONLY_CHARS:
        return None
    words = [w for w in LONG_LATIN_WORD.findall(text) if not ANY_DIGIT.search(w)]
    return previous if len(words) <= SETTINGS_ONLY_WORDS else None


_DEFAULT: dict[int, RoutedUnderstander] = {}


def default_understander(catalog: Catalog) -> RoutedUnderstander:
    """One understander per catalog per process (its exemplar matrix is built once)."""
    if id(catalog) not in _DEFAULT:
        _DEFAULT[id(catalog)] = RoutedUnderstander(catalog)
    return _DEFAULT[id(catalog)]
