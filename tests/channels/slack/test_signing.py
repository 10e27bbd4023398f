"""Requests Slack did not sign are refused with the app's own 401, whatever their headers hold: never a 500.

The timestamp header is read as a number by the v0 check; a missing or non-numeric one used to raise inside it.
"""

from __future__ import annotations

import logging
import time

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.api.errors import ErrorBody
from service.channels.slack.fake import FakeSlackApi
from service.channels.slack.strings import STRINGS
from service.runtime import Runtime
from tests.channels.slack.conftest import BOT_TOKEN, slack_settings

SLACK_PATHS = ["/slack/events", "/slack/commands", "/slack/interactions", "/slack/unknown"]
# None: the header is absent; "9" * 5000 is past int()'s digit limit; the rest are not a whole number of seconds.
TIMESTAMPS = [None, "", "soon", "1.7e9", "-1", " 1700000000", "9" * 5000]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with FakeSlackApi(token=BOT_TOKEN) as fake:
        # No `with`: the lifespan (which would build the index) never runs; a refusal comes before any of it.
        yield TestClient(create_app(runtime=Runtime(slack_settings(tmp_path_factory.mktemp("slack"), fake))), raise_server_exceptions=False)


def _headers(timestamp: str | None, **more: str) -> dict[str, str]:
    headers = {"X-Slack-Signature": "v0=" + "0" * 64, **more}
    if timestamp is not None:
        headers["X-Slack-Request-Timestamp"] = timestamp
    return headers


@pytest.mark.parametrize("timestamp", TIMESTAMPS)
@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize("path", SLACK_PATHS)
def test_a_request_without_a_numeric_timestamp_is_a_401_with_the_app_error_body(client, caplog, path, method, timestamp):
    caplog.set_level(logging.INFO)
    response = client.request(method, path, content=b"{}" if method == "POST" else None, headers=_headers(timestamp))
    assert response.status_code == 401
    body = ErrorBody.model_validate(response.json())
    assert body.error == "unauthorized" and body.message == STRINGS["en"]["unsigned"] and body.detail == body.message
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_the_refusal_is_in_the_language_asked(client):
    response = client.post("/slack/commands", content=b"text=hi", headers=_headers("soon", **{"Accept-Language": "zh-CN"}))
    assert response.status_code == 401 and response.json()["message"] == STRINGS["zh"]["unsigned"]


def test_a_wrong_or_stale_signature_gets_the_same_401_and_its_body_is_never_logged(client, caplog):
    caplog.set_level(logging.DEBUG)
    marker = "a-question-nobody-may-read-in-the-log"
    for timestamp in (str(int(time.time())), str(int(time.time()) - 6 * 60)):
        response = client.post("/slack/commands", content=f"text={marker}".encode(), headers=_headers(timestamp))
        assert response.status_code == 401 and response.json()["error"] == "unauthorized"
    assert marker not in caplog.text
