"""Fixtures for the assistant tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def module_data_dir(tmp_path_factory: pytest.TempPathFactory, indexed_data_dir: Path) -> Path:
    """A copy of the indexed data directory shared by one module's tests (they write conversations)."""
    target = tmp_path_factory.mktemp("assistant-data") / "data"
    shutil.copytree(indexed_data_dir, target)
    return target
