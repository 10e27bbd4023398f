"""The intent registry: every intent's handler, follow-up policy, inputs, cue words and exemplars, read from data files.

Adding an intent or a phrasing means editing service/understanding/data/, not code:
registry.yaml names the intents and asks; <lang>/exemplars.yaml holds how users ask;
<lang>/cues.yaml holds cue words, the strong domain vocabulary and the user-facing strings.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from service import yaml_files


from service.catalog.terms import Spelling, TermFinder
from service import budget

DATA_DIR = Path(__file__).parent / "data"
LANGUAGES = ("en", "zh")
FOLLOW_UP_POLICIES = ("workload", "context", "none")


@dataclass(frozen=True)
class IntentSpec:
    name: str
    handler: str  # key in service.assistant.handlers.HANDLERS
    follow_up: str  # workload | context | none
    inputs: tuple[str, ...]
    domain: bool
    # Evidence the intent cannot be read without (REQUIREMENTS): when none is present the next-ranked intent is taken.
    requires: tuple[str, ...] = ()


# What a `requires` entry means, checked in service.understanding.understander.
REQUIREMENTS = ("claim", "two_gpus")


@dataclass(frozen=True)
class Exemplar:
    text: str
    intent: str
    language: str
    ask: str | None = None  # the sizing sub-question, for sizing exemplars


@dataclass(frozen=True)
class Vocabulary:
    """Closed word lists; Latin terms match whole words (a trailing * allows any ending), CJK terms match as written.

    Every vocabulary's terms live in one finder (service/catalog/terms.py), so a question is scanned once for all
    several hundred of them, not once per vocabulary; each still reads what its own alternation would: Chinese terms
    first, then the Latin ones inside one word-boundary check, longest first in each."""

    terms: tuple[str, ...]
    group: int = field(default=-1, compare=False)

    @classmethod
    def of(cls, terms: list[str]) -> Vocabulary:
        ordered = [t for t in sorted(set(terms), key=len, reverse=True) if t.strip()]
        spellings = [_spelling(t) for t in ordered if _CJK.search(t)] + [_spelling(t) for t in ordered if not _CJK.search(t)]
        return cls(tuple(terms), _VOCABULARIES.add(spellings) if spellings else -1)

    def hits(self, text: str) -> list[str]:
        if self.group < 0:
            return []
        return list(dict.fromkeys(text[start:end].lower() for start, end, _ in _VOCABULARIES.find(text)[self.group]))


_CJK = re.compile(r"[\u3400-\u9fff]")


def _spelling(term: str) -> Spelling:
    """A term as its alternation wrote it: blanks inside are gaps, "-" and "_" literal; a Chinese term matches
    anywhere, a Latin one as a whole word with an optional plural, or any ending for a stem ("fine-tun*")."""
    stem = term.endswith("*")
    body = term.rstrip("*").strip()
    if _CJK.search(term):
        return Spelling(body, joins="literal")
    return Spelling(body, joins="literal", before="word", after="stem" if stem else "plural")


class _VocabularyIndex:
    """The terms of every Vocabulary in one TermFinder, rebuilt when a vocabulary is added (while data files load)."""

    def __init__(self) -> None:
        self._groups: list[list[Spelling]] = []
        self._finder: TermFinder | None = None
        self._lock = threading.Lock()

    def add(self, spellings: list[Spelling]) -> int:
        with self._lock:
            self._groups.append(spellings)
            self._finder = None
            return len(self._groups) - 1

    def find(self, text: str) -> tuple[tuple[tuple[int, int, int], ...], ...]:
        finder = self._finder
        if finder is None:
            with self._lock, budget.not_charged():
                if self._finder is None:
                    self._finder = TermFinder(list(self._groups))
                finder = self._finder
        return finder.find(text)


_VOCABULARIES = _VocabularyIndex()


@dataclass(frozen=True)
class EvidenceRule:
    """A named piece of structured evidence (registry.yaml `evidence_rules`; its words per language in cues.yaml).

    It fires when one of its `any` words is in the question, one of its `also` words too (when it has
    any), none of its `unless` words, every evidence kind in `needs` and none in `blocked_by`
    (kinds: pasted, gpu, two_gpus, workload, quantities, measured, strong_domain, cluster_workload:
    a model on a stated number of GPUs or nodes). It then adds
    `weight` to `intent` and multiplies the other intents' scores by `scale`. A sizing rule may name the
    sizing `ask` it implies (the question's quantity), which then wins over the ask's cue words, or a
    `fallback_ask`, taken only when the question's words name no other quantity ("几张卡, 3 天内" asks for a
    deadline; "最少几张卡" for the count).
    """

    name: str
    intent: str
    weight: float
    needs: tuple[str, ...] = ()
    blocked_by: tuple[str, ...] = ()
    scale: dict[str, float] = field(default_factory=dict)
    ask: str | None = None
    fallback_ask: str | None = None


EVIDENCE_KINDS = ("pasted", "gpu", "two_gpus", "workload", "quantities", "measured", "budget", "strong_domain", "cluster_workload")
RULE_WORD_GROUPS = ("any", "also", "unless")


@dataclass(frozen=True)
class LanguageData:
    domain: Vocabulary  # words that by themselves make a question about AI infrastructure
    gpu_words: Vocabulary  # domain words that only name hardware ("gpu", "显卡"): not enough to rule out off-topic uses
    rule_words: dict[str, dict[str, Vocabulary]]  # evidence rule -> any / also / unless -> words
    cues: dict[str, Vocabulary]  # intent -> cue words
    ask_cues: dict[str, Vocabulary]  # sizing ask -> cue words
    messages: dict[str, str]
    labels: dict[str, str]  # intent -> how to offer it in a clarifying question
    # words by which a turn with no domain word of its own refers back to the conversation ("the same code", "这说明什么")
    follow_up_words: Vocabulary = field(default_factory=lambda: Vocabulary.of([]))


@dataclass(frozen=True)
class Registry:
    intents: dict[str, IntentSpec]
    asks: tuple[str, ...]
    exemplars: tuple[Exemplar, ...]
    languages: dict[str, LanguageData]
    rules: tuple[EvidenceRule, ...]
    digest: str  # content hash of every data file: keys the exemplar-embedding cache

    def handler(self, intent: str) -> str:
        spec = self.intents.get(intent)
        return spec.handler if spec else intent

    def follow_up(self, intent: str) -> str:
        spec = self.intents.get(intent)
        return spec.follow_up if spec else "none"

    def same_inputs(self, a: str, b: str) -> bool:
        return set(self.intents[a].inputs) == set(self.intents[b].inputs)

    def in_domain(self, intent: str) -> bool:
        return self.intents[intent].domain

    def message(self, language: str, key: str, **values: str) -> str:
        return self.languages[language].messages[key].format(**values)


@budget.loader
def load_registry(data_dir: Path = DATA_DIR) -> Registry:
    digest = hashlib.sha256()
    for path in sorted(data_dir.rglob("*.yaml")):
        digest.update(path.relative_to(data_dir).as_posix().encode() + b"\0" + path.read_bytes())
    raw = _read(data_dir / "registry.yaml")
    intents = {}
    for name, spec in raw["intents"].items():
        if spec["follow_up"] not in FOLLOW_UP_POLICIES:
            raise ValueError(f"{data_dir / 'registry.yaml'}: intent {name}: follow_up must be one of {FOLLOW_UP_POLICIES}")
        requires = tuple(spec.get("requires") or ())
        if unknown := set(requires) - set(REQUIREMENTS):
            raise ValueError(f"{data_dir / 'registry.yaml'}: intent {name}: unknown requires {sorted(unknown)}; known: {REQUIREMENTS}")
        intents[name] = IntentSpec(
            name, spec["handler"], spec["follow_up"], tuple(spec.get("inputs") or ()), bool(spec.get("domain", True)), requires
        )
    asks = tuple(raw["asks"])
    rules = tuple(_rule(name, spec, intents, data_dir) for name, spec in (raw.get("evidence_rules") or {}).items())
    if any(a is not None and a not in asks for r in rules for a in (r.ask, r.fallback_ask)):
        raise ValueError(f"{data_dir / 'registry.yaml'}: an evidence rule names an ask not in {asks}")
    exemplars: list[Exemplar] = []
    languages: dict[str, LanguageData] = {}
    for lang in LANGUAGES:
        for intent, rows in _read(data_dir / lang / "exemplars.yaml").items():
            if intent not in intents:
                raise ValueError(f"{data_dir / lang / 'exemplars.yaml'}: unknown intent {intent!r}")
            if isinstance(rows, dict):  # sizing: grouped by ask
                for ask, texts in rows.items():
                    if ask not in asks:
                        raise ValueError(f"{data_dir / lang / 'exemplars.yaml'}: unknown ask {ask!r}")
                    exemplars += [Exemplar(str(t), intent, lang, ask) for t in texts]
            else:
                exemplars += [Exemplar(str(t), intent, lang) for t in rows]
        cues = _read(data_dir / lang / "cues.yaml")
        languages[lang] = LanguageData(
            domain=Vocabulary.of(cues["domain"]),
            gpu_words=Vocabulary.of(cues.get("gpu_words") or []),
            rule_words=_rule_words(cues.get("rule_words") or {}, rules, data_dir / lang / "cues.yaml"),
            cues={intent: Vocabulary.of(words) for intent, words in (cues.get("intents") or {}).items()},
            ask_cues={ask: Vocabulary.of(words) for ask, words in (cues.get("asks") or {}).items()},
            messages=dict(cues["messages"]),
            labels=dict(cues["labels"]),
            follow_up_words=Vocabulary.of(cues.get("follow_up_words") or []),
        )
    return Registry(intents, asks, tuple(exemplars), languages, rules, digest.hexdigest()[:16])


def _rule(name: str, spec: dict, intents: dict, data_dir: Path) -> EvidenceRule:
    where = f"{data_dir / 'registry.yaml'}: evidence rule {name}"
    kinds = [*(spec.get("needs") or []), *(spec.get("blocked_by") or [])]
    if spec.get("intent") not in intents or any(k not in EVIDENCE_KINDS for k in kinds):
        raise ValueError(f"{where}: intent must be one of {sorted(intents)} and evidence kinds one of {EVIDENCE_KINDS}")
    scale = {str(k): float(v) for k, v in (spec.get("scale") or {}).items()}
    if any(k not in intents for k in scale):
        raise ValueError(f"{where}: scale names an unknown intent")
    return EvidenceRule(name, spec["intent"], float(spec["weight"]), tuple(spec.get("needs") or ()), tuple(spec.get("blocked_by") or ()), scale,
                        spec.get("ask"), spec.get("fallback_ask"))


def _rule_words(raw: dict, rules: tuple[EvidenceRule, ...], path: Path) -> dict[str, dict[str, Vocabulary]]:
    names = {r.name for r in rules}
    out: dict[str, dict[str, Vocabulary]] = {}
    for name, groups in raw.items():
        if name not in names or any(g not in RULE_WORD_GROUPS for g in groups):
            raise ValueError(f"{path}: rule_words.{name}: unknown rule, or a group other than {RULE_WORD_GROUPS}")
        out[name] = {g: Vocabulary.of(groups.get(g) or []) for g in RULE_WORD_GROUPS}
    return out


def _read(path: Path) -> dict:
    with path.open(encoding="utf-8") as handle:
        return yaml_files.safe_load(handle) or {}
