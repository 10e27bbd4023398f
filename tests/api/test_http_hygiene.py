"""HTTP hygiene (issue 11): body limit 413, unreadable bodies 400, localized 404/405, one error format,
`Connection: close` after a 500, X-Request-ID, security headers on HTML, admin-protected /metrics,
and keys compared alike in both headers.

Real app over the real catalogs; the knowledge index is never opened (TestClient without `with`).
"""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.api.security import content_security_policy, script_hashes
from service.config import Settings
from service.runtime import Runtime
from tests.sizing.payloads import BASE_PAYLOADS

CJK = re.compile(r"[\u4e00-\u9fff]")


def make_client(tmp_path, **settings) -> TestClient:
    runtime = Runtime(Settings(data_dir=tmp_path / "data", environment="test", **settings))
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    return make_client(tmp_path_factory.mktemp("hygiene"), max_body_bytes=4096)


def assert_error_format(response, code: str, *, zh: bool = False) -> None:
    body = response.json()
    assert body["error"] == code and body["message"], body
    assert bool(CJK.search(body["message"])) is zh, body


def test_a_body_over_the_limit_is_413_by_content_length_before_it_is_read(client) -> None:
    big = b'{"message": "' + b"x" * 10_000 + b'"}'
    for lang, zh in ((None, False), ("zh-CN", True)):
        headers = {"content-type": "application/json", **({"accept-language": lang} if lang else {})}
        response = client.post("/v1/sizing/cost", content=big, headers=headers)
        assert response.status_code == 413
        assert_error_format(response, "payload_too_large", zh=zh)
        assert "4096" in response.json()["message"]


def test_a_chunked_body_over_the_limit_is_413_when_the_count_passes_it(client) -> None:
    def chunks():
        for _ in range(10):
            yield b" " * 1000

    response = client.post("/v1/sizing/cost", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json()["error"] == "payload_too_large"
    # a body under the limit still works
    assert client.post("/v1/sizing/cost", json=BASE_PAYLOADS["cost"]).status_code == 200


@pytest.mark.parametrize("body", [b'{"gpu_hours": "\xff\xfe"}', b"[" * 3000 + b"]" * 3000], ids=["invalid-utf8", "nested-3000"])
def test_unreadable_bodies_are_400_in_the_error_format_and_language(tmp_path, body) -> None:
    client = make_client(tmp_path)
    for lang, zh in (("en", False), ("zh", True)):
        response = client.post("/v1/sizing/cost", content=body, headers={"content-type": "application/json", "accept-language": lang})
        assert response.status_code == 400, response.text
        assert_error_format(response, "invalid_body", zh=zh)


def test_404_and_405_are_localized_in_the_same_format(client) -> None:
    for lang, zh in (("en", False), ("zh-CN,zh;q=0.9", True)):
        missing = client.get("/v1/no-such-route", headers={"accept-language": lang})
        assert missing.status_code == 404
        assert_error_format(missing, "not_found", zh=zh)
        wrong = client.get("/v1/sizing/cost", headers={"accept-language": lang})
        assert wrong.status_code == 405 and "POST" in wrong.headers["allow"]
        assert_error_format(wrong, "method_not_allowed", zh=zh)


def test_a_500_closes_the_connection_and_keeps_the_error_format(tmp_path) -> None:
    client = make_client(tmp_path)

    @client.app.get("/boom")
    def boom() -> None:
        raise RuntimeError("a bug")

    response = client.get("/boom", headers={"accept-language": "zh", "x-request-id": "req-500"})
    assert response.status_code == 500 and response.headers["connection"] == "close"
    assert_error_format(response, "internal_error", zh=True)
    assert "a bug" not in response.text


def test_request_ids_are_echoed_or_made(client) -> None:
    assert client.get("/healthz", headers={"x-request-id": "abc-123"}).headers["x-request-id"] == "abc-123"
    made = client.get("/healthz", headers={"x-request-id": "bad id\twith spaces"}).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)


def test_html_pages_carry_security_headers_and_json_does_not_need_a_csp(client) -> None:
    docs = client.get("/docs")
    csp = docs.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "object-src 'none'" in csp
    assert docs.headers["x-content-type-options"] == "nosniff" and docs.headers["referrer-policy"]
    # the page's inline script is allowed by its hash, not by 'unsafe-inline'
    assert all(h in csp for h in script_hashes(docs.text)) and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    api = client.get("/healthz")
    assert "content-security-policy" not in api.headers and api.headers["x-content-type-options"] == "nosniff"


def test_the_csp_function_hashes_inline_scripts_only() -> None:
    page = "<script>alert(1)</script><script src='/widget.js'></script>"
    assert len(script_hashes(page)) == 1
    assert script_hashes(page)[0] in content_security_policy(page)


def test_metrics_need_the_admin_key_when_keys_are_configured(tmp_path) -> None:
    client = make_client(tmp_path, api_keys=["user-key-1"], admin_keys=["admin-key-1"])
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"x-api-key": "user-key-1"}).status_code == 401
    refused = client.get("/metrics", headers={"x-api-key": "nope", "accept-language": "zh"})
    assert refused.status_code == 401 and CJK.search(refused.json()["message"])
    client.get("/v1/sizing", headers={"authorization": "Bearer user-key-1"})
    ok = client.get("/metrics", headers={"authorization": "Bearer admin-key-1 "})
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")
    assert 'advisor_http_requests_total{channel="rest",method="GET",route="/v1/sizing",status="200"}' in ok.text
    open_client = make_client(tmp_path / "open")
    assert open_client.get("/metrics").status_code == 200


def test_trailing_spaces_are_trimmed_alike_in_both_key_headers(tmp_path) -> None:
    client = make_client(tmp_path, api_keys=["k-trim-1"])
    for headers in ({"x-api-key": "k-trim-1 "}, {"x-api-key": " k-trim-1"}, {"authorization": "Bearer k-trim-1 "},
                    {"authorization": "bearer  k-trim-1"}):
        assert client.get("/v1/sizing", headers=headers).status_code == 200, headers
    assert client.get("/v1/sizing", headers={"x-api-key": "k-trim-1x"}).status_code == 401


def test_openapi_documents_the_error_body_that_is_really_sent(client) -> None:
    spec = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    assert {"error", "message"} <= set(spec["components"]["schemas"]["ErrorBody"]["required"])
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if "422" in operation["responses"]:
                schema = operation["responses"]["422"]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (path, method)
            if "requestBody" in operation:
                assert {"400", "413", "422"} <= set(operation["responses"]), (path, method)


def test_an_oversized_body_over_real_http_is_refused_without_reading_it(tmp_path) -> None:
    # httpx with a transport straight to the ASGI app: the declared length alone triggers the 413
    app = make_client(tmp_path, max_body_bytes=2048).app
    transport = httpx.ASGITransport(app=app)

    async def go():
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.post("/v1/chat", content=b"x" * 3000, headers={"content-type": "application/json"})

    import asyncio

    assert asyncio.run(go()).status_code == 413
