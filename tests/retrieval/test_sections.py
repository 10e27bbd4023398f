"""`sections:` front matter: per `## ` heading, the passage's own source and the questions it answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.errors import KnowledgeFileError
from service.retrieval.documents import MIN_SECTION_QUESTIONS, h2_headings, load_documents, parse_document

DOC = """\
---
id: sample
title: A sample document
language: en
topics: [memory]
sources:
  - title: First source
    url: https://example.com/first
  - title: Second source
    url: https://example.com/second
sections:
  - heading: "Optimizer state"
    source: 2
    questions:
      - "why does Adam need so much memory"
      - "how many bytes per parameter does the optimizer take"
      - "what is stored besides the weights"
---

# A sample document

Intro text.

## Optimizer state

Adam keeps two moments per parameter.

```bash
## not a heading, inside a fence
```

## Activations

Activations grow with batch size.
"""


def write(root: Path, text: str) -> Path:
    path = root / "docs" / "en" / "sample.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_sections_are_parsed_with_their_own_source(tmp_path: Path) -> None:
    doc = parse_document(write(tmp_path, DOC))
    (section,) = doc.sections
    assert section.heading == "Optimizer state"
    assert section.source == {"title": "Second source", "url": "https://example.com/second"}
    assert len(section.questions) == 3
    assert doc.section("Optimizer state") is section
    assert doc.section("Activations") is None


def test_documents_without_sections_still_load(tmp_path: Path) -> None:
    start, end = DOC.index("sections:"), DOC.index("---\n\n# A sample")
    doc = parse_document(write(tmp_path, DOC[:start] + DOC[end:]))
    assert doc.sections == ()


def test_headings_inside_code_fences_are_not_sections() -> None:
    body = DOC.split("---\n\n", 1)[1]
    assert h2_headings(body) == ["Optimizer state", "Activations"]


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ('heading: "Optimizer state"', 'heading: "Optimiser state"', "no '## Optimiser state' heading"),
        ('heading: "Optimizer state"', 'heading: "## not a heading, inside a fence"', "heading"),
        ("source: 2", "source: 3", "'source' must be a number from 1 to 2"),
        ("source: 2", "source: 0", "'source' must be a number from 1 to 2"),
        ("source: 2", 'source: "2"', "'source' must be a number"),
        ('      - "what is stored besides the weights"\n', "", f"at least {MIN_SECTION_QUESTIONS} different questions, found 2"),
        ('      - "what is stored besides the weights"', '      - "why does Adam need so much memory"', "found 2"),
        ("    questions:", "    answers: [a]\n    questions:", "unknown section field 'answers'"),
        ("sections:\n", "sections: nope\nx:\n", "unknown front matter field 'x'"),
    ],
)
def test_a_bad_section_entry_names_the_file_and_field(tmp_path: Path, old: str, new: str, reason: str) -> None:
    assert old in DOC
    path = write(tmp_path, DOC.replace(old, new, 1))
    with pytest.raises(KnowledgeFileError) as caught:
        parse_document(path)
    assert reason in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_heading_declared_twice_is_refused(tmp_path: Path) -> None:
    entry = DOC[DOC.index("  - heading:") : DOC.index("---\n\n# A sample")]
    path = write(tmp_path, DOC.replace(entry, entry + entry))
    with pytest.raises(KnowledgeFileError, match="declared twice"):
        parse_document(path)


def test_sections_must_be_a_list(tmp_path: Path) -> None:
    start, end = DOC.index("sections:"), DOC.index("---\n\n# A sample")
    path = write(tmp_path, DOC[:start] + "sections: none\n" + DOC[end:])
    with pytest.raises(KnowledgeFileError, match=r"sample\.md:\d+: sections must be a list"):
        parse_document(path)


def test_every_section_of_every_packaged_document_declares_its_questions() -> None:
    """The knowledge base's contract: each `## ` section says which questions it answers (>= 3)."""
    from importlib.resources import files

    missing = []
    for doc in load_documents(Path(str(files("knowledge")))):
        declared = {s.heading for s in doc.sections}
        missing += [f"{doc.path}: ## {heading}" for heading in h2_headings(doc.body) if heading not in declared]
    assert not missing, f"{len(missing)} sections without `sections:` questions, e.g. {missing[:5]}"
