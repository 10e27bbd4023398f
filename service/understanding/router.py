"""The semantic router: the question's nearest exemplars under the bundled multilingual encoder.

The exemplar matrix is embedded once per process (and per content of the data files) and kept in
memory; a question then costs one embedding and one matrix product. Votes are similarity-weighted
over the top k neighbours, so a question close to several phrasings of one intent outweighs a
single lucky match.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from service.assistant.input_bounds import embedding_window
from service.understanding.registry import Exemplar

TOP_K = 12
log = logging.getLogger("advisor.understanding")


class Encoder(Protocol):
    identity: str

    def encode(self, texts: list[str]) -> np.ndarray: ...  # unit-length rows


_MATRICES: dict[tuple[str, str], np.ndarray] = {}
_LOCK = threading.Lock()


def default_cache_dir() -> Path:
    """Outside the repository: embedded exemplars are derived data (keyed by content hash and encoder)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-deployment-advisor"


class SemanticRouter:
    def __init__(self, encoder: Encoder, exemplars: Sequence[Exemplar], *, digest: str, k: int = TOP_K, cache_dir: Path | None = None) -> None:
        self.encoder, self.exemplars, self.k = encoder, tuple(exemplars), k
        self.matrix = _matrix(encoder, self.exemplars, digest, cache_dir or default_cache_dir())

    def embed(self, text: str) -> np.ndarray:
        return self.encoder.encode([embedding_window(text)])[0]

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of the question to every exemplar (rows are unit length)."""
        return self.matrix @ vector


def _matrix(encoder: Encoder, exemplars: tuple[Exemplar, ...], digest: str, cache_dir: Path) -> np.ndarray:
    """The exemplar embeddings: from memory, else from cache_dir or the user cache, else embedded now (and saved)."""
    identity = getattr(encoder, "identity", type(encoder).__name__)
    key = (identity, digest)
    with _LOCK:
        if key in _MATRICES:
            return _MATRICES[key]
        encoder_tag = hashlib.sha256(identity.encode()).hexdigest()[:8]
        name = f"router-{digest}-{encoder_tag}.npy"
        matrix, source = None, None
        for directory in dict.fromkeys((cache_dir, default_cache_dir())):
            if (directory / name).is_file():
                matrix = _load(directory / name, len(exemplars))
                if matrix is not None:
                    source = directory
                    break
        if matrix is None:
            matrix = encoder.encode([e.text for e in exemplars]).astype(np.float32)
        if source != cache_dir:
            _save(cache_dir, name, matrix, encoder_tag)  # also replaces a damaged file there: it is derived data
        _MATRICES[key] = matrix
        return matrix


def _load(path: Path, rows: int) -> np.ndarray | None:
    """A cached matrix, or None when the file is not one this router could have written (garbage, a torn write, the wrong
    shape, rows that are not unit length): a bad cache costs one embedding and a warning, never a failed question."""
    try:
        matrix = np.load(path, allow_pickle=False)
        if matrix.ndim != 2 or matrix.shape[0] != rows or matrix.dtype.kind != "f":
            raise ValueError(f"shape {matrix.shape}, dtype {matrix.dtype}")
        norms = np.linalg.norm(matrix, axis=1)
        if not np.all(np.isfinite(norms)) or not np.allclose(norms, 1.0, atol=1e-3):
            raise ValueError("rows are not unit length")
    except (OSError, ValueError, EOFError) as exc:  # np.load raises ValueError for a bad header or a short read
        log.warning("router cache %s is unusable (%s): embedding the exemplars again", path, exc)
        return None
    return matrix.astype(np.float32, copy=False)


def _save(directory: Path, name: str, matrix: np.ndarray, encoder_tag: str) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / f"{name}.{os.getpid()}.tmp.npy"
        np.save(tmp, matrix)
        os.replace(tmp, directory / name)  # atomic: a concurrent reader never sees half a file
        for stale in directory.glob(f"router-*-{encoder_tag}.npy"):
            if stale.name != name:
                stale.unlink(missing_ok=True)  # embeddings of data files that have since changed
    except OSError:
        pass  # a read-only directory: keep it in memory only
