"""Shared fixtures for the sizing-core tests: the real shipped catalog and a one-line way to run a tool."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.catalog import Catalog, default_catalog
from service.sizing import get_tool
from service.sizing.base import SizingResult

GIB = 2**30


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return default_catalog()


@pytest.fixture(scope="session")
def size(catalog: Catalog) -> Callable[..., SizingResult]:
    """size("training-time", model=..., gpus=...) runs the registered tool exactly as REST and the CLI do."""

    def run(tool: str, **payload) -> SizingResult:
        return get_tool(tool)(payload, catalog)

    return run
