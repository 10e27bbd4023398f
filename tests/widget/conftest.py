"""The widget in a real browser: the real app on uvicorn (127.0.0.1), host pages on other ports, headless Chromium.

The knowledge base is the packaged one plus one hostile document (markup and script in its title and
text), ingested incrementally on top of the session's shared index. The app requires API keys, so the
widget works only through its publishable key, and only from the allowed host origin (and its own).
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from service.api.app import create_app
from service.assistant.llm_double import LoopbackServer
from service.config import Settings
from service.runtime import Runtime

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / ".advisor-artifacts" / "widget"
API_KEY = "sk-widget-tests-secret"
WIDGET_KEY = "pk_widget_tests"

# A knowledge document an attacker might get into the corpus: everything here must render as text.
XSS_MARKER = "quokkafabric"
HOSTILE_DOC = f"""\
---
id: {XSS_MARKER}-tuning
title: "Tuning the {XSS_MARKER} interconnect <img src=x onerror=\\"window.__xss=1;alert(1)\\"><script>window.__xss=2</script>"
language: en
topics: [networking]
sources:
  - title: "{XSS_MARKER} notes <svg onload=alert(3)>"
    url: 'https://example.com/notes"onmouseover="alert(4)'
last_reviewed: 2026-11-29
---

# Tuning the {XSS_MARKER} interconnect

## What {XSS_MARKER} is

The {XSS_MARKER} interconnect links GPU nodes for NCCL all-reduce traffic <img src=x onerror="window.__xss=5;alert(5)">
and needs its ring buffers tuned <script>window.__xss=6;alert(6)</script> before training starts.
See [the guide](javascript:alert(7)) and **bold <b onmouseover=alert(8)>text</b>**.

## Tuning {XSS_MARKER} for NCCL

Set the {XSS_MARKER} ring buffer to match the NCCL bucket size <iframe src="javascript:alert(9)"></iframe> and re-run all_reduce_perf.
"""

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed at /usr/bin/chromium "
                                    "(apt-get install -y chromium fonts-wqy-microhei; .ci/run does this)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(needs_chromium)


class HostPages:
    """A plain static web server on its own port: a third-party site embedding the widget."""

    def __init__(self, pages: dict[str, str]) -> None:
        pages_ = pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                body = pages_.get(self.path.split("?")[0])
                status = 200 if body is not None else 404
                data = (body or "not found").encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:  # keep test output clean
                pass

        self.pages = pages
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> HostPages:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def host_page(script_src: str, extra_head: str = "", attributes: str = "") -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner site</title>{extra_head}</head>
<body><h1>Partner site</h1><p id="host-text">Some host content.</p><button id="host-button">Host button</button>
<script src="{script_src}" data-key="{WIDGET_KEY}" data-lang="en"{attributes} defer></script></body></html>"""


@pytest.fixture(scope="session")
def widget_knowledge(knowledge_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("widget-knowledge") / "knowledge"
    shutil.copytree(knowledge_copy, target)
    (target / "docs" / "en" / f"{XSS_MARKER}-tuning.md").write_text(HOSTILE_DOC, encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def widget_data_dir(indexed_data_dir: Path, widget_knowledge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's index plus the hostile document (incremental ingest embeds only the new file)."""
    from service.catalog import default_catalog
    from service.retrieval import ingest

    data_dir = tmp_path_factory.mktemp("widget-data") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    ingest(Settings(data_dir=data_dir, knowledge_dir=widget_knowledge, environment="test"), default_catalog(widget_knowledge))
    return data_dir


@pytest.fixture(scope="session")
def host_sites() -> Iterator[tuple[HostPages, HostPages]]:
    """(allowed, refused): two third-party sites; only the first is in ADVISOR_WIDGET_ORIGINS."""
    with HostPages({}) as allowed, HostPages({}) as refused:
        yield allowed, refused


@pytest.fixture(scope="session")
def app_url(widget_data_dir: Path, widget_knowledge: Path, host_sites) -> Iterator[str]:
    allowed, _ = host_sites
    settings = Settings(
        data_dir=widget_data_dir, knowledge_dir=widget_knowledge, environment="test", llm_provider="none",
        api_keys=[API_KEY], widget_keys=[WIDGET_KEY], widget_origins=[allowed.origin],
        # The browser tests ask many questions from one IP; the limiter itself is tested in tests/api.
        widget_rate_limit_visitor="1000/minute",
    )  # fmt: skip
    with LoopbackServer(create_app(runtime=Runtime(settings))) as server:
        deadline = time.monotonic() + 180
        while httpx.get(f"{server.url}/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.1)
        for site in host_sites:
            site.pages["/"] = host_page(f"{server.url}/widget.js")
        yield server.url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class PageWatch:
    """Evidence of script running where it must not: dialogs, page errors, console messages."""

    def __init__(self, page) -> None:
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.watch = PageWatch(page)
    yield page
    context.close()


@pytest.fixture
def zh_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.watch = PageWatch(page)
    yield page
    context.close()


def save_screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    print(f"screenshot: {path}")
    return path


def dump(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)[:2000]
