"""GET /v1/admin/analytics: admin key only, typed response in the OpenAPI document, 422 naming `days`."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime

API_KEY, ADMIN_KEY = "api-analytics-tests-1", "adm-analytics-tests-1"


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    settings = Settings(data_dir=tmp_path_factory.mktemp("admin-analytics"), environment="test", api_keys=[API_KEY], admin_keys=[ADMIN_KEY])
    return TestClient(create_app(runtime=Runtime(settings)), raise_server_exceptions=False)  # no lifespan: no index needed


def test_no_key_and_an_api_key_are_refused(client: TestClient) -> None:
    assert client.get("/v1/admin/analytics").status_code == 401
    refused = client.get("/v1/admin/analytics", headers={"X-API-Key": API_KEY, "Accept-Language": "zh"})
    assert refused.status_code == 401 and "管理员密钥" in refused.text


def test_an_admin_key_gets_the_report(client: TestClient) -> None:
    response = client.get("/v1/admin/analytics?days=7", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    assert response.status_code == 200
    body = response.json()
    assert body["days"] == 7 and body["total"] == 0 and len(body["per_day"]) in (7, 8) and body["coverage_gaps"] == []
    assert [o["key"] for o in body["outcomes"]] == ["answered", "clarified", "refused_out_of_scope", "abstained", "over_budget", "error"]


@pytest.mark.parametrize("days", ["0", "367", "abc"])
def test_a_bad_window_is_a_422_naming_days_in_the_users_language(client: TestClient, days: str) -> None:
    response = client.get(f"/v1/admin/analytics?days={days}", headers={"X-API-Key": ADMIN_KEY, "Accept-Language": "zh"})
    assert response.status_code == 422
    assert [d["field"] for d in response.json()["detail"]] == ["days"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in response.json()["message"])


def test_the_response_model_is_in_the_openapi_document(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/admin/analytics"]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/AnalyticsReport")
    fields = spec["components"]["schemas"]["AnalyticsReport"]["properties"]
    assert {"per_day", "channels", "languages", "intents", "outcomes", "latency_ms", "thumbs_down", "coverage_gaps"} <= set(fields)


def test_the_admin_page_loads_without_a_key_under_the_security_headers(client: TestClient) -> None:
    page = client.get("/admin")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert page.headers["x-frame-options"] == "DENY" and "<script>" not in page.text  # no inline script
    assert client.get("/admin/admin.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/admin/secrets.txt").status_code == 404
