"""Catalog routes, health and the API docs, over the real HTTP stack (no index: the lifespan never runs)."""

from __future__ import annotations

import re

import pytest

from service.sizing import all_tools

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_gpu_list(client, runtime) -> None:
    gpus = client.get("/v1/hardware/gpus").json()
    assert {g["id"] for g in gpus} == set(runtime.catalog.gpus)
    for g in gpus:
        assert g["sources"] and g["fp16_dense_tflops"] > 0
        if g["sparse_fp16_tflops"] is not None:
            assert g["sparse_fp16_tflops"] >= 1.5 * g["fp16_dense_tflops"]


def test_h100_sxm_serves_the_dense_bf16_peak(client) -> None:
    h100 = client.get("/v1/hardware/gpus/H100 SXM5")
    assert h100.status_code == 200
    data = h100.json()
    assert data["id"] == "h100-sxm"
    assert data["bf16_dense_tflops"] == 989.5  # not the datasheet's 1,979 "with sparsity"
    assert data["fp16_dense_tflops"] == 989.5 and data["sparse_fp16_tflops"] == 1979
    assert data["scale_up"]["bandwidth_gbps_bidir"] == 900


@pytest.mark.parametrize(("alias", "gpu_id"), [("h100-sxm", "h100-sxm"), ("A100 80G", "a100-80gb-sxm"), ("tesla t4", "t4"), ("昇腾910B", "ascend-910b")])
def test_gpu_aliases(client, alias, gpu_id) -> None:
    assert client.get(f"/v1/hardware/gpus/{alias}").json()["id"] == gpu_id


def test_unknown_gpu_is_404_with_suggestions(client) -> None:
    en = client.get("/v1/hardware/gpus/h100-sxmm")
    assert en.status_code == 404
    body = en.json()
    assert body["error"] == "not_found" and body["suggestions"][0] == "h100-sxm"
    assert "h100-sxm" in body["message"] and "unknown GPU" in body["message"]
    zh = client.get("/v1/hardware/gpus/h100-sxmm", headers={"accept-language": "zh"})
    assert zh.status_code == 404 and CJK.search(zh.json()["message"]) and zh.json()["suggestions"] == body["suggestions"]
    assert CJK.search(client.get("/v1/hardware/gpus/h100-sxmm?lang=zh").json()["message"])


def test_models(client, runtime) -> None:
    models = client.get("/v1/models").json()
    assert {m["id"] for m in models} == set(runtime.catalog.models)
    one = client.get("/v1/models/Llama-3-70B").json()
    assert (one["id"], one["layers"], one["kv_heads"]) == ("llama-3-70b", 80, 8)
    missing = client.get("/v1/models/lama-3-70b")
    assert missing.status_code == 404 and "llama-3-70b" in missing.json()["suggestions"]


def test_tiers(client) -> None:
    tiers = client.get("/v1/tiers").json()
    assert [t["id"] for t in tiers] == ["entry", "mid", "production"]
    assert all(CJK.search(t["name_zh"]) and t["gpu_options"] for t in tiers)


def test_instances(client) -> None:
    lam = client.get("/v1/hardware/instances", params={"provider": "lambda", "gpu": "H100 SXM"}).json()
    assert [i["id"] for i in lam] == ["lambda-gpu-8x-h100-sxm5"] and lam[0]["price"]["on_demand_per_hour"] == 31.92
    bad = client.get("/v1/hardware/instances", params={"gpu": "zz9000"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "gpu"


def test_health(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["catalog"] is True and ready.json()["checks"]["index"] is False


def test_docs_and_openapi_list_every_sizing_route(client) -> None:
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    spec = client.get("/openapi.json")
    assert spec.status_code == 200
    paths = spec.json()["paths"]
    for tool in all_tools():
        route = paths[f"/v1/sizing/{tool.name}"]["post"]
        assert "422" in route["responses"] and "requestBody" in route
    for path in ("/v1/hardware/gpus", "/v1/hardware/gpus/{name}", "/v1/models", "/v1/tiers", "/healthz"):
        assert path in paths
