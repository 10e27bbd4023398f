"""The Slack routes exist only when configured, and mounting them contacts nobody."""

from __future__ import annotations

from pathlib import Path

import yaml
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.channels.slack.fake import FakeSlackApi
from service.config import Settings
from service.runtime import Runtime
from tests.channels.slack.conftest import BOT_TOKEN, slack_settings


def test_without_slack_settings_the_routes_do_not_exist(tmp_path):
    client = TestClient(create_app(runtime=Runtime(Settings(data_dir=tmp_path, environment="test"))))
    for path in ("/slack/events", "/slack/commands", "/slack/interactions"):
        assert client.post(path, content=b"{}").status_code == 404


def test_with_only_the_token_the_routes_do_not_exist_either(tmp_path):
    client = TestClient(create_app(runtime=Runtime(Settings(data_dir=tmp_path, environment="test", slack_bot_token=BOT_TOKEN))))
    assert client.post("/slack/events", content=b"{}").status_code == 404


def test_the_app_starts_without_calling_slack_and_rejects_unsigned_requests(tmp_path):
    with FakeSlackApi(token=BOT_TOKEN) as fake:
        client = TestClient(create_app(runtime=Runtime(slack_settings(tmp_path, fake))))
        assert client.get("/healthz").status_code == 200
        response = client.post("/slack/events", json={"type": "url_verification", "challenge": "x"})
        assert response.status_code == 401
        assert fake.calls == []


def test_slack_settings_have_their_conventional_names(monkeypatch, tmp_path):
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-from-env")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "signing-from-env")
    monkeypatch.setenv("SLACK_API_BASE_URL", "http://127.0.0.1:9/api/")
    settings = Settings(data_dir=tmp_path)
    assert settings.slack_bot_token.get_secret_value() == "xoxb-from-env"
    assert settings.slack_signing_secret.get_secret_value() == "signing-from-env"
    assert settings.slack_api_base_url == "http://127.0.0.1:9/api/"
    assert "xoxb-from-env" not in repr(settings)


def test_the_manifest_points_slack_at_the_routes_with_the_scopes_the_bot_uses():
    manifest = yaml.safe_load((Path(__file__).parents[3] / "deploy" / "slack-manifest.yaml").read_text(encoding="utf-8"))
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "app_mentions:read",
        "chat:write",
        "im:history",
        "reactions:write",
        "commands",
    }
    settings = manifest["settings"]
    assert settings["event_subscriptions"]["request_url"].endswith("/slack/events")
    assert set(settings["event_subscriptions"]["bot_events"]) == {"app_mention", "message.im"}
    assert settings["interactivity"]["is_enabled"] and settings["interactivity"]["request_url"].endswith("/slack/interactions")
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == "/advisor" and command["url"].endswith("/slack/commands")
