"""`advisor ingest` over a data directory it cannot use (issue 28): one clear line naming the path, exit code 2, in the
user's language, and the file in the way left untouched. Run as a user runs it: the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def ingest(data_dir: Path, *args: str, lang: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADVISOR_", "LC_", "LANG"))}
    # This checkout's code (not an installed copy); zh_CN is rarely installed in containers, which the CLI must not need.
    env.update(
        ADVISOR_DATA_DIR=str(data_dir),
        ADVISOR_ENVIRONMENT="test",
        PYTHONPATH=str(ROOT),
        PYTHONIOENCODING="utf-8",
        LC_ALL="zh_CN.UTF-8" if lang == "zh" else "C.UTF-8",
        NO_COLOR="1",
    )
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", "ingest", *args],
        env=env,
        cwd=data_dir.parent,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(("lang", "words"), [("en", "not a directory"), ("zh", "不是目录")])
@pytest.mark.parametrize("args", [("--rebuild",), ()], ids=["rebuild", "plain"])
def test_an_index_path_that_is_a_file_exits_2_naming_it(tmp_path: Path, lang: str, words: str, args: tuple[str, ...]) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    index = data_dir / "index"
    index.write_bytes(b"someone's file, not an index")
    result = ingest(data_dir, *args, lang=lang)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(index) in lines[0] and words in lines[0], result.stderr
    assert index.read_bytes() == b"someone's file, not an index", "the file in the way is never removed"
