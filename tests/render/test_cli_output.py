"""`advisor ask` renders the answer's blocks, not its Markdown: plain text without a TTY, the Answer with `--json`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def ask(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("ask-render") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADVISOR_")}
    env.update(ADVISOR_DATA_DIR=str(data_dir), ADVISOR_ENVIRONMENT="test", ADVISOR_LLM_PROVIDER="none", PYTHONIOENCODING="utf-8",
               LANG="C.UTF-8", LC_ALL="C.UTF-8")
    script = Path(sys.executable).with_name("advisor")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli.main"]

    def run(*args: str) -> str:
        # stdout is a pipe here, so the CLI takes its no-TTY path.
        result = subprocess.run([*command, "ask", *args], env=env, cwd=tmp_path_factory.mktemp("cwd"), capture_output=True, text=True,
                                encoding="utf-8", timeout=300, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, result.stderr
        return result.stdout

    return run


def test_without_a_tty_the_answer_is_plain_text_with_the_same_content(ask) -> None:
    question = "We want to fully fine-tune Qwen-14B on 500k samples within 24 hours. What do we need?"
    answer = json.loads(ask("--json", question))
    assert answer["blocks"][0]["type"] == "lead" and any(b["type"] == "recommendation" for b in answer["blocks"])
    out = ask(question)
    assert "**" not in out and "|---" not in out and "```" not in out and "### " not in out
    recommendation = next(b for b in answer["blocks"] if b["type"] == "recommendation")["recommendation"]
    assert f"{recommendation['gpus']} × {recommendation['gpu_name']}" in out
    assert "How this was computed" in out and "Sources" in out and "https://" in out and "conversation: conv_" in out
