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


@pytest.fixture(scope="module")
def advisor(module_data_dir: Path):
    """The front door over one module's data directory, with no LLM and no API keys."""
    from service.config import Settings
    from service.runtime import Runtime

    rt = Runtime(Settings(data_dir=module_data_dir, environment="test", api_keys=[], llm_provider="none"))
    rt.open_index()
    yield rt.advisor
    rt.close()
