"""POST /v1/chat/stream against a real uvicorn server on 127.0.0.1 (ASGI test transports buffer whole responses).

The server runs in a background thread on a port the OS picked; the app's lifespan opens the copied
index, and the tests start once /readyz says ready. Wire format: `event:` is the event model's `event`
field, `data:` the model as JSON (so `done` is {"event": "done", "answer": {...}}).
"""

from __future__ import annotations

import json
import re
import shutil
import time

from collections.abc import Iterator

import httpx
import pytest
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from service.api.app import create_app
from service.assistant.llm_double import LoopbackServer, ScriptedLLM
from service.assistant.llm_double import create_app as create_llm_app
from service.config import Settings
from service.contract import Answer, StreamEvent
from service.runtime import Runtime

SIZING_EN = "What GPUs do we need to fully fine-tune Qwen-14B on 2B tokens within 24 hours?"
OUTAGE_ZH = "训练到一半断电了怎么办？"


def serve(tmp_path_factory, indexed_data_dir, name: str, **settings) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp(name) / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    values = dict(data_dir=data_dir, environment="test", api_keys=[], llm_provider="none")
    values.update(settings)
    runtime = Runtime(Settings(**values))
    with LoopbackServer(create_app(runtime=runtime)) as server:
        deadline = time.monotonic() + 120
        while httpx.get(f"{server.url}/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.05)
        yield server.url


@pytest.fixture(scope="module")
def base_url(tmp_path_factory, indexed_data_dir):
    yield from serve(tmp_path_factory, indexed_data_dir, "stream")


@pytest.fixture(scope="module")
def http(base_url):
    with httpx.Client(base_url=base_url, timeout=60) as client:
        yield client


def iter_events(response: httpx.Response) -> Iterator[tuple[str, dict]]:
    """Parse a text/event-stream body as it arrives: blocks of `event:` and `data:` lines separated by blank lines."""
    name, data = None, []
    for line in response.iter_lines():
        if line == "":
            if name is not None or data:
                yield name or "message", json.loads("\n".join(data))
            name, data = None, []
        elif line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data.append(line.removeprefix("data:").removeprefix(" "))
        # ":" comment lines (keep-alive pings) carry nothing
    assert name is None and not data, "the stream ended inside an event"


def read_events(response: httpx.Response) -> list[tuple[str, dict]]:
    events = list(iter_events(response))
    for name, data in events:
        assert data["event"] == name  # the event name is the model's own `event` field
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
    # meta first; tool results as the tools finish; citations before any text; each block then its Markdown; done last.
    assert re.fullmatch(r"meta (tool_result )*citations (block (delta )+)+done", " ".join(names)), names
    for _, data in events:
        TypeAdapter(StreamEvent).validate_python(data)  # every event is one of the contract's models
    data = [d for _, d in events]
    meta, done = data[0], Answer.model_validate(data[-1]["answer"]).model_dump(mode="json")
    citations = next(d for name, d in events if name == "citations")
    deltas = [d["text"] for name, d in events if name == "delta"]
    tools = [{k: v for k, v in d.items() if k != "event"} for name, d in events if name == "tool_result"]
    blocks = [d for name, d in events if name == "block"]

    assert "".join(deltas) == done["answer"]
    assert {k: meta[k] for k in ("conversation_id", "message_id", "language", "intent")} == \
           {k: done[k] for k in ("conversation_id", "message_id", "language", "intent")}
    assert citations["citations"] == done["citations"]
    assert tools == done["tool_calls"]
    assert [b["index"] for b in blocks] == list(range(len(done["blocks"]))) and [b["block"] for b in blocks] == done["blocks"]
    assert done["grounding"]["ungrounded"] == []
    if question == SIZING_EN:
        assert tools and len(deltas) > len(blocks)  # a long block really comes in pieces
    else:
        assert done["language"] == "zh" and done["citations"]


@pytest.mark.parametrize("question", [OUTAGE_ZH, SIZING_EN, "我们想训练一个大模型，该买什么卡？", "帮我写一首关于秋天的诗"],
                         ids=["outage-zh", "sizing-en", "clarification-zh", "out-of-scope-zh"])
def test_the_stream_ends_with_what_post_chat_returns(http, question) -> None:
    _, events = stream(http, {"message": question})
    done = events[-1][1]["answer"]
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
    done = events[-1][1]["answer"]
    assert done["conversation_id"] == first["conversation_id"]
    assert done["recommendation"]["recommended"]["configuration"]["gpu"] == "h100-sxm" and done["recommendation"]["model"] == "qwen-14b"
    stored = http.get(f"/v1/conversations/{first['conversation_id']}").json()
    assert [m["content"] for m in stored["messages"]][-2:] == ["如果换成 H100 呢？", done["answer"]]
    assert stored["messages"][-1]["id"] == done["message_id"] and stored["messages"][-1]["channel"] == "api"


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


# --------------------------------------------------------------------------- real streaming
@pytest.fixture(scope="module")
def held_llm():
    """An OpenAI-protocol double that holds its reply until released: the answer cannot be done before that."""
    llm = ScriptedLLM("slow", hold_s=600)
    with LoopbackServer(create_llm_app(llm)) as server:
        yield llm, server.url
    llm.release()


@pytest.fixture(scope="module")
def writer_url(tmp_path_factory, indexed_data_dir, held_llm):
    _, llm_url = held_llm
    yield from serve(tmp_path_factory, indexed_data_dir, "stream-llm", llm_provider="openai", llm_base_url=f"{llm_url}/v1", llm_model="double",
                     llm_timeout_s=600.0)


def test_events_reach_the_client_while_the_answer_is_still_being_written(writer_url, held_llm) -> None:
    llm, _ = held_llm
    llm.reset("slow")
    seen: list[str] = []
    with httpx.Client(base_url=writer_url, timeout=600) as client, \
            client.stream("POST", "/v1/chat/stream", json={"message": "What is ZeRO-3?"}) as response:
        assert response.status_code == 200
        events = iter_events(response)
        for name, _ in events:
            seen.append(name)
            if name == "block":
                break
        # The LLM has not replied (it is held), so the answer cannot be finished: yet these events are here.
        assert seen[0] == "meta" and "citations" in seen and "done" not in seen and not llm.released
        llm.release()
        rest = [name for name, _ in events]
    assert rest[-1] == "done" and "error" not in rest


# --------------------------------------------------------------------------- documented
def test_the_openapi_document_describes_the_stream_events(http) -> None:
    spec = http.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    for name in ("MetaEvent", "CitationsEvent", "ToolResultEvent", "BlockEvent", "DeltaEvent", "DoneEvent", "ErrorEvent", "RecommendationBlock"):
        assert name in components, name
    recommendation = components[recommendation_ref(spec)]
    assert recommendation["title"] == "Recommendation" and {"tier", "gpus", "gpu_name", "hours", "cost", "alternatives"} <= set(recommendation["properties"])
    content = spec["paths"]["/v1/chat/stream"]["post"]["responses"]["200"]["content"]
    assert list(content) == ["text/event-stream"]
    schema = content["text/event-stream"]["schema"]
    # Each event is documented as sent: an `event` name and a `data` string whose JSON is one of the event models.
    assert set(schema["properties"]) >= {"event", "data"} and schema["properties"]["data"]["contentMediaType"] == "application/json"
    data = schema["properties"]["data"]["contentSchema"]
    union = components[data["$ref"].rsplit("/", 1)[1]] if "$ref" in data else data
    refs = {item["$ref"].rsplit("/", 1)[1] for item in union["oneOf"]}
    assert refs == {"MetaEvent", "CitationsEvent", "ToolResultEvent", "BlockEvent", "DeltaEvent", "DoneEvent", "ErrorEvent"}


def test_a_recommendation_block_validates_against_the_published_schema(http) -> None:
    spec = http.get("/openapi.json").json()
    answer = http.post("/v1/chat", json={"message": SIZING_EN}).json()
    block = next(b for b in answer["blocks"] if b["type"] == "recommendation")
    # The document is the root resource, so the components' own "#/components/schemas/..." references resolve.
    validator = Draft202012Validator({"$ref": f"#/components/schemas/{recommendation_ref(spec)}", "components": spec["components"]})
    assert list(validator.iter_errors(block["recommendation"])) == []
    broken = {**block["recommendation"], "gpus": "eight"}
    assert list(validator.iter_errors(broken))  # the schema really constrains it


def recommendation_ref(spec: dict) -> str:
    """The component the recommendation block points to (named with its module when another model shares the name)."""
    ref = spec["components"]["schemas"]["RecommendationBlock"]["properties"]["recommendation"]["$ref"]
    return ref.rsplit("/", 1)[1]
