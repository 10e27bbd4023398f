"""The fixed texts an answer embeds, listed so the index embeds them once and stores them (retrieval/text_vectors.py).

Without this an unseen question cost about eleven encoder runs: the FAQ composer embedded the sentences, headings
and whole texts of the sections it scored, the diagnostics and other handlers searched with fixed queries, and the
router's exemplars were embedded at the first question. None of that text changes between answers, so it is
embedded when the index is built; an answer then encodes only what the user wrote.

What is fixed follows the code that uses it, so the set is defined here beside that code:

- every section of the index: its text, its heading as the composer reads it, and each quotable unit
  (compose/faq_units.units), the sentences the composer scores;
- the search queries handlers send that do not contain the user's words: message-catalog entries named `query`,
  `*_query` or under `queries.` (both languages), the diagnostic signatures' queries, a spec card's search;
- the router's exemplars.

`set_key` names the set without computing it: a digest of the index's content and of the files that define the set,
so an unchanged index and unchanged code find their stored table at start without splitting a section.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterable
from pathlib import Path

from service.assistant.compose import faq_units
from service.assistant.handlers import base
from service.assistant.messages import DIRECTORY as MESSAGES_DIR
from service.assistant.messages import LANGUAGES, catalog
from service.catalog import Catalog
from service.understanding.registry import Registry

# The modules by name: the handlers package exports handler functions under the same names.
diagnostics = importlib.import_module("service.assistant.handlers.diagnostics")
spec = importlib.import_module("service.assistant.handlers.spec")

HEADING_FALLBACK_CHARS = 80  # compose/faq_answer.py scores a section without heading or title by its first 80 characters

# The files whose content decides which texts are fixed (besides the index itself and the exemplars).
DEFINING_FILES = (
    Path(__file__),
    Path(faq_units.__file__),
    diagnostics.SIGNATURES_FILE,
    Path(spec.__file__),
    *(MESSAGES_DIR / f"{lang}.yaml" for lang in LANGUAGES),
)


def section_texts(text: str, heading: str, title: str) -> list[str]:
    """What the FAQ composer embeds of one retrieved section."""
    shown = heading or title or text[:HEADING_FALLBACK_CHARS]
    return [text, shown, *(unit.text for unit in faq_units.units(text))]


def query_texts(catalog_: Catalog) -> list[str]:
    """The search queries handlers send that hold none of the user's words, as the search embeds them."""
    queries: list[str] = []
    for lang in LANGUAGES:
        for key, value in catalog(lang).items():
            leaf = key.rsplit(".", 1)[-1]
            if key.startswith("queries.") or leaf == "query" or leaf.endswith("_query"):
                queries.append(value)
    for signature in diagnostics.signatures():
        queries.extend(signature.query.values())
    queries.extend(spec.card_query(gpu.name) for gpu in catalog_.gpus.values())
    return [q[: base.MAX_QUERY_CHARS] for q in queries]


def fixed_texts(sections: Iterable[tuple[str, str, str]], registry: Registry, catalog_: Catalog) -> list[str]:
    """Every fixed text (see the module docstring), for sections given as (text, heading, title)."""
    texts = [t for section in sections for t in section_texts(*section)]
    texts += query_texts(catalog_)
    texts += [exemplar.text for exemplar in registry.exemplars]
    return list(dict.fromkeys(texts))


def set_key(index_fingerprint: str, registry: Registry, catalog_: Catalog) -> str:
    """A digest naming the fixed-text set of this index content, these exemplars, this catalog's GPUs and this code."""
    digest = hashlib.sha256(f"{index_fingerprint}|{registry.digest}|{sorted(g.name for g in catalog_.gpus.values())}".encode())
    for path in DEFINING_FILES:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def prepare(index, catalog_: Catalog, registry: Registry | None = None, *, background: bool = False) -> int:
    """Make the index serve every fixed text's vector from its stored table; returns how many were embedded for it
    (0 when the table for this content and code was already stored). background: a missing table is built on a thread
    (retrieval/fixed_vectors.py), for a server that should be ready meanwhile."""
    from service.understanding.registry import load_registry

    registry = registry or load_registry()
    return index.use_fixed_texts(lambda fingerprint: set_key(fingerprint, registry, catalog_),
                                 lambda: fixed_texts(index.sections(), registry, catalog_), background=background)
