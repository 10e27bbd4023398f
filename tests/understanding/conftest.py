"""The understander the understanding tests read questions with: the default one over the shipped catalog."""

from __future__ import annotations

import pytest

from service.catalog import default_catalog
from service.understanding import default_understander


@pytest.fixture(scope="module")
def understander():
    return default_understander(default_catalog())
