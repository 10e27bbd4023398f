"""Inline text of answer blocks -> Slack mrkdwn (and plain text), escaped so nothing can ping anyone.

Block text holds only `**bold**`, `` `code` ``, `[n]` markers and `[label](https://url)` links
(see service/contract/blocks.py). Everything else is literal, so `&`, `<` and `>` are escaped
everywhere: `<!channel>`, `<!here>` and `<@U123>` in an answer then show as text instead of
notifying people.
"""

from __future__ import annotations

from service.render.inline import tokens

# Characters that end a Slack link or split it into url|label; percent-encoding keeps the URL valid.
_URL_UNSAFE = {"<": "%3C", ">": "%3E", "|": "%7C", " ": "%20"}


def escape(text: str) -> str:
    """Slack's three control characters, as Slack's docs require."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def safe_url(url: str) -> str:
    return "".join(_URL_UNSAFE.get(ch, ch) for ch in url)


def link(url: str, label: str) -> str:
    """A mrkdwn link; the label is escaped and may not contain `|`."""
    return f"<{safe_url(url)}|{escape(label.replace('|', '/'))}>"


def to_mrkdwn(text: str) -> str:
    """Inline text -> mrkdwn: **bold** -> *bold*, `code` kept, [label](url) -> <url|label>, [n] kept."""
    out: list[str] = []
    for token in tokens(text):
        if token.kind == "bold":
            out.append(f"*{escape(token.text.strip())}*")
        elif token.kind == "code":
            out.append(f"`{escape(token.text)}`")
        elif token.kind == "link":
            out.append(link(token.url or "", token.text))
        else:  # text and [n] markers
            out.append(escape(token.text))
    return "".join(out)


def to_plain(text: str) -> str:
    """Inline text -> plain text for notifications (`text` fallback): markup dropped, still escaped."""
    return escape("".join(f"{t.text} ({t.url})" if t.kind == "link" else t.text for t in tokens(text)))


def code_block(lines: list[str]) -> str:
    return "```" + escape("\n".join(lines).replace("```", "'''")) + "```"


def truncate(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut at a line or word boundary when one is near, never inside an escape sequence."""
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ellipsis)]
    boundary = max(cut.rfind("\n"), cut.rfind(" "))
    if boundary >= limit * 0.7:
        cut = cut[:boundary]
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]  # a half-cut &amp; would show as garbage
    # An unclosed <url|label> would swallow the rest; drop it.
    lt = cut.rfind("<")
    if lt != -1 and ">" not in cut[lt:]:
        cut = cut[:lt]
    return cut.rstrip() + ellipsis
