"""Widget access over HTTP: CORS for allowed origins only, publishable keys, per-visitor limits, bilingual refusals.

The app is the real one (TestClient, no lifespan: the index is never opened). A feedback body the
route rejects (422 naming `rating`) shows that a request got past the key checks, without running
the answer pipeline.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime

ALLOWED = "https://partner.example"
API_KEY = "sk-access-tests-secret"
WIDGET_KEY = "pk_access_tests"
FEEDBACK = {"message_id": "no-such-message", "rating": "sideways"}  # 422 from the route: the checks let it through


def make_client(tmp_path, **overrides) -> TestClient:
    values = {"data_dir": tmp_path, "environment": "test", "api_keys": [API_KEY], "widget_keys": [WIDGET_KEY], "widget_origins": [ALLOWED]}
    runtime = Runtime(Settings(**{**values, **overrides}))
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False)


@pytest.fixture
def client(tmp_path) -> TestClient:
    return make_client(tmp_path)


def widget_headers(origin: str | None = ALLOWED, key: str = WIDGET_KEY, **extra: str) -> dict[str, str]:
    headers = {"X-Widget-Key": key, **extra}
    if origin:
        headers["Origin"] = origin
    return headers


def test_preflight_from_an_allowed_origin_is_answered_and_reflects_only_that_origin(client) -> None:
    response = client.options("/v1/chat/stream", headers={"Origin": ALLOWED, "Access-Control-Request-Method": "POST",
                                                           "Access-Control-Request-Headers": "content-type,x-widget-key"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED
    assert "x-widget-key" in response.headers["access-control-allow-headers"].lower()
    assert "x-api-key" not in response.headers["access-control-allow-headers"].lower()  # secret keys stay out of pages


def test_preflight_from_another_origin_is_refused(client) -> None:
    response = client.options("/v1/chat/stream", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers


def test_empty_allowlist_means_same_origin_only(tmp_path) -> None:
    client = make_client(tmp_path, widget_origins=[])
    response = client.options("/v1/chat", headers={"Origin": ALLOWED, "Access-Control-Request-Method": "POST"})
    assert response.status_code == 400
    # The demo page on the app's own origin may still use the widget key.
    same = client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers(origin="http://testserver"))
    assert same.status_code == 422


def test_widget_key_from_an_allowed_origin_opens_feedback_and_chat_without_an_api_key(client) -> None:
    response = client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers())
    assert response.status_code == 422  # past both key checks: the route itself answered
    assert response.headers["access-control-allow-origin"] == ALLOWED
    bad_input = client.post("/v1/chat", json={"message": ""}, headers=widget_headers())
    assert bad_input.status_code == 422


def test_widget_key_opens_nothing_else(client) -> None:
    for path in ("/v1/hardware/gpus", "/v1/sizing", "/v1/knowledge/search?q=nccl"):
        assert client.get(path, headers=widget_headers()).status_code == 401, path
    assert client.get("/v1/hardware/gpus", headers={"X-API-Key": API_KEY}).status_code == 200


@pytest.mark.parametrize(("origin", "lang", "expected"), [
    (None, "en", "This origin may not use the widget key"),
    ("https://evil.example", "zh-CN", "该来源（Origin）不允许使用组件密钥"),
])  # fmt: skip
def test_widget_key_without_an_allowed_origin_is_refused_in_the_users_language(client, origin, lang, expected) -> None:
    response = client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers(origin=origin, **{"Accept-Language": lang}))
    assert response.status_code == 403
    assert expected in response.json()["message"]


def test_unknown_widget_key_is_refused(client) -> None:
    response = client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers(key="pk_guess", **{"Accept-Language": "zh"}))
    assert response.status_code == 401
    assert response.json()["message"] == "无效的组件密钥（X-Widget-Key）。"


def test_visitor_over_the_limit_gets_429_with_retry_after_readable_cross_origin(tmp_path) -> None:
    client = make_client(tmp_path, widget_rate_limit_visitor="2/minute")
    statuses = [client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers()).status_code for _ in range(2)]
    assert statuses == [422, 422]
    refused = client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers(**{"Accept-Language": "zh"}))
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["access-control-allow-origin"] == ALLOWED
    assert "retry-after" in refused.headers["access-control-expose-headers"].lower()
    assert refused.json()["message"].startswith("该访客请求过多")
    # API-key callers are not counted against widget visitors.
    assert client.post("/v1/feedback", json=FEEDBACK, headers={"X-API-Key": API_KEY}).status_code == 422


def test_the_whole_key_has_its_own_limit(tmp_path) -> None:
    client = make_client(tmp_path, widget_rate_limit_visitor="100/minute", widget_rate_limit_key="1/minute")
    assert client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers()).status_code == 422
    assert client.post("/v1/feedback", json=FEEDBACK, headers=widget_headers()).status_code == 429


@pytest.mark.parametrize(("field", "value"), [
    ("widget_origins", "https://partner.example/"),
    ("widget_origins", "partner.example"),
    ("widget_rate_limit_visitor", "many"),
])  # fmt: skip
def test_bad_widget_settings_stop_start_up_naming_the_field(field, value) -> None:
    with pytest.raises(ValidationError, match=field):
        Settings(**{field: value})
