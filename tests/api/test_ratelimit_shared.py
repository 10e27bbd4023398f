"""Rate limits shared across workers (ADVISOR_RATE_LIMIT_STORAGE_URL): every worker counts in one redis, so a limit is a
limit for the deployment; a storage that cannot be reached is failed open (answered, logged, counted), never a 500.

redis is a real server: CI starts one (scripts/test_servers.sh) and sets ADVISOR_TEST_REDIS_URL; without it those tests
are skipped. Each test counts a client address of its own (X-Forwarded-For behind one trusted proxy hop), so tests never
share a budget, even across runs within the same minute or beside another run on the same redis.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.multiprocess import MultiProcessCollector
from pydantic import ValidationError

from service.api.app import create_app
from service.config import Settings
from service.observability.metrics import REGISTRY
from service.runtime import Runtime
from tests.served import wait_until_ready

REDIS_URL = os.environ.get("ADVISOR_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(not REDIS_URL, reason="ADVISOR_TEST_REDIS_URL is not set (CI starts redis: scripts/test_servers.sh)")
CATALOG = "/v1/hardware/gpus"  # a cheap /v1 route: no index, no body
ADVISOR = str(Path(sys.executable).parent / "advisor")
PASSWORD = "s3cret-redis-pw"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _closed_port_url() -> str:
    """A redis URL (with a password, to prove it is never shown) on a loopback port nothing listens on."""
    return f"redis://:{PASSWORD}@127.0.0.1:{_free_port()}/0"


def _own_address() -> dict[str, str]:
    return {"X-Forwarded-For": f"2001:db8::{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}"}


def _app(tmp_path: Path, storage_url: str | None, **settings) -> tuple[TestClient, Runtime]:
    base = {"data_dir": tmp_path, "environment": "test", "rate_limit_enabled": True, "trusted_proxy_hops": 1, "rate_limit_storage_url": storage_url}
    runtime = Runtime(Settings(**{**base, **settings}))
    # No `with`: the lifespan (which would start building the index) never runs; the catalogs answer without it.
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False), runtime


def _storage_failures() -> float:
    return REGISTRY.get_sample_value("advisor_rate_limit_storage_failures_total") or 0.0


# -- the setting -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["memcached://127.0.0.1:11211", "http://127.0.0.1:6379", "127.0.0.1:6379", "async+redis://h:1", f"valkey://:{PASSWORD}@127.0.0.1:6379"]
)
def test_a_storage_the_limiter_cannot_use_is_refused_at_start_naming_the_field_only(url) -> None:
    # memcached has no moving window; http is no storage; async storages do not fit the sync limiter; valkey's client is absent.
    with pytest.raises(ValidationError) as error:
        Settings(rate_limit_storage_url=url)
    assert "ADVISOR_RATE_LIMIT_STORAGE_URL" in str(error.value)
    assert PASSWORD not in str(error.value) and url not in str(error.value)  # the value is never echoed


def test_a_redis_url_is_a_secret_and_empty_means_in_memory() -> None:
    settings = Settings(rate_limit_storage_url=f"redis://:{PASSWORD}@127.0.0.1:6379/0")
    assert PASSWORD not in repr(settings) and PASSWORD not in str(settings.model_dump())
    assert settings.rate_limit_storage_url.get_secret_value() == f"redis://:{PASSWORD}@127.0.0.1:6379/0"
    assert Settings(rate_limit_storage_url="").rate_limit_storage_url is None
    assert Settings().rate_limit_storage_url is None


# -- fail open ---------------------------------------------------------------------------------------------------------


def test_an_unreachable_storage_lets_requests_through_logs_once_and_counts_each(tmp_path, caplog) -> None:
    client, _ = _app(tmp_path, _closed_port_url(), rate_limit_per_ip="1/minute")
    before = _storage_failures()
    address = _own_address()
    with caplog.at_level(logging.WARNING, logger="advisor.ratelimit"):
        statuses = [client.get(CATALOG, headers=address).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]  # over the 1/minute limit: nothing could count them
    assert _storage_failures() - before == 3
    warnings = [r.getMessage() for r in caplog.records if r.name == "advisor.ratelimit"]
    assert len(warnings) == 1, warnings  # once per outage, not once per request
    assert "rate-limit storage (redis) cannot be reached" in warnings[0] and "ConnectionError" in warnings[0]
    assert PASSWORD not in caplog.text and "127.0.0.1:" not in warnings[0]


def test_readyz_names_an_unreachable_storage_but_stays_ready_degraded(data_dir_with_index) -> None:
    client, runtime = _app(data_dir_with_index, _closed_port_url())
    runtime.open_index()
    runtime.assistant  # creates the conversation store
    try:
        response = client.get("/readyz")
    finally:
        runtime.close()
    body = response.json()
    # 200: the service answers (unlimited) meanwhile, so a load balancer must not take every worker out of rotation.
    assert response.status_code == 200 and body["status"] == "degraded", body
    assert body["checks"] == {"catalog": True, "index": True, "data_dir": True, "conversation_store": True, "rate_limit_storage": False}
    (problem,) = body["problems"]
    assert problem["part"] == "rate_limit_storage" and problem["permanent"] is False
    assert "(redis) cannot be reached" in problem["message"] and "ADVISOR_RATE_LIMIT_STORAGE_URL" in problem["repair"]
    assert PASSWORD not in response.text


def test_readyz_leaves_the_storage_out_when_rate_limits_are_off(tmp_path) -> None:
    client, _ = _app(tmp_path, _closed_port_url(), rate_limit_enabled=False)
    assert "rate_limit_storage" not in client.get("/readyz").json()["checks"]


# -- one budget across workers (real redis) ----------------------------------------------------------------------------


def test_two_in_memory_workers_each_count_alone(tmp_path) -> None:
    """The control for the test below: without a shared storage, two apps admit the limit twice over."""
    first, _ = _app(tmp_path / "a", None, rate_limit_per_ip="5/minute")
    second, _ = _app(tmp_path / "b", None, rate_limit_per_ip="5/minute")
    address = _own_address()
    assert [c.get(CATALOG, headers=address).status_code for c in [first, second] * 3] == [200] * 6


@needs_redis
def test_two_workers_share_one_budget_and_the_sixth_request_is_429(tmp_path) -> None:
    # Two apps, each with its own runtime, limiter and redis client, stand in for two worker processes.
    first, _ = _app(tmp_path / "a", REDIS_URL, rate_limit_per_ip="5/minute")
    second, _ = _app(tmp_path / "b", REDIS_URL, rate_limit_per_ip="5/minute")
    address = _own_address()
    before = _storage_failures()
    statuses = [c.get(CATALOG, headers=address).status_code for c in [first, second, first, second, first]]
    assert statuses == [200] * 5
    refused = second.get(CATALOG, headers={**address, "Accept-Language": "zh"})
    assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
    assert "每分钟最多 5 次" in refused.json()["message"]
    assert first.get(CATALOG, headers=address).status_code == 429
    assert first.get(CATALOG, headers=_own_address()).status_code == 200  # another address has its own budget
    assert _storage_failures() == before  # nothing was failed open
    assert first.get("/readyz").json()["checks"]["rate_limit_storage"] is True


def _answered_per_worker(metrics_dir: Path) -> dict[str, float]:
    """200s on the catalog route each worker process counted, read from its own file (counter_<pid>.db)."""
    counts = {}
    for path in metrics_dir.glob("counter_*.db"):
        counts[path.stem.split("_")[-1]] = sum(
            sample.value
            for family in MultiProcessCollector.merge([str(path)])
            if family.name == "advisor_http_requests"
            for sample in family.samples
            if sample.name == "advisor_http_requests_total" and sample.labels.get("route") == CATALOG and sample.labels.get("status") == "200"
        )
    return counts


@needs_redis
@pytest.mark.slow
def test_advisor_serve_with_two_workers_admits_a_limit_once(tmp_path, indexed_data_dir, knowledge_copy) -> None:
    data_dir, tmp = tmp_path / "data", tmp_path / "tmp"
    shutil.copytree(indexed_data_dir, data_dir)
    tmp.mkdir()
    port, log_path, limit = _free_port(), tmp_path / "server.log", 40
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADVISOR_", "PROMETHEUS_MULTIPROC"))}
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "ANONYMIZED_TELEMETRY": "False",
            "ORT_DISABLE_TELEMETRY": "1",
            "TMPDIR": str(tmp),
            "ADVISOR_DATA_DIR": str(data_dir),
            "ADVISOR_KNOWLEDGE_DIR": str(knowledge_copy),
            "ADVISOR_ENVIRONMENT": "test",
            "ADVISOR_RATE_LIMIT_ENABLED": "true",
            "ADVISOR_RATE_LIMIT_PER_IP": f"{limit}/minute",
            "ADVISOR_TRUSTED_PROXY_HOPS": "1",
            "ADVISOR_RATE_LIMIT_STORAGE_URL": REDIS_URL,
        }
    )
    with log_path.open("w") as log:
        server = subprocess.Popen([ADVISOR, "serve", "--workers", "2", "--port", str(port)], env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(server, base, log_path)
        (metrics_dir,) = tmp.glob("advisor-metrics-*")
        address = _own_address()
        # Fresh connections, so either worker may take each; in memory each would admit `limit`, 2 * limit in all.
        statuses = []
        while not statuses or statuses[-1] != 429:
            assert len(statuses) <= 2 * limit, "more than the limit was admitted"
            statuses.append(httpx.get(f"{base}{CATALOG}", headers={**address, "Connection": "close"}, timeout=30).status_code)
        assert statuses == [200] * limit + [429]
        answered = _answered_per_worker(metrics_dir)
        assert len([n for n in answered.values() if n]) == 2, f"one worker answered every request, so nothing was shared: {answered}"
        again = httpx.get(f"{base}{CATALOG}", headers={**address, "Connection": "close"}, timeout=30)
        assert again.status_code == 429 and int(again.headers["retry-after"]) >= 1
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)


@needs_redis
def test_widget_visitors_are_counted_across_workers_too(tmp_path) -> None:
    # A fresh publishable key per run: its digest names the counts, so earlier runs against the same redis do not leak in.
    key, origin = f"pk_shared_{uuid.uuid4().hex[:8]}", "https://docs.example.com"
    widget = {"widget_keys": [key], "widget_origins": [origin], "widget_rate_limit_visitor": "3/minute"}
    first, _ = _app(tmp_path / "a", REDIS_URL, **widget)
    second, _ = _app(tmp_path / "b", REDIS_URL, **widget)
    headers = {"X-Widget-Key": key, "Origin": origin, **_own_address()}
    feedback = {"message_id": "no-such-message", "rating": "sideways"}  # a 422 from the route: the limits let it through
    statuses = [c.post("/v1/feedback", json=feedback, headers=headers).status_code for c in [first, second, first, second]]
    assert statuses == [422, 422, 422, 429], "the fourth question from one visitor is over 3/minute, whichever worker gets it"
