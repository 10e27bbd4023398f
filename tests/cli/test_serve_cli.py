"""`advisor serve` as operators run it (issue 11): a bad setting stops start-up naming the variable and never
printing a secret; a running server logs JSON lines with the request id, route templates instead of raw paths,
and no query strings, keys, conversation ids or message text."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ADVISOR = str(Path(sys.executable).parent / "advisor")
PASSWORD = "hunter2-Pa55w0rd"
LLM_KEY = "sk-live-AbCdEfGhIjKlMnOpQrStUv"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADVISOR_")}
    env.update({"HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "ORT_DISABLE_TELEMETRY": "1"}, **extra)
    return env


@pytest.mark.parametrize(("env", "named"), [
    ({"ADVISOR_DATABASE_URL": f"mysql://admin:{PASSWORD}@db:5432/advisor"}, "ADVISOR_DATABASE_URL"),
    ({"ADVISOR_LLM_API_KEY": f"{LLM_KEY} oops"}, "ADVISOR_LLM_API_KEY"),
    ({"ADVISOR_ENVIRONMENT": "production", "ADVISOR_API_KEYS": " , "}, "ADVISOR_API_KEYS"),
    ({"ADVISOR_ENVIRONMENT": "production", "ADVISOR_LLM_API_KEY": LLM_KEY}, "ADVISOR_API_KEYS is empty"),
    ({"ADVISOR_ENVIRONMENT": "production", "ADVISOR_API_KEYS": f'["{PASSWORD}", "changeme"]', "ADVISOR_LLM_API_KEY": LLM_KEY}, "placeholder"),
    ({"ADVISOR_ENVIRONMENT": "production", "ADVISOR_API_KEYS": PASSWORD, "ADVISOR_LLM_API_KEY": LLM_KEY}, "ADVISOR_API_KEYS: key 1 of 1 is too short"),
])
def test_bad_settings_stop_serve_naming_the_variable_without_the_secret(tmp_path, env, named) -> None:
    done = subprocess.run([ADVISOR, "serve", "--port", "1"], env=_env(**env), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr
    for secret in (PASSWORD, LLM_KEY, PASSWORD[:8], LLM_KEY[:12]):
        assert secret not in done.stderr + done.stdout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_serve_logs_json_with_request_ids_and_no_content(tmp_path, indexed_data_dir, knowledge_copy) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    port, log_path = _free_port(), tmp_path / "server.log"
    env = _env(ADVISOR_DATA_DIR=str(data_dir), ADVISOR_KNOWLEDGE_DIR=str(knowledge_copy), ADVISOR_ENVIRONMENT="test")
    with log_path.open("w") as log:
        server = subprocess.Popen([ADVISOR, "serve", "--port", str(port)], env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert server.poll() is None and time.monotonic() < deadline, log_path.read_text()[-2000:]
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        with httpx.Client(base_url=base, timeout=60) as http:
            search = http.get("/v1/knowledge/search", params={"q": "SECRETQUERYTEXT nccl", "api_key": "KEYVALUE123"},
                              headers={"X-Request-ID": "rid-search-1"})
            assert search.status_code == 200 and search.headers["x-request-id"] == "rid-search-1"
            chat = http.post("/v1/chat", json={"message": "CONFIDENTIALMSG how do I check NCCL bandwidth?"}, headers={"X-Request-ID": "rid-chat-1"})
            assert chat.status_code == 200
            assert http.get("/v1/conversations/conv_doesnotexist42").status_code == 404
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)
    text = log_path.read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    access = [r for r in records if r["logger"] == "advisor.access"]
    by_id = {r.get("request_id"): r for r in access}
    assert by_id["rid-search-1"]["route"] == "/v1/knowledge/search" and by_id["rid-search-1"]["status"] == 200
    assert by_id["rid-chat-1"]["route"] == "/v1/chat"
    assert any(r["route"] == "/v1/conversations/{conversation_id}" and r["status"] == 404 for r in access)
    for leaked in ("SECRETQUERYTEXT", "KEYVALUE123", "CONFIDENTIALMSG", "conv_doesnotexist42", "api_key="):
        assert leaked not in text
