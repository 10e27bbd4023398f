"""Every block type renders in every format (Markdown, plain text, rich terminal), carrying the same figures and links."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from service.contract import BLOCK_TYPES, LeadBlock, NoticeBlock
from service.render import inline, markdown, plain, terminal
from tests.render.samples import BLOCKS, EXPECTED


def terminal_text(blocks, lang: str = "en") -> str:
    console = Console(record=True, width=300, color_system=None, force_terminal=False)
    console.print(terminal.render(blocks, lang))
    return console.export_text()


RENDERERS = {"markdown": markdown.render, "plain": plain.render, "terminal": terminal_text}


@pytest.mark.parametrize("kind", BLOCK_TYPES)
@pytest.mark.parametrize("fmt", list(RENDERERS))
def test_every_block_type_renders_in_every_format(kind, fmt) -> None:
    out = RENDERERS[fmt]([BLOCKS[kind]], "en")
    for expected in EXPECTED[kind]:
        assert expected in out, (kind, fmt, expected, out)


@pytest.mark.parametrize("fmt", ["plain", "terminal"])
def test_plain_and_terminal_show_no_markdown_syntax(fmt) -> None:
    out = RENDERERS[fmt](list(BLOCKS.values()), "en")
    assert "**" not in out and "```" not in out and "|---" not in out and "](" not in out
    assert "`bf16`" not in out and "bf16" in out


def test_markdown_keeps_the_inline_subset_and_adds_structure() -> None:
    out = markdown.render(list(BLOCKS.values()), "en")
    assert "**About 17.4 hours**" in out and "[the model card](https://example.org/card)" in out and "`bf16`" in out
    assert "| GPU | memory |\n|---|---|" in out
    assert "```bash\nnvidia-smi topo -m\n./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8\n```" in out
    assert "### How this was computed" in out and "> ⚠️ Only 61.3 GiB" in out
    assert "[1] Llama 3 card — Meta <https://github.com/meta-llama/llama3>" in out


def test_markdown_pieces_concatenate_to_the_rendering() -> None:
    blocks = list(BLOCKS.values())
    pieces = markdown.pieces(blocks, "en")
    assert len(pieces) == len(blocks) and "".join(pieces) == markdown.render(blocks, "en")
    assert markdown.render([], "en") == "" and markdown.pieces([], "en") == []


def test_renderer_words_follow_the_language() -> None:
    zh = plain.render([BLOCKS["recommendation"], BLOCKS["work"], NoticeBlock(kind="assumption", text="默认按 H100 SXM 计算")], "zh")
    en = plain.render([BLOCKS["recommendation"], BLOCKS["work"], NoticeBlock(kind="assumption", text="GPU assumed")], "en")
    assert "配置" in zh and "公式" in zh and "备选方案" in zh and "假设：默认按 H100 SXM 计算" in zh
    assert "configuration" in en and "Formulas:" in en and "Alternatives" in en and "Assumed: GPU assumed" in en
    assert "17.4 小时" in zh and "17.4 hours" in en


def test_plain_tables_align_cjk_by_display_width() -> None:
    lines = plain.table(["项目", "value"], [["显存", "80 GB"], ["bandwidth", "3,350 GB/s"]]).splitlines()
    starts = {plain.width(line[: line.index(cell)]) for line, cell in zip(lines[2:], ["80 GB", "3,350 GB/s"], strict=True)}
    assert len(starts) == 1  # the second column starts at the same display column on every row


@pytest.mark.parametrize("text, expected", [
    ("**bold** and `code`", "bold and code"),
    ("see [the card](https://example.org/x) [3]", "see the card <https://example.org/x> [3]"),
    ("a * star, [not a link] and 2**10", "a * star, [not a link] and 2**10"),
])
def test_inline_plain_translates_only_the_documented_subset(text, expected) -> None:
    assert inline.plain(text) == expected


def test_inline_tokens_name_each_kind() -> None:
    kinds = [t.kind for t in inline.tokens("**a** `b` [1] [c](https://d.example) e")]
    assert kinds == ["bold", "text", "code", "text", "cite", "text", "link", "text"]


def test_terminal_styles_bold_and_links() -> None:
    text = terminal.inline("**17.4 hours** via [card](https://example.org/card)")
    assert text.plain == "17.4 hours via card <https://example.org/card>"
    assert any("bold" in str(span.style) for span in text.spans) and any("https://example.org/card" in str(span.style) for span in text.spans)


def test_numbers_survive_every_format() -> None:
    blocks = [LeadBlock(text="**1,234.5 GB** at 99.9% [1]")]
    for render in RENDERERS.values():
        assert re.findall(r"\d[\d,.]*", render(blocks, "en")) == ["1,234.5", "99.9", "1"]
