"""The same ingest and search against a real Chroma server (settings.chroma_url -> chromadb.HttpClient)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.config import Settings
from service.errors import RetrievalError
from service.retrieval import ingest, open_index
from service.retrieval.store import ChromaStore
from tests.retrieval.conftest import small_catalog, write_small_knowledge

CHROMA = shutil.which("chroma", path=str(Path(sys.executable).parent))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert CHROMA, "the chroma server entry point ships with the chromadb package"
    port = free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    server = subprocess.Popen(
        [CHROMA, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        else:
            pytest.fail("the Chroma server did not start within 30 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_ingest_and_search_through_a_chroma_server(tmp_path: Path, chroma_url: str) -> None:
    settings = Settings(data_dir=tmp_path / "data", knowledge_dir=write_small_knowledge(tmp_path / "knowledge"), chroma_url=chroma_url)
    first = ingest(settings, small_catalog())
    assert first.chunks > 8 and not first.skipped
    assert not (settings.index_dir / "chroma.sqlite3").exists(), "nothing was stored locally"

    index = open_index(settings, small_catalog())
    assert index.info["store"] == chroma_url
    assert index.search("断点续训", k=1)[0].doc_id == "checkpoints"
    assert index.search("which memory does Adam need", k=1, language="zh")[0].language == "zh"

    again = ingest(settings, small_catalog())
    assert again.skipped and again.collection == first.collection
    store = ChromaStore(settings)
    assert store.active_name() == first.collection and store.orphans() == []


def test_a_malformed_chroma_url_is_a_retrieval_error(tmp_path: Path) -> None:
    with pytest.raises(RetrievalError, match="http://host:port"):
        ChromaStore(Settings(data_dir=tmp_path, chroma_url="localhost:8000"))


def test_an_unreachable_chroma_server_is_a_retrieval_error(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, knowledge_dir=write_small_knowledge(tmp_path / "knowledge"), chroma_url=f"http://127.0.0.1:{free_port()}"
    )
    with pytest.raises(RetrievalError, match="Chroma"):
        open_index(settings, small_catalog())
