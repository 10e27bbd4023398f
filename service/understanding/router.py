"""The semantic router: the question's nearest exemplars under the bundled multilingual encoder.

The exemplar matrix is embedded once per process (and per content of the data files) and kept in
memory; a question then costs one embedding and one matrix product. Votes are similarity-weighted
over the top k neighbours, so a question close to several phrasings of one intent outweighs a
single lucky match.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from service.assistant.input_bounds import embedding_window
from service.understanding.registry import Exemplar

TOP_K = 12


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
        matrix = None
        for directory in dict.fromkeys((cache_dir, default_cache_dir())):
            if (directory / name).is_file():
                loaded = np.load(directory / name)
                if loaded.shape[0] == len(exemplars):
                    matrix = loaded
                    break
        if matrix is None:
            matrix = encoder.encode([e.text for e in exemplars]).astype(np.float32)
        if not (cache_dir / name).is_file():
            _save(cache_dir, name, matrix, encoder_tag)
        _MATRICES[key] = matrix
        return matrix


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
