"""Find the catalog entries a question names ("H100 SXM", "p5.48xlarge", "昇腾910B").

Embeddings blur close names (H100 SXM vs H100 PCIe) and BM25 weighs each word
on its own; matching whole catalog names and aliases settles which spec card
the question is about. Names are compared in the catalog's normalized form
(case, spaces and dashes folded), over runs of consecutive words, longest
first, so "A100 80G" names the 80 GB card rather than "A100" plus "80G", and
"gpt4" never names a T4.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from service.catalog import normalize

_WORDS = re.compile(r"[a-z0-9]+(?:[._+/\-][a-z0-9]+)*|[\u3400-\u9fff\uf900-\ufaff]+")
MAX_WORDS = 4


def name_index(entries: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """normalized name -> doc id, from (doc id, names) pairs."""
    return {name: doc_id for doc_id, names in entries for name in names}


def named_documents(question: str, names: Mapping[str, str]) -> set[str]:
    """Doc ids of the catalog entries the question names."""
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
