"""SIGKILL in the middle of `advisor ingest`: the previous index keeps serving, the next ingest completes."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from service.catalog import default_catalog
from service.config import Settings
from service.retrieval import ingest, open_index
from service.retrieval.store import ChromaStore
from tests.retrieval.conftest import write_doc, write_small_knowledge
from tests.retrieval.test_cli import ADVISOR


def add_documents(knowledge: Path, count: int) -> None:
    """Enough chunks for several write batches."""
    for n in range(count):
        write_doc(
            knowledge, "en", f"topic-{n}", f"Operations note {n}",
            {f"Part {p}": f"Note {n} part {p}: the cluster keeps {n * 10 + p} spare nodes for burn-in." for p in range(4)},
            topics="[gpu-health]",
        )  # fmt: skip


@pytest.mark.slow
def test_killed_ingest_leaves_the_previous_index_serving(tmp_path: Path) -> None:
    knowledge = write_small_knowledge(tmp_path / "knowledge")
    add_documents(knowledge, 20)
    settings = Settings(data_dir=tmp_path / "data", knowledge_dir=knowledge)
    catalog = default_catalog(knowledge)
    first = ingest(settings, catalog)
    assert first.chunks > 64, "the rebuild below must need more than two batches"

    # Every document changes, so the next ingest has to embed and write every chunk again.
    for path in (knowledge / "docs").rglob("*.md"):
        path.write_text(path.read_text(encoding="utf-8").replace("spare nodes", "standby nodes"), encoding="utf-8")
    env = {
        **os.environ,
        "ADVISOR_DATA_DIR": str(settings.data_dir),
        "ADVISOR_KNOWLEDGE_DIR": str(knowledge),
        "ADVISOR_INGEST_BATCH_DELAY_S": "30",  # test-only knob: a long pause after each written batch
    }
    process = subprocess.Popen([ADVISOR, "ingest"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # printed once the first batch is in the new collection
        assert line.startswith("ingest: 32/"), line + process.stderr.read()
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL

    store = ChromaStore(settings)
    assert store.active_name() == first.collection, "the pointer never moved"
    [orphan] = store.orphans()
    assert 0 < store.client.get_collection(orphan).count() < first.chunks, "killed midway"

    index = open_index(settings, catalog)
    assert index.info["collection"] == first.collection
    hit = index.search("how many spare nodes for burn-in in note 7", k=1)[0]
    assert "spare nodes" in hit.text, "answers come from the previous index"

    second = ingest(settings, catalog)
    assert not second.skipped and second.embedded > 64
    assert store.orphans() == [], "the half-built collection was cleaned up"
    fresh = open_index(settings, catalog)
    assert "standby nodes" in fresh.search("how many standby nodes for burn-in in note 7", k=1)[0].text
