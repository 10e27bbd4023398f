"""The router's exemplar matrix: embedded once, then read from memory or from the cache keyed by content hash."""

from __future__ import annotations

import numpy as np

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
