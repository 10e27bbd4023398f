"""Section questions are indexed beside the chunks and lead to their section; hits cite the section's own source."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from service.config import Settings
from service.retrieval import ingest, open_index
from service.retrieval.store import ChromaStore
from tests.retrieval.conftest import small_catalog

# Long enough to be cut into two chunks, so a question must lead to both pieces.
PIPELINE = " ".join(f"Sentence {n} says that DataLoader workers decode and augment samples on the CPU." for n in range(1, 60))


def write_sectioned_doc(root: Path, question: str = "my accelerators idle half the time, where do I begin") -> Path:
    path = root / "docs" / "en" / "idle-gpus.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = textwrap.dedent(
        f"""\
        ---
        id: idle-gpus
        title: Idle GPUs
        language: en
        topics: [utilization]
        sources:
          - title: First source
            url: https://example.com/first
          - title: Pipeline source
            url: https://example.com/pipeline
        sections:
          - heading: "Input pipeline"
            source: 2
            questions:
              - "{question}"
              - "why are zyzzyva accelerators starving"
              - "what makes training wait on data"
        ---

        # Idle GPUs

        An introduction without a section entry.

        ## Input pipeline

        {PIPELINE}

        ## Kernel size

        Small kernels leave most streaming multiprocessors without work.
        """
    )
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def sectioned(small_settings: Settings, small_knowledge: Path) -> Settings:
    write_sectioned_doc(small_knowledge)
    return small_settings


def test_questions_are_indexed_beside_the_chunks(sectioned: Settings) -> None:
    report = ingest(sectioned, small_catalog())
    card_questions = report.questions - 3
    assert card_questions > 0, "spec cards declare questions too"
    stored = ChromaStore(sectioned).active().get(include=["metadatas"])  # type: ignore[union-attr]
    questions = [m for m in stored["metadatas"] if m["kind"] == "question"]
    assert len(questions) == report.questions
    assert report.chunks == len(stored["ids"]) - report.questions


def test_a_question_hit_returns_its_sections_chunks_once(sectioned: Settings) -> None:
    ingest(sectioned, small_catalog())
    index = open_index(sectioned, small_catalog())
    for mode in ("dense", "bm25", "hybrid"):
        hits = index.search("why are zyzzyva accelerators starving", k=5, mode=mode)  # type: ignore[arg-type]
        ids = [hit.id for hit in hits]
        assert len(ids) == len(set(ids)), f"{mode}: each chunk once"
        assert all("?q" not in i for i in ids), f"{mode}: results are chunks, never question records"
        assert ids[0].startswith("idle-gpus.en#input-pipeline"), (mode, ids)
    lexical = [h.id for h in index.search("zyzzyva", k=5, mode="bm25")]
    # "zyzzyva" occurs only in a question: both pieces of the section come back, nothing else.
    pieces = [i for i in index._snapshot.ids if i.startswith("idle-gpus.en#input-pipeline")]
    assert len(pieces) >= 2 and sorted(lexical) == sorted(pieces)


def test_hits_cite_the_sections_own_source(sectioned: Settings) -> None:
    ingest(sectioned, small_catalog())
    index = open_index(sectioned, small_catalog())
    piece = index.get("idle-gpus.en#input-pipeline~2")
    assert piece is not None and (piece.source, piece.url) == ("Pipeline source", "https://example.com/pipeline")
    undeclared = index.get("idle-gpus.en#kernel-size")
    assert undeclared is not None and undeclared.source == "First source", "no entry: the document's first source"
    intro = index.get("idle-gpus.en#intro")
    assert intro is not None and intro.url == "https://example.com/first"
    assert len(piece.sources) == 2, "all the document's sources are still listed"


def test_editing_one_question_embeds_only_that_question(sectioned: Settings, small_knowledge: Path) -> None:
    first = ingest(sectioned, small_catalog())
    write_sectioned_doc(small_knowledge, question="my accelerators idle half the time, what should I check first")
    second = ingest(sectioned, small_catalog())
    assert not second.skipped and second.embedded == 1
    assert second.unchanged == first.chunks and second.questions == first.questions
