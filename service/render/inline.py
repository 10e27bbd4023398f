"""The inline subset that block text may contain (see service/contract/blocks.py):
`**bold**`, `` `code` ``, `[n]` citation markers and `[label](https://url)` links.

Renderers tokenise with `tokens()` and translate each kind; anything else is plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

INLINE = re.compile(r"\*\*(?P<bold>[^*\n]+?)\*\*|`(?P<code>[^`\n]+)`|\[(?P<label>[^\]\n]+)\]\((?P<url>https?://[^)\s]+)\)|\[(?P<cite>\d+)\]")


@dataclass(frozen=True)
class Token:
    kind: Literal["text", "bold", "code", "cite", "link"]
    text: str
    url: str | None = None


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    for m in INLINE.finditer(text):
        if m.start() > pos:
            out.append(Token("text", text[pos:m.start()]))
        if m.group("bold") is not None:
            out.append(Token("bold", m.group("bold")))
        elif m.group("code") is not None:
            out.append(Token("code", m.group("code")))
        elif m.group("url") is not None:
            out.append(Token("link", m.group("label"), m.group("url")))
        else:
            out.append(Token("cite", f"[{m.group('cite')}]"))
        pos = m.end()
    if pos < len(text):
        out.append(Token("text", text[pos:]))
    return out


def plain(text: str) -> str:
    """Inline text without markup: bold and code lose their marks, links show their address."""
    parts = []
    for token in tokens(text):
        if token.kind == "link":
            parts.append(f"{token.text} <{token.url}>")
        else:
            parts.append(token.text)
    return "".join(parts)
