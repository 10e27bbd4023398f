"""`advisor ingest` and `advisor search` through the installed entry point, in subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.retrieval.conftest import write_small_knowledge

ADVISOR = shutil.which("advisor", path=str(Path(sys.executable).parent))


def advisor(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert ADVISOR, "the advisor entry point is not installed next to this Python"
    return subprocess.run([ADVISOR, *args], env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("cli")
    knowledge = write_small_knowledge(root / "knowledge")
    return {
        **os.environ,
        "ADVISOR_DATA_DIR": str(root / "data"),
        "ADVISOR_KNOWLEDGE_DIR": str(knowledge),
        "LC_ALL": "C.UTF-8",
        "COLUMNS": "160",
    }


@pytest.mark.slow
def test_ingest_then_nothing_changed(cli_env: dict[str, str]) -> None:
    first = advisor("ingest", env=cli_env)
    assert first.returncode == 0, first.stderr
    assert "Indexed 6 documents" in first.stdout, first.stdout  # four documents, one GPU card in two languages
    assert "embedded" in first.stdout
    assert "chunks written" in first.stdout, "progress is reported while writing"
    again = advisor("ingest", env=cli_env)
    assert again.returncode == 0 and "Nothing changed" in again.stdout


@pytest.mark.slow
def test_search_prints_json_like_the_rest_api(cli_env: dict[str, str]) -> None:
    result = advisor("search", "断点续训怎么保存优化器状态", "--k", "2", "--lang", "zh", "--json", env=cli_env)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["query"] == "断点续训怎么保存优化器状态"
    assert [r["id"] for r in body["results"]][0] == "checkpoints.zh#保存状态"
    assert set(body["results"][0]) == {"id", "doc_id", "title", "heading", "language", "source", "url", "score", "snippet"}
    table = advisor("search", "Young interval", "--k", "1", env=cli_env)
    assert table.returncode == 0 and "Checkpoints and resuming training" in table.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("search", "   "), "q: must not be empty"),
        (("search", "memory", "--k", "0"), "k: must be a whole number from 1 to 50"),
        (("search", "memory", "--lang", "fr"), "only Chinese (zh) and English (en)"),
        (("search", "Какая память у H100?"), "only Chinese and English are supported"),
    ],
)
def test_bad_input_exits_2_naming_the_field(cli_env: dict[str, str], args: tuple[str, ...], message: str) -> None:
    result = advisor(*args, env=cli_env)
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.slow
def test_malformed_knowledge_file_exits_1_naming_file_and_line(tmp_path: Path) -> None:
    knowledge = write_small_knowledge(tmp_path / "knowledge")
    bad = knowledge / "docs" / "zh" / "bad.md"
    bad.write_text("---\nid: bad\ntitle: [unclosed\nlanguage: zh\n---\n\n正文\n", encoding="utf-8")
    env = {**os.environ, "ADVISOR_DATA_DIR": str(tmp_path / "data"), "ADVISOR_KNOWLEDGE_DIR": str(knowledge)}
    result = advisor("ingest", env=env)
    assert result.returncode == 1
    assert f"{bad}:" in result.stderr and "not valid YAML" in result.stderr
