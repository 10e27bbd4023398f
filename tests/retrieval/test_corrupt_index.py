"""A damaged chroma.sqlite3 is a permanent fault naming its repair, and `advisor ingest --rebuild` repairs it.

The store is built and damaged in subprocesses (the CLI, as a user would run it), so no Chroma
handle cached in this test process hides the damage.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from service.catalog import default_catalog
from service.config import Settings
from service.errors import IndexCorruptError, RetrievalError
from service.retrieval import open_index
from service.retrieval.store import backend_failure, is_corruption
from tests.retrieval.conftest import write_small_knowledge
from tests.retrieval.test_cli import advisor


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    knowledge = write_small_knowledge(tmp_path / "knowledge")
    return {
        **os.environ,
        "ADVISOR_DATA_DIR": str(tmp_path / "data"),
        "ADVISOR_KNOWLEDGE_DIR": str(knowledge),
        "LC_ALL": "C.UTF-8",
        "COLUMNS": "400",
    }


def damage(env: dict[str, str], how: str) -> Path:
    database = Path(env["ADVISOR_DATA_DIR"]) / "index" / "chroma.sqlite3"
    data = database.read_bytes()
    if how == "garbage":
        database.write_bytes(b"this is not an sqlite database " * 64)
    else:  # a torn write: the file ends a third of the way through
        database.write_bytes(data[: len(data) // 3])
    return database


@pytest.mark.slow
@pytest.mark.parametrize("how", ["garbage", "truncated"])
def test_a_corrupt_store_is_reported_with_the_repair_command_and_rebuild_repairs_it(env: dict[str, str], how: str) -> None:
    assert advisor("ingest", env=env).returncode == 0
    database = damage(env, how)

    search = advisor("search", "optimizer state", "--json", env=env)
    assert search.returncode == 1, search.stdout
    assert "corrupt" in search.stderr and "advisor ingest --rebuild" in search.stderr, search.stderr
    plain = advisor("ingest", env=env)
    assert plain.returncode == 1 and "advisor ingest --rebuild" in plain.stderr, "ingest without --rebuild never deletes"

    lock = database.parent / "ingest.lock"
    repaired = advisor("ingest", "--rebuild", env=env)
    assert repaired.returncode == 0, repaired.stderr
    assert "was corrupt" in repaired.stdout and "Indexed" in repaired.stdout
    assert lock.exists(), "only Chroma's own files are removed"
    assert not list(database.parent.glob(".corrupt-*")), "the quarantine directory is gone"

    search = advisor("search", "Young's formula interval", "--json", env=env)
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["results"][0]["doc_id"] == "checkpoints"


@pytest.mark.slow
def test_opening_a_corrupt_index_raises_index_corrupt_error(env: dict[str, str]) -> None:
    assert advisor("ingest", env=env).returncode == 0
    damage(env, "garbage")
    settings = Settings(data_dir=Path(env["ADVISOR_DATA_DIR"]), knowledge_dir=Path(env["ADVISOR_KNOWLEDGE_DIR"]))
    with pytest.raises(IndexCorruptError) as caught:
        open_index(settings, default_catalog(settings.knowledge_dir))
    assert caught.value.permanent and caught.value.repair == "advisor ingest --rebuild"
    assert str(settings.index_dir) in str(caught.value)
    assert isinstance(caught.value, RetrievalError), "channels that map RetrievalError keep working"


def test_only_damage_counts_as_corruption() -> None:
    assert is_corruption(RuntimeError("error returned from database: (code: 11) database disk image is malformed"))
    assert is_corruption(RuntimeError("error returned from database: (code: 26) file is not a database"))
    assert not is_corruption(RuntimeError("Connection refused"))
    damaged = RuntimeError("database disk image is malformed")
    assert isinstance(backend_failure("/data/index", "searching", damaged), IndexCorruptError)
    # A server's damage cannot be repaired from here: it stays an ordinary retrieval error.
    remote = backend_failure("http://chroma:8000", "searching", damaged)
    assert type(remote) is RetrievalError
    assert type(backend_failure("/data/index", "searching", RuntimeError("disk full"))) is RetrievalError
