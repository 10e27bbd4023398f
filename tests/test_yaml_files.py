"""The YAML reader the service uses (service/yaml_files.py): libyaml's parser, the same values as PyYAML's own."""

from __future__ import annotations

from pathlib import Path

import yaml

from service import yaml_files

ROOT = Path(__file__).resolve().parents[1]


def test_every_project_yaml_file_reads_the_same_as_pyyaml_safe_load() -> None:
    files = sorted(p for folder in ("service", "knowledge") for p in (ROOT / folder).rglob("*.yaml"))
    assert len(files) > 20
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yaml_files.safe_load(text) == yaml.safe_load(text), path


def test_the_c_parser_is_used_and_reports_errors_with_their_line() -> None:
    assert yaml_files.SafeLoader is yaml.CSafeLoader  # the pinned PyYAML wheels are built with libyaml
    try:
        yaml_files.safe_load("a: 1\nb: [2, 3\nc: 4\n")
    except yaml.YAMLError as exc:
        assert exc.problem_mark.line >= 1
    else:
        raise AssertionError("malformed YAML was read")
