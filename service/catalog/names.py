"""Finding catalog names in free text: the one finder the assistant and retrieval share.

Two views of the same spellings (ids, names and aliases from the catalogs):

- `catalog_names(catalog)` / `find_all`: one regex per kind (GPUs, with instance types standing for
  their GPU; models), a trie of the spellings, the longest that fits, with positions, for slot extraction
  and grounding ("64台8卡H100" -> h100-sxm at 4..8, so its digits are not read as quantities);
- `named_documents`: whole runs of consecutive words compared in the catalog's normalized form,
  for retrieval, which maps names to spec-card documents.

Either way "A100 80G" names the 80 GB card rather than "A100" plus "80G", and "gpt4" never names a T4.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

from service.catalog.loader import Catalog, normalize

_WORDS = re.compile(r"[a-z0-9]+(?:[._+/\-][a-z0-9]+)*|[\u3400-\u9fff\uf900-\ufaff]+")
MAX_WORDS = 4


# -- positions in text (slots, grounding) ------------------------------------------------------------
class CatalogNames:
    """One regex per kind over every catalog spelling (the longest that fits wins), built once per catalog."""

    def __init__(self, catalog: Catalog) -> None:
        # Instance names stand for their GPU ("p5.48xlarge 和 p4d.24xlarge 哪个便宜" compares H100 with A100).
        instances = {name: i.gpu for i in catalog.instances.values() for name in (i.name, i.id)}
        self.gpu = self._build({**instances, **{g.id: g.id for g in catalog.gpus.values()}, **_spellings(catalog.gpus.values())}, counted=True)
        self.model = self._build({**{m.id: m.id for m in catalog.models.values()}, **_spellings(catalog.models.values())})

    @staticmethod
    def _build(spellings: dict[str, str], counted: bool = False) -> tuple[re.Pattern[str], dict[str, str]]:
        by_key = {_key(s): ident for s, ident in spellings.items() if len(s) >= 2}
        alternation = _trie_pattern([s for s in spellings if len(s) >= 2])
        # A count glued on with an "x" ("8xH100", "4x4090") may precede a GPU name; an optional plural "s" ("256 H100s").
        start = r"(?:(?<![A-Za-z0-9.])|(?<=\d[xX]))" if counted else r"(?<![A-Za-z0-9.])"
        return re.compile(rf"{start}(?:{alternation})s?(?![A-Za-z0-9])", re.IGNORECASE), by_key


SEPARATOR_RUN = re.compile(r"[\s\-_]+")


def _trie_pattern(spellings: list[str]) -> str:
    """One regex for all spellings, sharing their common prefixes (a trie over the spellings' keys: lower case, no blanks,
    hyphens or underscores), where a run of those may stand wherever one spelling of that prefix had one.

    A flat alternation of the ~800 spellings made the regex engine try every one at every position: 4.8 ms to scan
    a 2,000-character answer for grounding. Factored by prefix, a position that starts no spelling fails at its first
    character (0.4 ms), and since at most one branch fits the next character the match is the longest spelling that
    fits, as the alternation's longest-first order gave (the same matches on 14,852 answers, questions, generated texts
    and knowledge documents)."""
    root: dict = {}
    for spelling in spellings:
        node = root
        for n, part in enumerate(p for p in SEPARATOR_RUN.split(spelling.strip().lower()) if p):
            for m, char in enumerate(part):
                node = node.setdefault("children", {}).setdefault(char, {})
                if n and not m:
                    node["after_separator"] = True  # a blank, hyphen or underscore may come before this character
        node["end"] = True

    def emit(node: dict) -> str:
        options = [(r"[\s\-_]*" if child.get("after_separator") else "") + re.escape(char) + emit(child)
                   for char, child in node.get("children", {}).items()]
        if not options:
            return ""
        body = options[0] if len(options) == 1 else f"(?:{'|'.join(options)})"
        return f"(?:{body})?" if node.get("end") else body  # greedy: a longer spelling first, this one if it does not fit

    return emit(root)


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


def find_all(names: tuple[re.Pattern[str], dict[str, str]], text: str) -> list[tuple[str, int, int]]:
    """Non-overlapping (id, start, end) catalog names in reading order."""
    pattern, by_key = names
    found = []
    for spelled, start, end in _matches(pattern, text):
        key = _key(spelled)
        ident = by_key.get(key) or by_key.get(key[:-1])  # the optional plural
        if ident:
            found.append((ident, start, end))
    return found


@lru_cache(maxsize=4096)
def _matches(pattern: re.Pattern[str], text: str) -> tuple[tuple[str, int, int], ...]:
    # The alternation has hundreds of spellings and one turn scans the same text several times
    # (slots, evidence, grounding): scanning once per text saves most of that.
    return tuple((m.group(0), m.start(), m.end()) for m in pattern.finditer(text))


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
