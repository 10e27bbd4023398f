"""schemathesis over the real ASGI app (issue 11): every documented operation, bounded and deterministic
(20 examples per operation, derandomized), must never answer 5xx and must send what the spec documents
(status codes, content types, bodies matching their schemas, the 422/400 error body included)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("schemathesis") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", llm_provider="none"))
    runtime.open_index()  # ready before the lifespan starts: no background ingest
    yield create_app(runtime=runtime)
    runtime.close()


def _spec() -> dict:
    # The spec of an app whose lifespan never runs (no index needed to describe the API).
    with tempfile.TemporaryDirectory() as tmp:
        return create_app(runtime=Runtime(Settings(data_dir=Path(tmp), environment="test"))).openapi()


schema = schemathesis.openapi.from_dict(_spec())
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@schema.parametrize()
@settings(max_examples=20, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_to_its_documented_schema(app, case) -> None:
    # generous read timeout: a loaded CI machine is slow, and speed is measured in `make bench`, not here
    case.call_and_validate(app=app, checks=CHECKS, timeout=300)
