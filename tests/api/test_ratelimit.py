"""Rate limits: the reusable limiter (named rules in `limits` notation, counted per identifier), and the API's general
limits through the real app: 429 + Retry-After in the caller's language, per key, per address, Slack per workspace."""

from __future__ import annotations

import json
import logging
import time

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from slack_sdk.signature import SignatureVerifier

from service.api.app import create_app
from service.api.errors import ErrorBody
from service.api.middleware import forwarded_client
from service.api.ratelimit import RateLimiter, slack_team_id
from service.channels.slack.fake import FakeSlackApi
from service.config import Settings
from service.observability.metrics import REGISTRY
from service.runtime import Runtime
from tests.channels.slack.conftest import BOT_TOKEN, SIGNING_SECRET, slack_settings

CATALOG = "/v1/hardware/gpus"  # a cheap /v1 route: no index, no body


def test_each_identifier_has_its_own_budget() -> None:
    limiter = RateLimiter({"visitor": "2/minute"})
    assert limiter.hit(("visitor", ("key", "10.0.0.1"))) is None
    assert limiter.hit(("visitor", ("key", "10.0.0.1"))) is None
    refusal = limiter.hit(("visitor", ("key", "10.0.0.1")))
    assert refusal is not None and refusal.rule == "visitor" and 1 <= refusal.retry_after_s <= 60
    assert limiter.hit(("visitor", ("key", "10.0.0.2"))) is None  # another visitor is unaffected


def test_the_first_exhausted_rule_refuses_and_a_refusal_uses_up_nothing() -> None:
    limiter = RateLimiter({"visitor": "5/minute", "key": "3/minute"})
    for ip in ("a", "b", "c"):
        assert limiter.hit(("visitor", ("k", ip)), ("key", ("k",))) is None
    refusal = limiter.hit(("visitor", ("k", "d")), ("key", ("k",)))
    assert refusal is not None and refusal.rule == "key"
    # The refused request did not count against visitor "d": after a reset of the key budget it has all 5.
    limiter_visitor_only = [limiter.hit(("visitor", ("k", "d"))) for _ in range(5)]
    assert limiter_visitor_only == [None] * 5
    assert limiter.hit(("visitor", ("k", "d"))) is not None


def test_reset_clears_every_budget() -> None:
    limiter = RateLimiter({"r": "1/hour"})
    assert limiter.hit(("r", ("x",))) is None
    assert limiter.hit(("r", ("x",))) is not None
    limiter.reset()
    assert limiter.hit(("r", ("x",))) is None


def test_a_rule_that_is_not_limits_notation_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="'lots' is not a rate limit"):
        RateLimiter({"visitor": "lots"})


# -- the API's general limits (RateLimitMiddleware), through the real app --------------------------------------------

def _client(tmp_path, **settings) -> TestClient:
    base = {"data_dir": tmp_path, "environment": "test", "rate_limit_enabled": True}
    # No `with`: the lifespan (which would start building the index) never runs; the catalogs answer without it.
    return TestClient(create_app(runtime=Runtime(Settings(**{**base, **settings}))), raise_server_exceptions=False)


def _refusals(scope: str) -> float:
    return REGISTRY.get_sample_value("advisor_rate_limit_refusals_total", {"scope": scope}) or 0.0


def test_a_refusal_is_429_with_retry_after_and_the_error_body_in_chinese(tmp_path) -> None:
    client = _client(tmp_path, rate_limit_per_ip="2/minute")
    assert [client.get(CATALOG).status_code for _ in range(2)] == [200, 200]
    refused = client.get(CATALOG, headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    body = ErrorBody.model_validate(refused.json())
    assert body.error == "rate_limited" and refused.json()["retry_after_s"] == int(refused.headers["retry-after"])
    assert "请求过于频繁" in body.message and "每分钟最多 2 次" in body.message and f"{refused.headers['retry-after']} 秒" in body.message
    english = client.get(CATALOG)
    assert english.status_code == 429 and "Too many requests from this client address (at most 2 per minute)" in english.json()["message"]


def test_one_exhausted_key_does_not_refuse_another(tmp_path) -> None:
    client = _client(tmp_path, api_keys="key-alpha-0001,key-bravo-0002", rate_limit_per_key="3/minute", rate_limit_per_ip="100/minute")
    alpha, bravo = {"X-API-Key": "key-alpha-0001"}, {"Authorization": "Bearer key-bravo-0002"}
    assert [client.get(CATALOG, headers=alpha).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert "API key" in client.get(CATALOG, headers=alpha).json()["message"]
    assert [client.get(CATALOG, headers=bravo).status_code for _ in range(3)] == [200, 200, 200]
    # The same key by the other header (with a pasted trailing space) is the same budget.
    assert client.get(CATALOG, headers={"Authorization": "Bearer key-alpha-0001 "}).status_code == 429


def test_unknown_keys_count_against_their_address_not_a_key_budget_of_their_own(tmp_path) -> None:
    client = _client(tmp_path, api_keys="key-alpha-0001", rate_limit_per_key="100/minute", rate_limit_per_ip="3/minute")
    # A caller guessing keys gets 401s, then 429s: changing the guess does not buy a fresh budget.
    statuses = [client.get(CATALOG, headers={"X-API-Key": f"guess-{i}"}).status_code for i in range(5)]
    assert statuses == [401, 401, 401, 429, 429]


def test_keyed_traffic_is_bounded_per_address_too(tmp_path) -> None:
    client = _client(tmp_path, api_keys="key-alpha-0001,key-bravo-0002", rate_limit_per_key="100/minute", rate_limit_per_ip="4/minute")
    for key in ("key-alpha-0001", "key-bravo-0002"):
        assert [client.get(CATALOG, headers={"X-API-Key": key}).status_code for _ in range(2)] == [200, 200]
    refused = client.get(CATALOG, headers={"X-API-Key": "key-alpha-0001"})
    assert refused.status_code == 429 and "client address" in refused.json()["message"]


def test_each_client_address_has_its_own_budget_behind_a_trusted_proxy(tmp_path) -> None:
    client = _client(tmp_path, rate_limit_per_ip="2/minute", trusted_proxy_hops=1)
    first = {"X-Forwarded-For": "203.0.113.7"}
    assert [client.get(CATALOG, headers=first).status_code for _ in range(3)] == [200, 200, 429]
    assert client.get(CATALOG, headers={"X-Forwarded-For": "203.0.113.8"}).status_code == 200
    # Entries a client writes itself are on the left; the proxy appends the address it saw, which is what counts.
    assert client.get(CATALOG, headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}).status_code == 429


@pytest.mark.parametrize(("headers", "hops", "expected"), [
    ([(b"x-forwarded-for", b"203.0.113.7")], 1, ("203.0.113.7", None)),
    ([(b"x-forwarded-for", b"6.6.6.6, 203.0.113.7, 10.0.0.2")], 2, ("203.0.113.7", None)),  # two proxies: the outer one wrote .7
    ([(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-for", b"203.0.113.7")], 1, ("203.0.113.7", None)),  # repeated header
    ([(b"x-forwarded-for", b"203.0.113.7")], 3, ("203.0.113.7", None)),  # fewer entries than proxies: the first
    ([(b"x-forwarded-proto", b"https")], 1, (None, "https")),
    ([(b"x-forwarded-proto", b"gopher")], 1, (None, None)),
    ([], 1, (None, None)),
])
def test_the_client_address_is_the_entry_the_outermost_trusted_proxy_wrote(headers, hops, expected) -> None:
    assert forwarded_client(headers, hops) == expected


def test_x_forwarded_for_is_ignored_unless_proxies_are_trusted(tmp_path) -> None:
    client = _client(tmp_path, rate_limit_per_ip="2/minute")
    statuses = [client.get(CATALOG, headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code for i in range(3)]
    assert statuses == [200, 200, 429]


def test_probes_and_metrics_are_never_limited(tmp_path) -> None:
    client = _client(tmp_path, rate_limit_per_ip="1/minute")
    assert client.get(CATALOG).status_code == 200
    assert client.get(CATALOG).status_code == 429
    for _ in range(3):
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 503  # the index is not opened here: "starting", not refused
        assert client.get("/metrics").status_code == 200


def test_the_streaming_route_is_limited_before_it_starts(tmp_path) -> None:
    client = _client(tmp_path, rate_limit_per_ip="1/minute")
    assert client.post("/v1/chat/stream", json={}).status_code == 422  # counted, though refused for its body
    refused = client.post("/v1/chat/stream", json={"message": "hi"})
    assert refused.status_code == 429 and refused.headers["content-type"] == "application/json"


def test_a_refusal_moves_the_metric_for_its_scope(tmp_path) -> None:
    client = _client(tmp_path, api_keys="key-alpha-0001", rate_limit_per_key="1/minute", rate_limit_per_ip="100/minute")
    before_key, before_ip = _refusals("api_key"), _refusals("ip")
    client.get(CATALOG, headers={"X-API-Key": "key-alpha-0001"})
    client.get(CATALOG, headers={"X-API-Key": "key-alpha-0001"})
    assert _refusals("api_key") == before_key + 1
    assert _refusals("ip") == before_ip


def test_limits_are_off_by_default_only_in_the_test_environment(tmp_path) -> None:
    assert Settings(data_dir=tmp_path, environment="test").rate_limits_on is False
    assert Settings(data_dir=tmp_path, environment="development").rate_limits_on is True
    assert Settings(data_dir=tmp_path, environment="test", rate_limit_enabled=True).rate_limits_on is True
    client = _client(tmp_path, rate_limit_enabled=False, rate_limit_per_ip="1/minute")
    assert [client.get(CATALOG).status_code for _ in range(3)] == [200, 200, 200]


@pytest.mark.parametrize("field", ["rate_limit_per_key", "rate_limit_per_ip"])
def test_a_limit_that_is_not_limits_notation_stops_start_up_naming_the_field(tmp_path, field) -> None:
    with pytest.raises(ValidationError, match=field):
        Settings(data_dir=tmp_path, **{field: "lots"})


def test_the_openapi_document_has_the_429_on_api_routes_only(tmp_path) -> None:
    paths = _client(tmp_path).get("/openapi.json").json()["paths"]
    chat = paths["/v1/chat"]["post"]["responses"]["429"]
    assert chat["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
    assert "Retry-After" in chat["headers"]
    assert all("429" in op["responses"] for path, item in paths.items() if path.startswith("/v1/") for op in item.values())
    assert "429" not in paths["/healthz"]["get"]["responses"]


# -- Slack: per workspace, retries included ---------------------------------------------------------------------------

def _signed(client: TestClient, envelope: dict, *, retry: bool = False, secret: str = SIGNING_SECRET):
    body = json.dumps(envelope)
    timestamp = str(int(time.time()))
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": timestamp,
               "X-Slack-Signature": SignatureVerifier(secret).generate_signature(timestamp=timestamp, body=body)}
    if retry:
        headers.update({"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    return client.post("/slack/events", content=body.encode(), headers=headers)


def _ignored_event(team: str, n: int) -> dict:
    # An event the bot acknowledges and ignores: no answer, no Web API call beyond auth.test.
    return {"type": "event_callback", "team_id": team, "event_id": f"Ev{team}{n:04d}", "event_time": int(time.time()),
            "event": {"type": "reaction_added", "user": "U1", "reaction": "eyes", "item": {"type": "message", "channel": "C1", "ts": "1.1"}}}


def test_slack_is_limited_per_workspace_and_its_retries_count_like_any_delivery(tmp_path) -> None:
    with FakeSlackApi(token=BOT_TOKEN) as fake:
        settings = slack_settings(tmp_path, fake).model_copy(
            update={"rate_limit_enabled": True, "rate_limit_per_key": "2/minute", "rate_limit_per_ip": "100/minute"})
        client = TestClient(create_app(runtime=Runtime(settings)), raise_server_exceptions=False)
        assert [_signed(client, _ignored_event("T0ONE", n)).status_code for n in range(3)] == [200, 200, 429]
        assert "Slack workspace" in _signed(client, _ignored_event("T0ONE", 9)).json()["message"]
        # A signed request is not exempt for saying it is a retry: anyone holding a signed delivery could add the header.
        assert _signed(client, _ignored_event("T0ONE", 0), retry=True).status_code == 429
        assert [_signed(client, _ignored_event("T0TWO", n), retry=n > 0).status_code for n in range(3)] == [200, 200, 429]
        # Forged deliveries (bad signature) cannot spend a workspace's budget: they count against their address.
        assert _signed(client, _ignored_event("T0TWO", 5), secret="not-the-secret").status_code == 401
        assert _signed(client, _ignored_event("T0TWO", 6)).status_code == 429


def test_slack_requests_without_a_numeric_timestamp_are_401_and_count_against_their_address(tmp_path, caplog) -> None:
    # Unsigned traffic is refused as unauthorized and still spends its address's budget, however malformed its headers.
    with FakeSlackApi(token=BOT_TOKEN) as fake:
        settings = slack_settings(tmp_path, fake).model_copy(update={"rate_limit_enabled": True, "rate_limit_per_ip": "4/minute"})
        client = TestClient(create_app(runtime=Runtime(settings)), raise_server_exceptions=False)
        sent = [
            client.post("/slack/commands", content=b"text=hi"),
            client.post("/slack/events", content=b"{}", headers={"X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=00"}),
            client.get("/slack/events"),
            client.get("/slack/interactions", headers={"X-Slack-Request-Timestamp": ""}),
            client.post("/slack/events", content=b"{}"),
            client.get("/slack/commands", headers={"X-Slack-Request-Timestamp": "1.7e9"}),
        ]
    assert [r.status_code for r in sent] == [401, 401, 401, 401, 429, 429]
    assert {r.json()["error"] for r in sent} == {"unauthorized", "rate_limited"}
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


@pytest.mark.parametrize(("body", "content_type", "team"), [
    (b'{"team_id": "T1", "event": {}}', "application/json", "T1"),
    (b"team_id=T2&command=%2Fadvisor&text=hi", "application/x-www-form-urlencoded", "T2"),
    (b"payload=%7B%22team%22%3A%7B%22id%22%3A%22T3%22%7D%7D", "application/x-www-form-urlencoded", "T3"),
    (b"not json", "application/json", ""),
    (b'{"type": "url_verification"}', "application/json", ""),
])
def test_the_workspace_is_read_from_each_kind_of_slack_delivery(body, content_type, team) -> None:
    assert slack_team_id(body, content_type) == team
