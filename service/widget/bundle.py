"""widget.js: the source files concatenated into one script, built once per process.

No JS build tool: the sources are plain ES2017 that browsers run as they are. They are kept in
several files (each a part: strings, SSE parser, inline text, charts, blocks, panel, controller)
and joined here inside one function scope, so nothing but `window.GpuAdvisor` reaches the host
page. DOMPurify's UMD wrapper sees a local `module`, so it registers neither a global nor an AMD
module and cannot clash with a host page's own copy.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

# Order matters: later files use functions from earlier ones.
SOURCES = ("strings.js", "sse.js", "inline.js", "chart.js", "blocks.js", "panel.js", "conversation.js", "main.js")
STYLESHEET = "widget.css"
PURIFY = "purify.min.js"


@dataclass(frozen=True)
class WidgetBundle:
    script: bytes
    gzipped: bytes
    etag: str


def _text(*parts: str) -> str:
    return files("service.widget").joinpath(*parts).read_text(encoding="utf-8")


def bundle_source() -> str:
    purify = "\n".join(line for line in _text("static", PURIFY).splitlines() if not line.startswith("//# sourceMappingURL"))
    body = "\n".join(f"// ---- {name} ----\n{_text('src', name)}" for name in SOURCES)
    return (
        "/*! GPU Deployment Advisor chat widget. Includes DOMPurify (Apache-2.0 / MPL-2.0, see /widget/LICENSE.dompurify.txt). */\n"
        "(function () {\n"
        "var module = { exports: {} }, exports = module.exports, define;\n"
        f"{purify}\n"
        "var DOMPurify = module.exports;\n"
        f"var WIDGET_CSS = {json.dumps(_text('src', STYLESHEET))};\n"
        f"{body}\n"
        "})();\n"
    )


@lru_cache(maxsize=1)
def build_bundle() -> WidgetBundle:
    script = bundle_source().encode("utf-8")
    # mtime=0: the same sources give the same bytes (and ETag) on every start.
    return WidgetBundle(script=script, gzipped=gzip.compress(script, compresslevel=9, mtime=0),
                        etag='"' + hashlib.sha256(script).hexdigest()[:32] + '"')
