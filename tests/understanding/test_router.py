"""The router's exemplar matrix: embedded once, then read from memory or from the cache keyed by content hash."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from service.understanding import router as router_module
from service.understanding.registry import Exemplar
from service.understanding.router import SemanticRouter


class _Counting:
    def __init__(self, identity: str) -> None:
        self.identity, self.calls = identity, 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += len(texts)
        rows = np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


EXEMPLARS = (Exemplar("hi", "smalltalk", "en"), Exemplar("how long to train a 7b", "sizing", "en", "time"))


def test_exemplars_are_embedded_once_and_cached_by_content_hash(tmp_path):
    encoder = _Counting("counting-test-1")
    first = SemanticRouter(encoder, EXEMPLARS, digest="d1", cache_dir=tmp_path)
    assert encoder.calls == 2 and (tmp_path / next(p.name for p in tmp_path.iterdir())).is_file()
    SemanticRouter(encoder, EXEMPLARS, digest="d1", cache_dir=tmp_path)
    assert encoder.calls == 2  # from memory
    router_module._MATRICES.clear()  # as a new process would start
    again = SemanticRouter(encoder, EXEMPLARS, digest="d1", cache_dir=tmp_path)
    assert encoder.calls == 2 and np.allclose(again.matrix, first.matrix)  # from the file
    SemanticRouter(encoder, EXEMPLARS, digest="d2", cache_dir=tmp_path)  # the data changed: embed again
    assert encoder.calls == 4
    assert len(list(tmp_path.glob("router-*.npy"))) == 1  # the stale matrix is gone


def test_similarities_are_one_product(tmp_path):
    router = SemanticRouter(_Counting("counting-test-2"), EXEMPLARS, digest="d3", cache_dir=tmp_path)
    sims = router.similarities(router.embed("hi"))
    assert sims.shape == (2,) and sims[0] == max(sims)


def _cached_file(tmp_path, digest: str, identity: str):
    SemanticRouter(_Counting(identity), EXEMPLARS, digest=digest, cache_dir=tmp_path)
    router_module._MATRICES.clear()  # as a new process would start, finding the file
    return next(tmp_path.glob(f"router-{digest}-*.npy"))


def _garbage(path) -> None:
    path.write_bytes(b"\x93NUMPY not really " * 8)


def _truncated(path) -> None:
    path.write_bytes(path.read_bytes()[:-5])


def _wrong_width(path) -> None:
    np.save(path, np.ones((len(EXEMPLARS), 7), dtype=np.float32))  # right rows, another encoder's width


def _not_finite(path) -> None:
    np.save(path, np.full((len(EXEMPLARS), 2), np.nan, dtype=np.float32))


@pytest.mark.parametrize("damage", [_garbage, _truncated, _wrong_width, _not_finite], ids=lambda f: f.__name__.strip("_"))
def test_a_damaged_cache_is_discarded_and_rebuilt_with_one_warning(tmp_path, monkeypatch, caplog, damage) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # only the cache under test is read
    cache = tmp_path / "data"
    path = _cached_file(cache, "d9", f"damaged-{damage.__name__}")
    damage(path)
    encoder = _Counting(f"damaged-{damage.__name__}")
    with caplog.at_level(logging.WARNING, logger="advisor.understanding"):
        router = SemanticRouter(encoder, EXEMPLARS, digest="d9", cache_dir=cache)
    assert encoder.calls == len(EXEMPLARS), "embedded again"
    assert router.similarities(router.embed("hi")).shape == (len(EXEMPLARS),)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and path.name in warnings[0].getMessage()
    router_module._MATRICES.clear()
    assert np.allclose(np.load(path), router.matrix), "the rebuilt matrix replaced the damaged file"
