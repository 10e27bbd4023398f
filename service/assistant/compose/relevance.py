"""Only passages about the question: a retrieved passage enters a knowledge answer when it names at least one of the
question's technical entities (a tool, a flag, an environment variable, a card, an error code, a config key).

A question that names none (a plain "what is tensor parallelism") is not gated. When no passage names any of them, the
best passage alone answers, in plain prose, rather than a stitch of neighbours that share nothing with the question.
"""

from __future__ import annotations

from service.understanding.case.entities import TOKEN, entities  # noqa: F401 — the question's entities, read by understanding too


def words_of(passage: str) -> frozenset[str]:
    """The passage's identifier-like words, lower case (the same tokens `entities` reads)."""
    return frozenset(m.group(0).strip(".-/+").lower() for m in TOKEN.finditer(passage))


def names(entity: str, passage: str) -> bool:
    return entity in words_of(passage)


SHARED_TERMS = 3  # search terms a passage shares with the question to stay in without naming one of its entities


def about_the_question(question: str, hits: list) -> list:
    """The hits about the question, in their order: the best one, those that name one of the question's entities, and those
    that share several of its search terms. A hit that shares neither (a neighbour retrieval dragged in) is left out."""
    wanted = entities(question)
    if not wanted or not hits:
        return hits
    from service.retrieval.text import term_set

    terms = term_set(question)
    kept = [h for i, h in enumerate(hits) if i == 0 or wanted & words_of(f"{h.title} {h.heading} {h.text}")
            or len(terms & term_set(f"{h.heading} {h.text}")) >= SHARED_TERMS]
    return kept


def without_spec_cards(hits: list, spec_words: list[str]) -> list:
    """A spec card (generated from the catalog) answers a question about the card's figures; a question with no spec word
    ("how will NCCL behave on a node with 4 NICs", "we cannot reproduce the published throughput on our H100 PCIe") is
    answered by the written documents, even when the card's name makes its card rank first."""
    if spec_words:
        return hits
    written = [h for h in hits if getattr(h, "kind", "doc") != "card"]
    return written or hits


def only_cards(hits: list, top: int = 3) -> bool:
    """The best hits are all spec cards: no written document is near the question."""
    return bool(hits) and all(getattr(h, "kind", "doc") == "card" for h in hits[:top])
