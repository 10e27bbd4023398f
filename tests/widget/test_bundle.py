"""widget.js as served: one bundle of the sources, small, self-contained; the demo page and its redirect."""

from __future__ import annotations

import gzip
import re
from importlib.resources import files

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.config import Settings
from service.runtime import Runtime
from service.widget import build_bundle
from service.widget.bundle import SOURCES

MAX_GZIP_BYTES = 60 * 1024


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    settings = Settings(data_dir=tmp_path_factory.mktemp("widget-routes"), environment="test", widget_keys=["pk_demo_key"])
    return TestClient(create_app(runtime=Runtime(settings)), raise_server_exceptions=False)


def test_bundle_holds_every_source_dompurify_and_the_stylesheet_inside_one_scope() -> None:
    script = build_bundle().script.decode()
    for name in SOURCES:
        assert f"// ---- {name} ----" in script
    assert "DOMPurify" in script and "var WIDGET_CSS = " in script
    assert script.startswith("/*!") and script.rstrip().endswith("})();")
    assert "sourceMappingURL" not in script


def test_bundle_is_under_60_kb_gzipped_and_loads_nothing_from_elsewhere() -> None:
    bundle = build_bundle()
    assert len(bundle.gzipped) < MAX_GZIP_BYTES, len(bundle.gzipped)
    assert gzip.decompress(bundle.gzipped) == bundle.script
    sources = "".join(files("service.widget").joinpath("src", name).read_text(encoding="utf-8") for name in SOURCES)
    assert not re.search(r"""(import\s*\(|importScripts|["']https?://(?!www\.w3\.org/2000/svg"))""", sources)
    assert "innerHTML" not in sources  # markup enters the DOM only through DOMPurify


def test_ui_strings_exist_in_both_languages() -> None:
    source = files("service.widget").joinpath("src", "strings.js").read_text(encoding="utf-8")
    en, zh = re.split(r'^\s*"zh-CN": \{', source, flags=re.M)
    keys = lambda text: set(re.findall(r"^\s{4}(\w+):", text, flags=re.M))  # noqa: E731
    assert keys(en) == keys(zh) and len(keys(en)) > 40


def test_widget_js_is_served_gzipped_with_an_etag_and_revalidates(client) -> None:
    response = client.get("/widget.js", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["content-encoding"] == "gzip"
    assert response.content == build_bundle().script  # httpx decodes gzip
    again = client.get("/widget.js", headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304


def test_dompurify_and_its_licence_are_served(client) -> None:
    purify = client.get("/widget/purify.min.js")
    assert purify.status_code == 200 and "DOMPurify 3." in purify.text[:200]
    assert "Apache License" in client.get("/widget/LICENSE.dompurify.txt").text


def test_demo_page_embeds_the_widget_with_its_publishable_key_and_root_leads_there(client) -> None:
    page = client.get("/demo?lang=zh-CN&theme=dark").text
    tag = re.search(r"<script src=\"/widget.js\"[^>]*>", page).group(0)
    assert 'data-key="pk_demo_key"' in tag and 'data-lang="zh-CN"' in tag and 'data-theme="dark"' in tag and "defer" in tag
    assert 'data-lang="auto"' in client.get("/demo?lang=<script>").text
    root = client.get("/", follow_redirects=False)
    assert root.status_code in (302, 307) and root.headers["location"] == "/demo"
