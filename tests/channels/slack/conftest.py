"""The real app under uvicorn on 127.0.0.1 with the Slack routes on, talking to a fake Slack Web API.

Requests are signed exactly as Slack signs them (v0 HMAC of timestamp and body); what the bot sends
back is read from the fake's record of Web API calls.
"""

from __future__ import annotations

import itertools
import json
import shutil
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from slack_sdk.signature import SignatureVerifier

from service.api.app import create_app
from service.assistant.llm_double import LoopbackServer
from service.channels.slack.fake import FakeSlackApi
from service.config import Settings
from service.runtime import Runtime

BOT_TOKEN = "xoxb-test-token-0123456789"
SIGNING_SECRET = "test-signing-secret-0123456789abcdef"
TEAM = "T0FAKE"
FORM = "application/x-www-form-urlencoded"
MORE_URL = "https://advisor.example.com/v1/conversations/{conversation_id}"


def slack_settings(data_dir: Path, fake: FakeSlackApi, knowledge_dir: Path | None = None) -> Settings:
    return Settings(
        data_dir=data_dir,
        knowledge_dir=knowledge_dir,
        environment="test",
        llm_provider="none",
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SIGNING_SECRET,
        slack_api_base_url=fake.base_url,
        slack_more_url=MORE_URL,
    )


class SlackServer:
    """The app on a real socket, and a client that signs requests as Slack does."""

    _ids = itertools.count(1)

    def __init__(self, data_dir: Path, fake: FakeSlackApi, knowledge_dir: Path | None = None) -> None:
        self.runtime = Runtime(slack_settings(data_dir, fake, knowledge_dir))
        self._loopback = LoopbackServer(create_app(runtime=self.runtime))
        self.http: httpx.Client | None = None

    def __enter__(self) -> SlackServer:
        self._loopback.start()
        self.http = httpx.Client(base_url=self._loopback.url, timeout=60)
        deadline = time.monotonic() + 120
        while self.http.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()
        self._loopback.__exit__(*exc)

    def post(
        self,
        path: str,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        secret: str = SIGNING_SECRET,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        timestamp = int(time.time()) if timestamp is None else timestamp
        signature = SignatureVerifier(secret).generate_signature(timestamp=str(timestamp), body=body)
        sent = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(timestamp),
            "X-Slack-Signature": signature,
            **(headers or {}),
        }
        return self.http.post(path, content=body.encode("utf-8"), headers=sent)

    def event(self, event: dict, *, event_id: str | None = None, retry_num: int | None = None, **kwargs) -> httpx.Response:
        envelope = {
            "token": "unused",
            "team_id": TEAM,
            "api_app_id": "A0ADVISOR",
            "type": "event_callback",
            "event_id": event_id or f"Ev{next(self._ids):08d}",
            "event_time": int(time.time()),
            "event": event,
        }
        headers = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"} if retry_num else None
        return self.post("/slack/events", json.dumps(envelope, ensure_ascii=False), "application/json", headers=headers, **kwargs)

    def command_body(self, text: str, *, user: str = "U0ASKER", channel: str = "C0GENERAL") -> str:
        form = {
            "token": "unused",
            "team_id": TEAM,
            "team_domain": "fake",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": "asker",
            "command": "/advisor",
            "text": text,
            "api_app_id": "A0ADVISOR",
            "response_url": "https://hooks.slack.test/commands/1",
            "trigger_id": f"{next(self._ids)}.1.abc",
        }
        return urlencode(form)

    def command(self, text: str, *, user: str = "U0ASKER", channel: str = "C0GENERAL") -> httpx.Response:
        return self.post("/slack/commands", self.command_body(text, user=user, channel=channel), FORM)

    def click_body(self, action: dict, *, user: str = "U0ASKER", channel: str = "C0GENERAL", message_ts: str | None = None) -> str:
        payload = {
            "type": "block_actions",
            "team": {"id": TEAM, "domain": "fake"},
            "user": {"id": user, "team_id": TEAM},
            "api_app_id": "A0ADVISOR",
            "token": "unused",
            "trigger_id": f"{next(self._ids)}.1.abc",
            "channel": {"id": channel, "name": "general"},
            "response_url": "https://hooks.slack.test/actions/1",
            "container": {
                "type": "message",
                "message_ts": message_ts or "1700000000.000001",
                "channel_id": channel,
                "is_ephemeral": message_ts is None,
            },
            "actions": [{**action, "block_id": "advisor_actions", "type": "button", "action_ts": str(time.time())}],
        }
        return urlencode({"payload": json.dumps(payload, ensure_ascii=False)})

    def click(self, action: dict, *, user: str = "U0ASKER", channel: str = "C0GENERAL", message_ts: str | None = None) -> httpx.Response:
        return self.post("/slack/interactions", self.click_body(action, user=user, channel=channel, message_ts=message_ts), FORM)


def message_event(
    text: str,
    *,
    ts: str,
    channel: str = "C0GENERAL",
    kind: str = "app_mention",
    user: str = "U0ASKER",
    thread_ts: str | None = None,
    **extra,
) -> dict:
    event = {"type": kind, "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts, **extra}
    if kind == "message":
        event.setdefault("channel_type", "im")
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def wait_calls(fake: FakeSlackApi, method: str, count: int = 1) -> list:
    """The successful calls of `method`, once there are at least `count`."""
    fake.wait_for(lambda calls: sum(1 for c in calls if c.ok and c.method == method) >= count)
    return fake.calls_of(method)


@pytest.fixture(scope="module")
def fake_slack():
    with FakeSlackApi(token=BOT_TOKEN, team_id=TEAM) as fake:
        yield fake


@pytest.fixture(scope="module")
def slack(tmp_path_factory, indexed_data_dir, knowledge_copy, fake_slack):
    data_dir = tmp_path_factory.mktemp("slack") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    with SlackServer(data_dir, fake_slack, knowledge_copy) as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh_record(request):
    if "fake_slack" in request.fixturenames:
        request.getfixturevalue("fake_slack").clear()
