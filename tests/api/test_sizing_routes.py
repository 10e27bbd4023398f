"""POST /v1/sizing/<tool> over the real HTTP stack: same numbers as the core, 422 (never 500) on bad input,
field-named messages in English and Chinese.

The app is built from a Runtime we construct ourselves and driven by TestClient WITHOUT `with`, so the
lifespan (which would open the knowledge index) never runs; the last test checks that it did not.
"""

from __future__ import annotations

import json
import re
import threading

import pytest
from fastapi.testclient import TestClient

from service.sizing import all_tools, get_tool
from tests.sizing.payloads import BASE_PAYLOADS

CJK = re.compile(r"[\u4e00-\u9fff]")
TOOLS = [t.name for t in all_tools()]


def post(client: TestClient, tool: str, body, *, lang: str | None = None, query: str = ""):
    """Send `body` as raw JSON (NaN allowed, as Python's json writes it) or raw bytes."""
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if lang:
        headers["accept-language"] = lang
    return client.post(f"/v1/sizing/{tool}{query}", content=content, headers=headers)


def test_lists_every_tool(client) -> None:
    listed = client.get("/v1/sizing").json()
    assert [t["name"] for t in listed] == TOOLS
    assert all(t["path"] == f"/v1/sizing/{t['name']}" and CJK.search(t["summary_zh"]) for t in listed)


@pytest.mark.parametrize("tool", TOOLS)
def test_rest_returns_exactly_the_core_result(client, runtime, tool) -> None:
    response = post(client, tool, BASE_PAYLOADS[tool])
    assert response.status_code == 200, response.text
    core = get_tool(tool)(BASE_PAYLOADS[tool], runtime.catalog)
    assert response.json() == core.model_dump(mode="json")


# --------------------------------------------------------------------------- bad input: 422, field named, bilingual

BAD = [
    # (id, tool, body, field, English fragment, allowed fragment or None)
    ("zero-gpus", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": 0}, "gpus", "at least 1", ">= 1"),
    ("negative-concurrency", "inference", {"model": "llama-3-8b", "concurrency": -4}, "concurrency", "at least 1", ">= 1"),
    ("negative-hours", "tokens-in-budget", {**BASE_PAYLOADS["tokens-in-budget"], "hours": -1}, "hours", "at least 0.01 and at most 87600", ">= 0.01 and <= 87600"),
    # issue 11: tiny positive floats used to divide by zero or overflow (500) or serialise Infinity as null (200)
    ("tiny-params", "checkpoint", {"params_b": 5e-324, "mtbf_hours": 5e-324}, "params_b", "at least 0.001", ">= 0.001"),
    ("tiny-mtbf", "checkpoint", {"params_b": 70, "mtbf_hours": 5e-324}, "mtbf_hours", "at least 0.1 and at most", ">= 0.1 and <= 10000000"),
    ("tiny-write", "checkpoint", {"params_b": 70, "write_gbps": 5e-324}, "write_gbps", "at least 0.001", ">= 0.001"),
    ("tiny-deadline", "gpus-for-deadline", {**BASE_PAYLOADS["gpus-for-deadline"], "deadline_hours": 5e-324}, "deadline_hours", "at least 0.01", ">= 0.01"),
    ("tiny-nic", "nccl-expected", {"gpu": "h100", "gpus": 16, "nic_gbps_per_gpu": 5e-324}, "nic_gbps_per_gpu", "at least 0.1", ">= 0.1"),
    ("tiny-fx", "cost", {"gpu_hours": 1000, "fx_cny_per_usd": 5e-324}, "fx_cny_per_usd", "at least 0.01", ">= 0.01 and <= 100"),
    ("tiny-mfu", "training-time", {**BASE_PAYLOADS["training-time"], "mfu": 5e-324}, "mfu", "at least 0.01", ">= 0.01 and <= 1"),
    ("tiny-years", "break-even", {**BASE_PAYLOADS["break-even"], "years": 5e-324}, "years", "at least 0.1", ">= 0.1 and <= 15"),
    ("tiny-read", "data-loader", {**BASE_PAYLOADS["data-loader"], "storage_read_gbps": 5e-324}, "storage_read_gbps", "at least", ">= 0.001"),
    ("tiny-tokens", "training-compute", {"model": "llama-3-8b", "tokens": 5e-324}, "tokens", "at least 1", ">= 1"),
    ("bool-gpus", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": True}, "gpus", "not true/false", None),
    ("bool-hours", "tokens-in-budget", {**BASE_PAYLOADS["tokens-in-budget"], "hours": False}, "hours", "not true/false", None),
    ("nan-tokens", "training-compute", b'{"model": "llama-3-8b", "tokens": NaN}', "tokens", "finite number", "finite"),
    ("inf-string", "training-compute", {"model": "llama-3-8b", "tokens": "inf"}, "tokens", "finite number", "finite"),
    ("infinity-literal", "checkpoint", b'{"params_b": Infinity}', "params_b", "finite number", "finite"),
    ("absurd-gpus", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": 10**9}, "gpus", "at most", "<="),
    ("absurd-tokens", "training-time", {**BASE_PAYLOADS["training-time"], "tokens": 1e30}, "tokens", "at most", "<="),
    ("absurd-params", "training-memory", {"params_b": 1e9}, "params_b", "at most", "<="),
    # issue 28: a whole number beyond float range raised OverflowError where ValueError was caught (a 500)
    ("huge-int-gpus", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": 10**400}, "gpus", "at most", "<="),
    ("huge-int-seq-len", "training-memory", {"model": "llama-3-8b", "seq_len": 10**400}, "seq_len", "at most", "<="),
    ("huge-int-concurrency", "inference", {"model": "llama-3-8b", "concurrency": -(10**400)}, "concurrency", "at least 1", ">= 1"),
    ("wrong-type-int", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": "eight"}, "gpus", "whole number", None),
    ("fractional-int", "training-memory", {"model": "llama-3-8b", "seq_len": 1024.5}, "seq_len", "whole number", None),
    ("wrong-type-bool", "training-memory", {"model": "llama-3-8b", "flash_attention": "maybe"}, "flash_attention", "true or false", None),
    ("wrong-enum", "training-memory", {"model": "llama-3-8b", "sharding": "zero4"}, "sharding", "one of", "zero3"),
    ("extra-field", "training-time", {**BASE_PAYLOADS["training-time"], "turbo": True}, "turbo", "not a known field", None),
    ("missing-gpu", "training-time", {"model": "llama-3-8b", "tokens": 1e9, "gpus": 8}, "gpu", "required", None),
    ("unknown-gpu", "training-time", {**BASE_PAYLOADS["training-time"], "gpu": "H100 SXMM"}, "gpu", "Closest known: h100-sxm", None),
    ("unknown-model", "inference", {"model": "lama-3-8bb"}, "model", "Closest known: llama-3-8b", None),
    ("no-model", "training-memory", {}, "model", "params_b", "params_b > 0"),
    ("bf16-on-t4", "training-memory", {"model": "llama-3-8b", "gpu": "t4", "precision": "bf16"}, "precision", "does not support bf16", "fp16"),
    ("bf16-weights-on-t4", "inference", {"model": "llama-3-8b", "gpu": "t4", "weights": "bf16"}, "weights", "does not support bf16", "fp16"),
    ("fp8-on-a100", "training-time", {**BASE_PAYLOADS["training-time"], "gpu": "a100", "precision": "fp8"}, "precision", "FP8", "bf16"),
    ("qlora-pretrain", "training-memory", {"model": "llama-3-8b", "task": "pretrain", "method": "qlora"}, "method", "pre-training", "full"),
    ("lora-pretrain", "recommend", {"model": "llama-3-8b", "task": "pretrain", "method": "lora", "tokens": 1e9}, "method", "pre-training", "full"),
    ("bf16-on-pinned-t4", "recommend", {"model": "llama-3-8b", "method": "qlora", "tokens": 1e7, "gpu": "t4", "precision": "bf16"}, "precision", "bf16", "fp16"),
    ("nvlink-on-t4", "allreduce", {"gpu": "t4", "gpus": 4, "size_mb": 100, "intra_fabric": "nvlink"}, "intra_fabric", "no NVLink", "pcie"),
    ("tp-layout", "training-memory", {"model": "llama-3-70b", "gpus": 12, "tp": 8}, "body", "multiple of tp x pp", "data_parallel"),
    ("both-efficiencies", "training-time", {**BASE_PAYLOADS["training-time"], "mfu": 0.4, "achieved_tflops": 400}, "body", "not both", None),
    ("empty-model-name", "cost", {"model": "", "tokens": 1e9}, "model", "too short", None),
    # a value that passes the outer schema but not the request recommend builds inside (was an HTTP 500)
    ("recommend-inference-gpus", "recommend", {"model": "llama-3-8b", "task": "inference", "gpus": 2048}, "gpus", "at most 1024", "<= 1024"),
]


@pytest.mark.parametrize(("tool", "body", "field", "fragment", "allowed"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_422_naming_the_field(client, tool, body, field, fragment, allowed) -> None:
    response = post(client, tool, body)
    assert response.status_code == 422, response.text
    data = response.json()
    assert data["error"] == "invalid_input"
    problems = {d["field"]: d for d in data["detail"]}
    assert field in problems, data
    assert fragment in problems[field]["message"]
    assert f"{field}: " in data["message"]
    if allowed:
        assert allowed in problems[field].get("allowed", "")
    if "Closest known" in fragment:
        assert problems[field]["suggestions"][0] == fragment.rsplit(" ", 1)[1]
    # the same problem in Chinese, by header and by query parameter
    for zh in (post(client, tool, body, lang="zh-CN,zh;q=0.9"), post(client, tool, body, query="?lang=zh")):
        assert zh.status_code == 422
        zh_problems = {d["field"]: d for d in zh.json()["detail"]}
        assert CJK.search(zh_problems[field]["message"]), zh_problems[field]
        assert zh.json()["message"].startswith("请求中有无效的输入")
        if allowed:
            assert zh_problems[field]["allowed"] == problems[field]["allowed"]


MALFORMED = [b"", b"[]", b"[1, 2]", b"null", b"{", b'"text"', b"42", b"true", b'{"model": {"name": "llama-3-8b"}}', b'{"gpus": [8]}']


@pytest.mark.parametrize("tool", TOOLS)
def test_malformed_bodies_are_never_a_500(client, tool) -> None:
    for body in MALFORMED:
        response = post(client, tool, body)
        assert response.status_code == 422, (body, response.status_code, response.text)
        assert response.json()["detail"], body
    assert post(client, tool, {}).status_code in (200, 422)
    array = post(client, tool, b"[]").json()["detail"][0]
    assert array == {"field": "body", "message": "must be a JSON object"}


FUZZ_VALUES = [0, -1, -1e-9, float("nan"), "inf", "-inf", 1e30, 10**9, 2**63, "abc", "", [], {}, True, None, "x" * 300]


@pytest.mark.parametrize("tool", TOOLS)
def test_every_field_with_hostile_values_is_200_or_422(client, tool) -> None:
    """Each field of each tool, one at a time, replaced by a hostile value: a result or a field-named 422."""
    base = BASE_PAYLOADS[tool]
    for field in get_tool(tool).request.model_fields:
        for value in FUZZ_VALUES:
            response = post(client, tool, {**base, field: value})
            assert response.status_code in (200, 422), (field, value, response.status_code, response.text[:300])
            if response.status_code == 422:
                assert all(d["field"] and d["message"] for d in response.json()["detail"])
            else:
                assert "NaN" not in response.text and ": Infinity" not in response.text


def test_the_knowledge_index_was_never_started(client, runtime) -> None:
    # runs last in this module: every request above went through an app whose lifespan never ran
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").status_code == 503
    assert not runtime.index_ready and runtime._index is None
    assert not any(t.name == "advisor-index" for t in threading.enumerate())
