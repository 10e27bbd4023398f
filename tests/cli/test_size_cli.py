"""`advisor size <tool>` through the real entry point (a subprocess), against the REST face.

For every tool the CLI's --json output must equal the REST response for the same input, and bad
input must give the REST 422's field-named message on stderr with exit code 2.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from service.api.app import create_app
from service.catalog import default_catalog
from service.cli.sizing import render
from service.config import Settings
from service.runtime import Runtime
from service.sizing import all_tools, get_tool
from tests.sizing.payloads import BASE_PAYLOADS

ROOT = Path(__file__).resolve().parents[2]
ADVISOR = Path(sys.executable).with_name("advisor")
TOOLS = [t.name for t in all_tools()]

# (id, tool, payload): the same inputs are sent to REST as JSON and to the CLI as --options
BAD = [
    ("zero-gpus", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": 0}),
    ("negative-concurrency", "inference", {"model": "llama-3-8b", "concurrency": -4}),
    ("nan", "training-compute", {"model": "llama-3-8b", "tokens": float("nan")}),
    ("inf", "training-compute", {"model": "llama-3-8b", "tokens": "inf"}),
    ("absurd-gpus", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": 10**9}),
    ("absurd-tokens", "training-time", {**BASE_PAYLOADS["training-time"], "tokens": 1e30}),
    ("not-a-number", "training-time", {**BASE_PAYLOADS["training-time"], "gpus": "eight"}),
    ("unknown-gpu", "training-time", {**BASE_PAYLOADS["training-time"], "gpu": "H100 SXMM"}),
    ("unknown-model", "inference", {"model": "lama-3-8bb"}),
    ("bf16-on-t4", "training-memory", {"model": "llama-3-8b", "gpu": "t4", "precision": "bf16"}),
    ("fp8-on-a100", "training-time", {**BASE_PAYLOADS["training-time"], "gpu": "a100", "precision": "fp8"}),
    ("qlora-pretrain", "training-memory", {"model": "llama-3-8b", "task": "pretrain", "method": "qlora"}),
    ("lora-pretrain", "recommend", {"model": "llama-3-8b", "task": "pretrain", "method": "lora", "tokens": 1e9}),
    ("tp-layout", "training-memory", {"model": "llama-3-70b", "gpus": 12, "tp": 8}),
    ("empty-model", "cost", {"model": "", "tokens": 1e9}),
    ("inner-request", "recommend", {"model": "llama-3-8b", "task": "inference", "gpus": 2048}),
]


def cli_args(payload: dict) -> list[str]:
    args: list[str] = []
    for key, value in payload.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            args.append(flag if value else "--no-" + key.replace("_", "-"))
        else:
            args += [flag, str(value)]
    return args


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([str(ADVISOR), "size", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


@pytest.fixture(scope="module")
def runs() -> dict[str, subprocess.CompletedProcess]:
    """Every CLI invocation of this module, run in parallel once."""
    assert ADVISOR.exists(), f"the advisor entry point is not installed at {ADVISOR}"
    jobs = {f"json:{t}": [t, *cli_args(BASE_PAYLOADS[t]), "--json"] for t in TOOLS}
    jobs["table:training-time"] = ["training-time", *cli_args(BASE_PAYLOADS["training-time"])]
    jobs |= {f"bad:{case_id}": [tool, *cli_args(payload), "--json"] for case_id, tool, payload in BAD}
    jobs["unknown-option"] = ["training-time", *cli_args(BASE_PAYLOADS["training-time"]), "--turbo", "1"]
    jobs["help"] = ["--help"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(zip(jobs, pool.map(lambda a: run_cli(*a), jobs.values())))
    return done


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    runtime = Runtime(Settings(data_dir=tmp_path_factory.mktemp("advisor-data"), environment="test"))
    return TestClient(create_app(runtime=runtime), raise_server_exceptions=False)


def rest(client: TestClient, tool: str, payload: dict):
    return client.post(f"/v1/sizing/{tool}", content=json.dumps(payload), headers={"content-type": "application/json"})


@pytest.mark.parametrize("tool", TOOLS)
def test_cli_json_equals_the_rest_response(runs, client, tool) -> None:
    proc = runs[f"json:{tool}"]
    assert proc.returncode == 0, proc.stderr
    response = rest(client, tool, BASE_PAYLOADS[tool])
    assert response.status_code == 200
    assert json.loads(proc.stdout) == response.json()


def test_cli_table_shows_the_work(runs) -> None:
    proc = runs["table:training-time"]
    assert proc.returncode == 0, proc.stderr
    assert "How this was computed: inputs" in proc.stdout and "Formulas" in proc.stdout and "source:" in proc.stdout
    assert "989.5" in proc.stdout  # the dense H100 BF16 peak, shown as a catalog input


@pytest.mark.parametrize("tool", TOOLS)
def test_every_result_renders_as_a_table(tool) -> None:
    # the same renderer the command uses, in-process (one subprocess per tool would only re-test start-up)
    catalog = default_catalog()
    result = get_tool(tool)(BASE_PAYLOADS[tool], catalog)
    out = io.StringIO()
    render(result, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "How this was computed: inputs" in text and "Formulas" in text
    assert all(item.name in text for item in result.work.inputs)


@pytest.mark.parametrize(("tool", "payload"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_exits_2_with_the_rest_message(runs, client, request, tool, payload) -> None:
    case_id = request.node.callspec.id
    proc = runs[f"bad:{case_id}"]
    response = rest(client, tool, payload)
    assert response.status_code == 422, response.text
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in response.json()["detail"])
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.strip() == f"error: {summary}"
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr


def test_unknown_gpu_message_names_the_closest_gpus(runs) -> None:
    stderr = runs["bad:unknown-gpu"].stderr
    assert stderr.startswith("error: gpu: unknown GPU 'H100 SXMM'") and "Closest known: h100-sxm" in stderr


def test_unknown_option_is_a_usage_error(runs) -> None:
    proc = runs["unknown-option"]
    assert proc.returncode == 2 and "No such option" in proc.stderr


def test_help_lists_every_tool(runs) -> None:
    proc = runs["help"]
    assert proc.returncode == 0
    for tool in TOOLS:
        assert tool in proc.stdout
