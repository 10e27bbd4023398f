"""Session-wide fixtures: the real knowledge base indexed once, shared by every test that needs it.

Everything is real: Chroma on disk under a tmp dir, the packaged ONNX embedder,
jieba, SQLite. The environment variables below keep third-party libraries off
the network; the application itself reads its configuration only via Settings.
"""

from __future__ import annotations

import os
import shutil
from importlib.resources import files
from pathlib import Path

import pytest

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def knowledge_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged knowledge files, copied so nothing changes under the index mid-session."""
    target = tmp_path_factory.mktemp("knowledge") / "knowledge"
    shutil.copytree(str(files("knowledge")), target, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return target


@pytest.fixture(scope="session")
def indexed_data_dir(tmp_path_factory: pytest.TempPathFactory, knowledge_copy: Path) -> Path:
    """A data directory holding a complete index of the real knowledge base (built once per session)."""
    from service.catalog import default_catalog
    from service.config import Settings
    from service.retrieval import ingest

    from service.runtime import Runtime

    data_dir = tmp_path_factory.mktemp("indexed-data")
    settings = Settings(data_dir=data_dir, knowledge_dir=knowledge_copy, environment="test")
    ingest(settings, default_catalog(knowledge_copy))
    # Opening it through the runtime stores the fixed texts' vectors beside it (service/assistant/fixed_texts.py), so each
    # copy of this directory opens without embedding anything.
    runtime = Runtime(settings)
    runtime.open_index()
    runtime.close()
    return data_dir


@pytest.fixture
def data_dir_with_index(tmp_path: Path, indexed_data_dir: Path) -> Path:
    """A private copy of the indexed data directory, for tests that write (conversations, feedback, re-ingest)."""
    target = tmp_path / "data"
    shutil.copytree(indexed_data_dir, target)
    return target
