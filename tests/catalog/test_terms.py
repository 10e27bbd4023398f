"""The one-pass finder (service/catalog/terms.py) reads exactly what the alternation regexes it replaced read.

The references below are the regexes as they were (catalog names: one alternation per kind; each understanding
vocabulary: Chinese terms, then the Latin ones inside one word-boundary check). They are compared on the exemplars,
the hostile inputs and randomly spelled names and terms (case, separators, plurals, glued counts and endings).
"""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from evaluators.hostile_inputs import generate
from service.catalog import default_catalog
from service.catalog.names import _key, _spellings, catalog_names, find_all
from service.catalog.terms import Spelling, TermFinder
from service.understanding.registry import _CJK, Vocabulary, load_registry


def _alternation(spellings: dict[str, str], counted: bool) -> re.Pattern[str]:
    def alias(spelling: str) -> str:
        return r"[\s\-_]*".join(re.escape(p) for p in re.split(r"[\s\-_]+", spelling.strip()) if p)

    alternation = "|".join(alias(s) for s in sorted(spellings, key=len, reverse=True) if len(s) >= 2)
    start = r"(?:(?<![A-Za-z0-9.])|(?<=\d[xX]))" if counted else r"(?<![A-Za-z0-9.])"
    variant = r"(?!\s*(?:ti|super)(?![A-Za-z0-9]))" if counted else ""  # "4070 Ti" is another card than the 4070
    return re.compile(rf"{start}(?:{alternation})s?(?![A-Za-z0-9]){variant}", re.IGNORECASE)


def _vocabulary_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    def term(t: str) -> str:
        body = re.escape(t.rstrip("*").strip()).replace(r"\ ", r"[\s\-_]*")
        return body if _CJK.search(t) else rf"{body}{'[A-Za-z]*' if t.endswith('*') else 's?'}"

    ordered = [t for t in sorted(set(terms), key=len, reverse=True) if t.strip()]
    latin = [term(t) for t in ordered if not _CJK.search(t)]
    parts = [term(t) for t in ordered if _CJK.search(t)] + ([rf"(?<![A-Za-z0-9])(?:{'|'.join(latin)})(?![A-Za-z0-9])"] if latin else [])
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


@cache
def _kinds() -> tuple[tuple[object, re.Pattern[str], dict[str, str]], ...]:
    catalog = default_catalog()
    names = catalog_names(catalog)
    instances = {name: i.gpu for i in catalog.instances.values() for name in (i.name, i.id)}
    gpus = {**instances, **{g.id: g.id for g in catalog.gpus.values()}, **_spellings(catalog.gpus.values())}
    models = {**{m.id: m.id for m in catalog.models.values()}, **_spellings(catalog.models.values())}
    return ((names.gpu, _alternation(gpus, True), gpus), (names.model, _alternation(models, False), models))


def _vocabularies() -> list[Vocabulary]:
    out = []
    for data in load_registry().languages.values():
        out += [data.domain, data.gpu_words, data.follow_up_words, *data.cues.values(), *data.ask_cues.values()]
        out += [v for groups in data.rule_words.values() for v in groups.values()]
    return out


def _respelled(rng: random.Random, spelling: str) -> str:
    spelling = "".join(c.upper() if rng.random() < 0.3 else c for c in spelling.rstrip("*"))
    return re.sub(r"[\s\-_]", lambda m: rng.choice(["", " ", "-", "_", "- ", m.group()]), spelling)


def _corpus(spellings: list[str], seed: int, count: int, every: int) -> list[str]:
    rng = random.Random(seed)
    texts = [e.text for e in load_registry().exemplars[::every]] + [h.message for h in generate()[:: 2 * every]]
    texts += ["8xH100 and 4x4090", "gpt4 is not a T4 card", "box4090", "2xQwen-7B", "H100s vs h100-SXM5s", "x-h100", "ibv_wc_retry_exc_err"]
    for _ in range(count):
        parts = [rng.choice(["", "8x", "x", "a", ".", "-", "2", "（", "的"]) + _respelled(rng, rng.choice(spellings))
                 + rng.choice(["", "s", "S", "sx", "ing", "1", " ", ".", "-", "_", "卡", "了"]) for _ in range(rng.randrange(1, 5))]
        texts.append(rng.choice(["", " ", "，"]).join(parts))
    return texts


def test_catalog_names_are_found_as_their_alternation_found_them() -> None:
    spellings = [s for _, _, kind in _kinds() for s in kind]
    for text in _corpus(spellings, seed=1, count=3000, every=1):
        for finder, reference, _ in _kinds():
            expected = [(m.start(), m.end()) for m in reference.finditer(text) if finder.by_key.get(_key(m.group())) or
                        finder.by_key.get(_key(m.group())[:-1])]
            assert [(s, e) for _, s, e in find_all(finder, text)] == expected, text


def test_every_vocabulary_hits_what_its_alternation_hit() -> None:
    vocabularies = _vocabularies()
    assert len(vocabularies) > 300
    references = [_vocabulary_pattern(v.terms) for v in vocabularies]
    terms = sorted({t for v in vocabularies for t in v.terms})
    for text in _corpus(terms, seed=2, count=600, every=5):  # 358 reference regexes per text: a sample
        for vocabulary, reference in zip(vocabularies, references, strict=True):
            expected = [] if reference is None else list(dict.fromkeys(m.group().lower() for m in reference.finditer(text)))
            assert vocabulary.hits(text) == expected, (text, vocabulary.terms[:3])


@pytest.mark.parametrize(("spelling", "text", "found"), [
    (Spelling("all-reduce", joins="literal", before="word", after="plural"), "all-reduces, all reduce, allreduce", [(0, 11)]),
    (Spelling("ibv_wc_", joins="literal", before="word", after="plural"), "got ibv_wc_retry", []),  # "_r": a word goes on
    (Spelling("ibv_wc_", joins="literal"), "got ibv_wc_retry", [(4, 11)]),
    (Spelling("fine tun", joins="literal", before="word", after="stem"), "Fine-Tuning and finetune2", [(0, 11)]),
    (Spelling("H100 SXM", before="counted", after="plural"), "8xH100-sxm, 8h100sxm, H100 _ SXMs", [(2, 10), (22, 33)]),
    (Spelling("4070", before="counted", after="card"), "4070 Ti, 4070s super, 4070 tiny, 2x4070", [(22, 26), (35, 39)]),
])
def test_joints_and_boundaries(spelling: Spelling, text: str, found: list[tuple[int, int]]) -> None:
    assert [(s, e) for s, e, _ in TermFinder([[spelling]]).find(text)[0]] == found
