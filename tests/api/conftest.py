"""A Runtime and client over the real catalogs, without opening the knowledge index."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime


@pytest.fixture(scope="module")
def runtime(tmp_path_factory) -> Runtime:
    return Runtime(Settings(data_dir=tmp_path_factory.mktemp("advisor-data"), environment="test"))


@pytest.fixture(scope="module")
def client(runtime) -> TestClient:
    # No `with`: the lifespan (which would start building the index) never runs.
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False)
