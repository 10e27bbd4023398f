"""Chunks: cut at ##/### headings, long sections split, title and heading embedded with the text."""

from __future__ import annotations

from service.retrieval.chunking import MAX_UNITS, chunk_document, slug, units
from service.retrieval.documents import KnowledgeDocument


def doc(body: str, language: str = "en") -> KnowledgeDocument:
    return KnowledgeDocument(
        id="sample", language=language, title="Sample title", topics=("memory",),
        sources=({"title": "S", "url": "https://example.com"},), body=body,
    )  # fmt: skip


BODY = """\
# Sample title

An introduction paragraph.

## Saving state

Save the weights.

```bash
# a comment inside code, not a heading
torchrun train.py
```

### Optimizer

Adam moments too.

## Empty parent

### Child

Child text.
"""


def test_sections_become_chunks_with_stable_ids_and_headings() -> None:
    chunks = chunk_document(doc(BODY))
    assert [c.id for c in chunks] == [
        "sample.en#intro",
        "sample.en#saving-state",
        "sample.en#optimizer",
        "sample.en#child",
    ]
    assert [c.heading for c in chunks] == ["", "Saving state", "Optimizer", "Child"]
    assert chunks[1].text.endswith("torchrun train.py\n```"), "a # inside a code block is not a heading"
    assert chunks[2].context == "Saving state / Optimizer"
    assert chunks[3].context == "Empty parent / Child", "a heading without text gives context to its children"
    assert "# Sample title" not in chunks[0].text


def test_embedded_text_carries_title_and_heading_path() -> None:
    optimizer = chunk_document(doc(BODY))[2]
    assert optimizer.embed_text.splitlines()[:2] == ["Sample title", "Saving state / Optimizer"]
    assert optimizer.text == "Adam moments too."


def test_hashes_follow_content_only() -> None:
    first, again = chunk_document(doc(BODY)), chunk_document(doc(BODY))
    assert [c.record_hash for c in first] == [c.record_hash for c in again]
    edited = chunk_document(doc(BODY.replace("Adam moments too.", "Adam moments and master weights.")))
    changed = [a.id for a, b in zip(first, edited, strict=True) if a.embed_hash != b.embed_hash]
    assert changed == ["sample.en#optimizer"]


def test_long_sections_are_split_at_paragraphs_into_balanced_pieces() -> None:
    paragraphs = "\n\n".join(f"Paragraph {i} " + "word " * 90 for i in range(8))
    chunks = chunk_document(doc(f"## Long\n\n{paragraphs}"))
    assert len(chunks) >= 3
    assert [c.id for c in chunks][:3] == ["sample.en#long", "sample.en#long~2", "sample.en#long~3"]
    assert all(units(c.text) <= MAX_UNITS for c in chunks)
    assert all(c.heading == "Long" for c in chunks)
    assert "".join(c.text for c in chunks).count("Paragraph") == 8, "nothing is lost"


def test_a_single_long_chinese_paragraph_is_split_at_sentences() -> None:
    sentence = "检查点要保存模型权重、优化器状态和数据位置，并定期备份到对象存储。"
    chunks = chunk_document(doc("## 保存状态\n\n" + sentence * 40, language="zh"))
    assert len(chunks) > 1
    assert all(units(c.text) <= MAX_UNITS for c in chunks)
    assert all(c.text.endswith("。") for c in chunks), "cuts fall between sentences"
    assert chunks[0].id == "sample.zh#保存状态"


def test_duplicate_headings_get_distinct_ids() -> None:
    chunks = chunk_document(doc("## Notes\n\nOne.\n\n## Notes\n\nTwo."))
    assert [c.id for c in chunks] == ["sample.en#notes", "sample.en#notes-2"]


def test_slug() -> None:
    assert slug("Saving state (DDP)") == "saving-state-ddp"
    assert slug("显存容量与显存带宽") == "显存容量与显存带宽"
    assert slug("!!!") == "section"
