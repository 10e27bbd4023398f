"""POST /v1/chat/stream against a real uvicorn server on 127.0.0.1 (ASGI test transports buffer whole responses).

The server runs in a background thread on a port the OS picked; the app's lifespan opens the copied
index, and the tests start once /readyz says ready.
"""

from __future__ import annotations

import json
import re
import shutil
import time

import httpx
import pytest

from service.api.app import create_app
from service.assistant.llm_double import LoopbackServer
from service.config import Settings
from service.runtime import Runtime

SIZING_EN = "What GPUs do we need to fully fine-tune Qwen-14B on 2B tokens within 24 hours?"
OUTAGE_ZH = "训练到一半断电了怎么办？"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("stream") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", api_keys=[], llm_provider="none"))
    with LoopbackServer(create_app(runtime=runtime)) as server:
        deadline = time.monotonic() + 120
        while httpx.get(f"{server.url}/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.05)
        yield server.url


@pytest.fixture(scope="module")
def http(base_url):
    with httpx.Client(base_url=base_url, timeout=60) as client:
        yield client


def read_events(response: httpx.Response) -> list[tuple[str, dict]]:
    """Parse a text/event-stream body: blocks of `event:` and `data:` lines separated by blank lines."""
    events, name, data = [], None, []
    for line in response.iter_lines():
        if line == "":
            if name is not None or data:
                events.append((name or "message", json.loads("\n".join(data))))
            name, data = None, []
        elif line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data.append(line.removeprefix("data:").removeprefix(" "))
    assert name is None and not data, "the stream ended inside an event"
    return events


def stream(http: httpx.Client, body: dict) -> tuple[httpx.Response, list[tuple[str, dict]]]:
    with http.stream("POST", "/v1/chat/stream", json=body, headers={"accept": "text/event-stream"}) as response:
        assert response.status_code == 200, response.read().decode()
        return response, read_events(response)


@pytest.mark.parametrize("question", [OUTAGE_ZH, SIZING_EN], ids=["outage-zh", "sizing-en"])
def test_events_arrive_in_order_and_the_deltas_spell_the_answer(http, question) -> None:
    response, events = stream(http, {"message": question})
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "no-cache" in response.headers["cache-control"]

    names = [name for name, _ in events]
    # meta first, citations before any text, tool results before the text, done last, nothing else.
    assert re.fullmatch(r"meta citations (tool_result )*(delta )+done", " ".join(names)), names
    data = [d for _, d in events]
    meta, citations, done = data[0], data[1], data[-1]
    deltas = [d["text"] for name, d in events if name == "delta"]
    tools = [d for name, d in events if name == "tool_result"]

    assert "".join(deltas) == done["answer"]
    assert {k: meta[k] for k in ("conversation_id", "message_id", "language", "intent", "writer")} == \
           {k: done[k] for k in ("conversation_id", "message_id", "language", "intent", "writer")}
    assert citations["citations"] == done["citations"]
    assert tools == done["tool_calls"]
    assert done["grounding"]["ungrounded"] == []
    if question == SIZING_EN:
        assert tools and len(deltas) > 1  # a long answer really comes in pieces
    else:
        assert done["language"] == "zh" and done["citations"]


@pytest.mark.parametrize("question", [OUTAGE_ZH, SIZING_EN, "我们想训练一个大模型，该买什么卡？", "帮我写一首关于秋天的诗"],
                         ids=["outage-zh", "sizing-en", "clarification-zh", "out-of-scope-zh"])
def test_the_stream_ends_with_what_post_chat_returns(http, question) -> None:
    _, events = stream(http, {"message": question})
    done = events[-1][1]
    rest = http.post("/v1/chat", json={"message": question})
    assert rest.status_code == 200, rest.text
    answer = rest.json()

    assert set(done) == set(answer)
    assert done["answer"] == answer["answer"]
    for key in ("intent", "language", "writer", "recommendation", "clarification", "slots", "follow_up_questions"):
        assert done[key] == answer[key], key
    assert [c["id"] for c in done["citations"]] == [c["id"] for c in answer["citations"]]
    assert [t["tool"] for t in done["tool_calls"]] == [t["tool"] for t in answer["tool_calls"]]
    # Each is its own new conversation and message.
    assert done["conversation_id"] != answer["conversation_id"] and done["message_id"] != answer["message_id"]


def test_a_streamed_turn_continues_and_is_stored_in_its_conversation(http) -> None:
    first = http.post("/v1/chat", json={"message": "我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？"}).json()
    _, events = stream(http, {"message": "如果换成 H100 呢？", "conversation_id": first["conversation_id"]})
    done = events[-1][1]
    assert done["conversation_id"] == first["conversation_id"]
    assert done["recommendation"]["recommended"]["configuration"]["gpu"] == "h100-sxm" and done["recommendation"]["model"] == "qwen-14b"
    stored = http.get(f"/v1/conversations/{first['conversation_id']}").json()
    assert [m["content"] for m in stored["messages"]][-2:] == ["如果换成 H100 呢？", done["answer"]]
    assert stored["messages"][-1]["id"] == done["message_id"]


@pytest.mark.parametrize("body, field", [
    ({"message": ""}, "message"),
    ({"message": "   "}, "message"),
    ({"message": "训练" * 2001}, "message"),
    ({"message": "什么是 NVLink？", "conversation_id": "conv_00000000000000000000"}, "conversation_id"),
    ({"message": "什么是 NVLink？", "conversation_id": "no/slashes"}, "conversation_id"),
    ({"message": "什么是 NVLink？", "stream": True}, "stream"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_input_is_a_422_json_response_not_a_stream(http, body, field, lang) -> None:
    response = http.post("/v1/chat/stream", json=body, headers={"accept": "text/event-stream", "accept-language": lang})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/json")
    payload = response.json()
    assert payload["error"] == "invalid_input" and field in [d["field"] for d in payload["detail"]]
    problem = next(d for d in payload["detail"] if d["field"] == field)
    assert bool(re.search(r"[\u4e00-\u9fff]", problem["message"])) == (lang == "zh"), problem
