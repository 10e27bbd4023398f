"""`advisor ask` as a user runs it: the installed console script in a subprocess, configured by ADVISOR_* variables."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.assistant.answer import Answer

CJK = re.compile(r"[\u4e00-\u9fff]")


def advisor_command() -> list[str]:
    script = Path(sys.executable).with_name("advisor")
    return [str(script)] if script.exists() else [sys.executable, "-m", "service.cli.main"]


@pytest.fixture(scope="module")
def run(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("ask-cli") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    workdir = tmp_path_factory.mktemp("ask-cwd")  # no stray .env from the caller's directory
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADVISOR_")}
    env.update(ADVISOR_DATA_DIR=str(data_dir), ADVISOR_ENVIRONMENT="test", ADVISOR_LLM_PROVIDER="none",
               PYTHONIOENCODING="utf-8", COLUMNS="400", NO_COLOR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*advisor_command(), "ask", *args], env=env, cwd=workdir, capture_output=True, text=True,
                              encoding="utf-8", timeout=300, stdin=subprocess.DEVNULL)

    return run


def test_a_chinese_question_gets_a_chinese_answer(run) -> None:
    result = run("训练到一半断电了怎么办？")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert len(CJK.findall(out)) > 0.5 * len(re.findall(r"[A-Za-z]", out))
    assert "检查点" in out or "checkpoint" in out.lower()
    assert "来源" in out and "https://" in out  # the sources, with their links
    assert re.search(r"conversation: conv_\w+", out)


def test_json_prints_the_answer_object_and_c_continues_the_conversation(run) -> None:
    first = run("--json", "我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？")
    assert first.returncode == 0, first.stderr
    data = json.loads(first.stdout)
    assert set(data) == set(Answer.model_fields)  # the REST response model, key for key
    answer = Answer.model_validate(data)
    assert answer.language == "zh" and answer.recommendation and answer.tool_calls and answer.grounding.ungrounded == []

    follow = run("--json", "-c", answer.conversation_id, "如果换成 H100 呢？")
    assert follow.returncode == 0, follow.stderr
    second = Answer.model_validate_json(follow.stdout)
    assert second.conversation_id == answer.conversation_id
    assert second.recommendation["recommended"]["configuration"]["gpu"] == "h100-sxm" and second.slots["model"] == "qwen-14b"


@pytest.mark.parametrize("args, field", [
    ([""], "message"),
    (["   "], "message"),
    (["--lang", "fr", "什么是 NVLink？"], "language"),
    (["-c", "conv_00000000000000000000", "什么是 NVLink？"], "conversation_id"),
])
def test_bad_input_exits_2_naming_the_field(run, args, field) -> None:
    result = run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert re.search(rf"\b{field}\b", result.stderr), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
