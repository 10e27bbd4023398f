"""The /admin page in headless Chromium against the real app on uvicorn (127.0.0.1), as the widget tests do."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api.app import create_app
from service.assistant.llm_double import LoopbackServer
from service.config import Settings
from service.runtime import Runtime
from tests.widget.conftest import CHROMIUM, CHROMIUM_ARGS, PageWatch

ARTIFACTS = Path(__file__).resolve().parents[2] / ".advisor-artifacts"
API_KEY, ADMIN_KEY = "sk-admin-page-tests-api", "sk-admin-page-tests-admin"

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is not installed at /usr/bin/chromium (apt-get install -y chromium fonts-wqy-microhei; .ci/run does this)"
)


@pytest.fixture(scope="session")
def admin_app(indexed_data_dir: Path, knowledge_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Runtime]]:
    data_dir = tmp_path_factory.mktemp("admin-page") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    settings = Settings(
        data_dir=data_dir,
        knowledge_dir=knowledge_copy,
        environment="test",
        llm_provider="none",
        api_keys=[API_KEY],
        admin_keys=[ADMIN_KEY],
        store_questions=True,
    )
    runtime = Runtime(settings)
    with LoopbackServer(create_app(runtime=runtime)) as server:
        deadline = time.monotonic() + 180
        while httpx.get(f"{server.url}/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.1)
        yield server.url, runtime


@pytest.fixture(scope="module")  # not session: a live sync Playwright keeps an event loop running, which breaks asyncio.run() in later tests
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def new_page(browser, locale: str):
    context = browser.new_context(viewport={"width": 1280, "height": 1400}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.watch = PageWatch(page)
    return context, page
