"""Front matter validation: every malformed file is named with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.errors import KnowledgeFileError
from service.retrieval.documents import load_documents, parse_document

GOOD_FRONT = """\
---
id: sample
title: A sample document
language: en
topics: [memory, precision]
sources:
  - title: A source
    url: https://example.com/a
last_reviewed: 2026-11-29
---

# A sample document

## Section

Body text.
"""


def write(root: Path, text: str, language: str = "en", name: str = "sample") -> Path:
    path = root / "docs" / language / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_document_is_parsed(tmp_path: Path) -> None:
    doc = parse_document(write(tmp_path, GOOD_FRONT))
    assert (doc.id, doc.language, doc.title) == ("sample", "en", "A sample document")
    assert doc.topics == ("memory", "precision")
    assert doc.sources == ({"title": "A source", "url": "https://example.com/a"},)
    assert doc.body.startswith("# A sample document")
    assert str(doc.last_reviewed) == "2026-11-29"


@pytest.mark.parametrize(
    ("old", "new", "line", "reason"),
    [
        ("title: A sample document", "title: broken: yaml: here", 3, "not valid YAML"),
        ("id: sample\n", "", 9, "missing required field 'id'"),
        ("title: A sample document\n", "", 9, "missing required field 'title'"),
        ("language: en\n", "", 9, "missing required field 'language'"),
        ("language: en", "language: fr", 4, "unknown language 'fr'"),
        ("topics: [memory, precision]", "topics:\n  - memory\n  - quantum-vibes", 7, "unknown topic 'quantum-vibes'"),
        ("sources:\n  - title: A source\n    url: https://example.com/a\n", "", 7, "missing required field 'sources'"),
        ("    url: https://example.com/a", "    url: example.com/a", 7, "'url' starting with http"),
        ("id: sample", "id: other-name", 2, "must match the file name"),
        ("last_reviewed: 2026-11-29", "last_reviewed: soon", 9, "last_reviewed must be a date"),
        ("last_reviewed: 2026-11-29", "last_reviewd: 2026-11-29", 9, "unknown front matter field 'last_reviewd'"),
    ],
)
def test_front_matter_errors_name_the_file_and_line(tmp_path: Path, old: str, new: str, line: int, reason: str) -> None:
    assert old in GOOD_FRONT
    path = write(tmp_path, GOOD_FRONT.replace(old, new, 1))
    with pytest.raises(KnowledgeFileError) as caught:
        parse_document(path)
    assert caught.value.path == str(path)
    assert caught.value.line == line, str(caught.value)
    assert reason in caught.value.reason
    assert f"{path}:{line}" in str(caught.value)


def test_missing_front_matter_and_empty_body(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeFileError, match=r"sample\.md:1: .*front matter"):
        parse_document(write(tmp_path, "# Just a title\n\nNo front matter.\n"))
    with pytest.raises(KnowledgeFileError, match="never closed"):
        parse_document(write(tmp_path, GOOD_FRONT.replace("---\n\n#", "\n#")))
    with pytest.raises(KnowledgeFileError, match="no body"):
        parse_document(write(tmp_path, GOOD_FRONT.split("# A sample")[0]))


def test_language_must_match_its_folder(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_FRONT, language="zh")
    with pytest.raises(KnowledgeFileError, match="does not match the folder docs/zh/") as caught:
        parse_document(path)
    assert caught.value.line == 4


def test_load_documents_rejects_files_outside_language_folders(tmp_path: Path) -> None:
    write(tmp_path, GOOD_FRONT)
    assert [d.id for d in load_documents(tmp_path)] == ["sample"]
    stray = tmp_path / "docs" / "fr" / "sample.md"
    stray.parent.mkdir()
    stray.write_text(GOOD_FRONT, encoding="utf-8")
    with pytest.raises(KnowledgeFileError, match="docs/en/<id>.md"):
        load_documents(tmp_path)


def test_non_utf8_file_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    path.write_bytes(GOOD_FRONT.encode("utf-8").replace(b"Body text.", b"\xff\xfe bad"))
    with pytest.raises(KnowledgeFileError, match="not UTF-8"):
        parse_document(path)
