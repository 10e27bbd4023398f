"""Finding catalog names in free text: the one finder the assistant and retrieval share.

Two views of the same spellings (ids, names and aliases from the catalogs):

- `catalog_names(catalog)` / `find_all`: one finder per kind (GPUs, with instance types standing for their GPU;
  models) that matches what an alternation of its spellings, longest first, would, with positions, for slot extraction
  and grounding ("64台8卡H100" -> h100-sxm at 4..8, so its digits are not read as quantities);
- `named_documents`: whole runs of consecutive words compared in the catalog's normalized form,
  for retrieval, which maps names to spec-card documents.

Either way "A100 80G" names the 80 GB card rather than "A100" plus "80G", and "gpt4" never names a T4.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from service.catalog.loader import Catalog, normalize
from service.catalog.terms import Spelling, TermFinder

_WORDS = re.compile(r"[a-z0-9]+(?:[._+/\-][a-z0-9]+)*|[\u3400-\u9fff\uf900-\ufaff]+")
MAX_WORDS = 4
SEPARATOR_RUN = re.compile(r"[\s\-_]+")


# -- positions in text (slots, grounding) ------------------------------------------------------------
class CatalogNames:
    """One finder per kind over every catalog spelling (longest first), built once per catalog: one pass over a text
    finds every spelling (service/catalog/terms.py), where an alternation regex tried each at every position."""

    def __init__(self, catalog: Catalog) -> None:
        # Instance names stand for their GPU ("p5.48xlarge 和 p4d.24xlarge 哪个便宜" compares H100 with A100).
        instances = {name: i.gpu for i in catalog.instances.values() for name in (i.name, i.id)}
        self.gpu = _build({**instances, **{g.id: g.id for g in catalog.gpus.values()}, **_spellings(catalog.gpus.values())}, counted=True)
        self.model = _build({**{m.id: m.id for m in catalog.models.values()}, **_spellings(catalog.models.values())})



@dataclass(frozen=True)
class NameFinder:
    finder: TermFinder
    by_key: dict[str, str]  # folded spelling -> catalog id


def _build(spellings: dict[str, str], counted: bool = False) -> NameFinder:
    by_key = {_key(s): ident for s, ident in spellings.items() if len(s) >= 2}
    ordered = sorted(spellings, key=len, reverse=True)
    # A count glued on with an "x" ("8xH100", "4x4090") may precede a GPU name; an optional plural "s" ("256 H100s").
    # A GPU name followed by "Ti" or "Super" is another card: "4070 Ti" is not the RTX 4070. Cards in the catalog match
    # first with their longer spelling ("4070 Ti Super", "3080 Ti"); an unknown variant is left unnamed, not misread.
    before, after = ("counted", "card") if counted else ("name", "plural")
    return NameFinder(TermFinder([[Spelling(s, before=before, after=after) for s in ordered if len(s) >= 2]]), by_key)


def _key(spelling: str) -> str:
    return SEPARATOR_RUN.sub("", spelling.lower())


def _spellings(entries) -> dict[str, str]:
    out: dict[str, str] = {}
    for e in entries:
        for s in (e.name, *e.aliases):
            out.setdefault(s, e.id)
    return out


_NAMES: dict[int, CatalogNames] = {}


def catalog_names(catalog: Catalog) -> CatalogNames:
    key = id(catalog)
    if key not in _NAMES:
        _NAMES[key] = CatalogNames(catalog)
    return _NAMES[key]


def find_all(names: NameFinder, text: str) -> list[tuple[str, int, int]]:
    """Non-overlapping (id, start, end) catalog names in reading order."""
    found = []
    for start, end, _ in names.finder.find(text)[0]:
        key = _key(text[start:end])
        ident = names.by_key.get(key) or names.by_key.get(key[:-1])  # the optional plural
        if ident:
            found.append((ident, start, end))
    return found


# -- documents named (retrieval) ------------------------------------------------------------------------
def name_index(entries: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """normalized name -> doc id, from (doc id, names) pairs."""
    return {name: doc_id for doc_id, names in entries for name in names}


def named_documents(question: str, names: Mapping[str, str]) -> set[str]:
    """Doc ids of the catalog entries the question names (runs of up to MAX_WORDS words, longest first)."""
    if not names:
        return set()
    words = _WORDS.findall(unicodedata.normalize("NFKC", question).lower())
    used: set[int] = set()
    found: set[str] = set()
    for length in range(MAX_WORDS, 0, -1):
        for start in range(len(words) - length + 1):
            span = set(range(start, start + length))
            if span & used:
                continue
            doc_id = names.get(normalize("".join(words[start : start + length])))
            if doc_id is not None:
                found.add(doc_id)
                used |= span
    return found
