"""README's configuration table is scripts/settings_table.py's output: a new or changed setting fails here until the README is regenerated."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "settings_table.py"


def load_script():
    spec = importlib.util.spec_from_file_location("settings_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_configuration_table_matches_the_settings_class() -> None:
    script = load_script()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script.BEGIN in readme and script.END in readme, "README.md lacks the settings-table markers"
    in_readme = readme.split(script.BEGIN, 1)[1].split(script.END, 1)[0].strip("\n") + "\n"
    assert in_readme == script.table(), "README.md is out of date: paste the output of `python scripts/settings_table.py`"


def test_the_table_names_every_setting_once() -> None:
    from service.config import Settings

    output = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    rows = output.splitlines()[2:]
    assert len(rows) == len(Settings.model_fields)
    assert "| `ADVISOR_DATABASE_URL` | empty | secret text (optional) |" in rows
    assert any(row.startswith("| `ADVISOR_CHROMA_URL` or `CHROMA_URL` |") for row in rows)
