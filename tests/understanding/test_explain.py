"""`advisor ask --explain` prints how the question was understood: the installed console script, in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from service.contract import Neighbour, UnderstandingTrace
from service.understanding.explain import format_trace


def test_the_trace_is_printed_with_every_part():
    trace = UnderstandingTrace(
        intent="preflight",
        runner_up="faq",
        scores={"preflight": 1.6, "faq": 0.1},
        neighbours=[Neighbour(intent="preflight", exemplar="新集群第一天做哪些检查", similarity=0.71)],
        rules=["cue cascade: pre-flight cue -> preflight"],
    )
    text = format_trace(trace)
    assert text.startswith("understanding: preflight (runner-up: faq)")
    assert "preflight 1.600" in text and "0.710  preflight" in text and "新集群第一天做哪些检查" in text
    assert "- cue cascade: pre-flight cue -> preflight" in text
    assert format_trace(None).startswith("understanding: no trace")


def test_explain_shows_preflight_and_the_neighbours_that_chose_it(tmp_path, indexed_data_dir):
    data_dir = tmp_path / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADVISOR_")}
    env.update(
        ADVISOR_DATA_DIR=str(data_dir),
        ADVISOR_ENVIRONMENT="test",
        ADVISOR_LLM_PROVIDER="none",
        PYTHONIOENCODING="utf-8",
        COLUMNS="400",
        NO_COLOR="1",
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
    )
    script = Path(sys.executable).with_name("advisor")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "service.cli.main"]
    result = subprocess.run(
        [*command, "ask", "--explain", "新集群交付了，开训前要验哪些东西？"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    head = result.stdout.split("\n\n")[0]
    assert head.startswith("understanding: preflight (runner-up: ")
    neighbours = [line for line in head.splitlines() if line.startswith("    0.") or line.startswith("    1.")]
    assert neighbours and all("preflight" in line for line in neighbours[:3]), head
    assert "rules:" in head
