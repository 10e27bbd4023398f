"""Ingest: content-hash reuse, no-change skip, removals, and a serving index that bad files cannot touch."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import Settings
from service.errors import KnowledgeFileError
from service.retrieval import ingest, open_index
from service.retrieval.store import ChromaStore
from tests.retrieval.conftest import small_catalog, write_doc


def stored_ids(settings: Settings) -> set[str]:
    active = ChromaStore(settings).active()
    assert active is not None
    return set(active.get(include=[])["ids"])


def test_first_ingest_embeds_everything_and_cards_sit_beside_documents(small_settings: Settings) -> None:
    report = ingest(small_settings, small_catalog())
    assert report.full_rebuild and not report.skipped
    assert report.documents == 4 + 4, "four documents and four spec cards"
    assert report.added == report.chunks > 8
    assert report.embedded == report.chunks + report.questions, "chunks and the spec cards' section questions"
    ids = stored_ids(small_settings)
    assert {"checkpoints.en#saving-state", "checkpoints.zh#保存状态", "memory-usage.zh#激活值"} <= ids
    assert any(i.startswith("gpu-testgpu-x1.zh#") for i in ids)
    assert any(i.startswith("instance-testcloud-x1.8xl.en#") for i in ids)


def test_second_ingest_with_nothing_changed_is_skipped(small_settings: Settings) -> None:
    first = ingest(small_settings, small_catalog())
    second = ingest(small_settings, small_catalog())
    assert second.skipped and second.embedded == 0
    assert second.unchanged == first.chunks
    assert second.collection == first.collection, "no new collection was built"
    assert second.seconds < 3


def test_editing_one_document_re_embeds_only_its_changed_chunks(small_settings: Settings, small_knowledge: Path) -> None:
    first = ingest(small_settings, small_catalog())
    path = small_knowledge / "docs" / "en" / "checkpoints.md"
    path.write_text(path.read_text().replace("Young's formula", "Young's square-root formula"), encoding="utf-8")
    report = ingest(small_settings, small_catalog())
    assert not report.skipped and not report.full_rebuild
    assert (report.embedded, report.updated, report.added, report.removed) == (1, 1, 0, 0)
    assert report.unchanged == first.chunks - 1
    assert report.collection != first.collection
    assert first.collection not in [c.name for c in ChromaStore(small_settings).client.list_collections()]
    index = open_index(small_settings, small_catalog())
    assert "square-root" in index.get("checkpoints.en#choosing-the-interval").text


def test_metadata_only_change_reuses_the_vector(small_settings: Settings, small_knowledge: Path) -> None:
    ingest(small_settings, small_catalog())
    path = small_knowledge / "docs" / "zh" / "memory-usage.md"
    path.write_text(path.read_text().replace("https://example.com/memory-usage", "https://example.org/new"), encoding="utf-8")
    report = ingest(small_settings, small_catalog())
    assert report.embedded == 0 and report.updated == 2
    hit = open_index(small_settings, small_catalog()).get("memory-usage.zh#激活值")
    assert hit is not None and hit.url == "https://example.org/new"


def test_deleting_a_document_removes_its_chunks(small_settings: Settings, small_knowledge: Path) -> None:
    ingest(small_settings, small_catalog())
    (small_knowledge / "docs" / "zh" / "checkpoints.md").unlink()
    report = ingest(small_settings, small_catalog())
    assert report.removed == 2 and report.embedded == 0
    assert not any(i.startswith("checkpoints.zh#") for i in stored_ids(small_settings))
    assert "checkpoints.en#saving-state" in stored_ids(small_settings)


def test_adding_a_document_embeds_only_it(small_settings: Settings, small_knowledge: Path) -> None:
    ingest(small_settings, small_catalog())
    write_doc(small_knowledge, "en", "nccl", "NCCL tests", {"Bus bandwidth": "busbw is the figure to compare."}, topics="[networking]")
    report = ingest(small_settings, small_catalog())
    assert (report.added, report.embedded) == (1, 1)


def test_rebuild_re_embeds_everything(small_settings: Settings) -> None:
    first = ingest(small_settings, small_catalog())
    report = ingest(small_settings, small_catalog(), rebuild=True)
    assert report.full_rebuild and report.embedded == first.chunks + first.questions and report.unchanged == first.chunks


def test_malformed_file_fails_ingest_and_leaves_the_serving_index(small_settings: Settings, small_knowledge: Path) -> None:
    first = ingest(small_settings, small_catalog())
    index = open_index(small_settings, small_catalog())
    bad = small_knowledge / "docs" / "en" / "broken.md"
    bad.write_text(
        "---\nid: broken\ntitle: Broken\nlanguage: en\ntopics: [cooking]\n"
        "sources:\n  - title: S\n    url: https://example.com\n---\n\n# Broken\n\nText.\n"
    )
    with pytest.raises(KnowledgeFileError) as caught:
        ingest(small_settings, small_catalog())
    assert caught.value.path == str(bad) and caught.value.line == 5
    store = ChromaStore(small_settings)
    assert store.active_name() == first.collection
    assert store.orphans() == [], "nothing was built"
    assert index.search("optimizer state", k=1)[0].doc_id in ("memory-usage", "checkpoints")


def test_a_document_cannot_take_a_spec_card_id(small_settings: Settings, small_knowledge: Path) -> None:
    clash = write_doc(small_knowledge, "en", "gpu-testgpu-x1", "My own X1 page", {"Notes": "Hand-written."}, topics="[hardware]")
    with pytest.raises(KnowledgeFileError, match="taken by a spec card") as caught:
        ingest(small_settings, small_catalog())
    assert caught.value.path == str(clash) and caught.value.line == 2
