"""Encoder vectors of fixed texts, computed once and stored with the index, so an answer encodes only what the user wrote.

Fixed texts are the ones an answer would otherwise embed over and over: the sentences, headings and texts of the
knowledge sections a composer scores, the exemplars the router compares a question with, the search queries the
handlers send. Which texts those are is decided above retrieval (service/assistant/fixed_texts.py); this module stores
and finds their vectors.

A table is one file, `index-cache/text-vectors-<encoder>-<set>.npy`: a structured array of (sha256 of the text, its
unit vector), sorted by digest, read memory-mapped. <encoder> is a digest of the encoder's identity and <set> a digest
the caller gives for the set of texts (the index's content and the definition of what is fixed), so a process that
finds its file reads it without computing the set. Building a table for a new set reuses every vector of an earlier
table of the same encoder whose text is unchanged and embeds only the rest: a changed sentence re-embeds itself, a
changed encoder everything. Files are replaced atomically and built under a lock, so workers starting together embed
once; an unwritable directory keeps the table in memory only.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

PREFIX = "text-vectors-"
DIGEST_BYTES = 16
# Texts are embedded one per run (batches pad, which shifts the quantized encoder's output), on this many threads:
# ONNX Runtime releases the GIL, so a table builds about twice as fast on two cores.
BUILD_THREADS = 2

Encode = Callable[[str], np.ndarray]  # one text -> its unit vector


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:DIGEST_BYTES]


def encoder_tag(identity: str) -> str:
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:12]


class TextVectors:
    """A read-only table: text -> vector, for the texts it was built from."""

    def __init__(self, keys: np.ndarray, vectors: np.ndarray, path: Path | None = None) -> None:
        # keys: (n, DIGEST_BYTES) uint8, not numpy's "S" strings, which drop a digest's trailing zero bytes.
        self.keys, self.vectors, self.path = keys, vectors, path
        self._row_of: dict[bytes, int] | None = None

    @classmethod
    def empty(cls, dim: int = 0) -> TextVectors:
        return cls(np.zeros((0, DIGEST_BYTES), dtype=np.uint8), np.zeros((0, dim), dtype=np.float32))

    def __len__(self) -> int:
        return len(self.keys)

    def row(self, text: str) -> np.ndarray | None:
        """The stored vector of text (read-only), or None."""
        return self.row_by_key(text_digest(text))

    def row_by_key(self, key: bytes) -> np.ndarray | None:
        if self._row_of is None:
            # Built on first use, not at load: about 10 ms for 10,000 rows that a start-up need not wait for.
            raw = np.ascontiguousarray(self.keys).tobytes()
            self._row_of = {raw[i * DIGEST_BYTES : (i + 1) * DIGEST_BYTES]: i for i in range(len(self.keys))}
        found = self._row_of.get(key)
        return None if found is None else self.vectors[found]


def find(directory: Path, identity: str, set_key: str) -> TextVectors | None:
    """The stored table for this encoder and set, from this process's memory, its file or the user cache; None when it
    must be built."""
    tag = encoder_tag(identity)
    name = f"{PREFIX}{tag}-{set_key}.npy"
    path = directory / name
    table = _read(path)
    if table is None:
        # A new data directory of content this process has indexed, or that another data directory holds (a second
        # checkout, the test suite): copied in, atomically.
        table = _MEMORY.get(name) or _read(user_cache_dir() / name)
        if table is not None:
            _write(path, table, stale=f"{PREFIX}{tag}-*.npy")
    if table is not None:
        _remember(name, table)
    return table


def load_or_build(directory: Path, identity: str, set_key: str, texts: Callable[[], Iterable[str]], encode: Encode) -> tuple[TextVectors, int]:
    """The table for this encoder and set: from this process's memory, its file, or the user cache, else built now (and
    saved in both places). Returns it and how many texts were embedded to build it (0 when it was found)."""
    tag = encoder_tag(identity)
    name = f"{PREFIX}{tag}-{set_key}.npy"
    path = directory / name
    if (table := find(directory, identity, set_key)) is not None:
        return table, 0
    with _lock(directory):
        table = _read(path)  # another worker may have built it while this one waited
        if table is None and (shared := _read(user_cache_dir() / name)) is not None:
            table = shared  # the same content indexed in another data directory (a second checkout, the test suite)
            _write(path, table, stale=f"{PREFIX}{tag}-*.npy")
        if table is not None:
            _remember(name, table)
            return table, 0
        candidates = [*directory.glob(f"{PREFIX}{tag}-*.npy"), *user_cache_dir().glob(f"{PREFIX}{tag}-*.npy")]
        earlier = [t for t in (_read(p) for p in candidates) if t is not None]
        table, embedded = build(list(texts()), encode, earlier)
        _write(path, table, stale=f"{PREFIX}{tag}-*.npy")
        _write(user_cache_dir() / name, table, stale=f"{PREFIX}{tag}-*.npy")
        _remember(name, table)
        return table, embedded


def user_cache_dir() -> Path:
    """Outside any data directory: where tables of one index content are shared between data directories."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-deployment-advisor"


_MEMORY: dict[str, TextVectors] = {}  # file name -> table, the last few this process used
_MEMORY_TABLES = 4


def _remember(name: str, table: TextVectors) -> None:
    _MEMORY.pop(name, None)
    _MEMORY[name] = table
    while len(_MEMORY) > _MEMORY_TABLES:
        _MEMORY.pop(next(iter(_MEMORY)))


def build(texts: list[str], encode: Encode, earlier: Iterable[TextVectors] = ()) -> tuple[TextVectors, int]:
    """A table for exactly these texts: vectors of earlier tables where the text is unchanged, the rest embedded."""
    unique = {text_digest(t): t for t in texts}
    keys = sorted(unique)
    found: dict[bytes, np.ndarray] = {}
    for table in list(earlier):
        for key in keys:
            if key not in found and (row := table.row_by_key(key)) is not None:
                found[key] = row
    missing = [k for k in keys if k not in found]
    with ThreadPoolExecutor(BUILD_THREADS) as pool:
        for key, vector in zip(missing, pool.map(lambda k: encode(unique[k]), missing), strict=True):
            found[key] = vector
    dim = len(next(iter(found.values()))) if found else 0
    vectors = np.stack([np.asarray(found[k], dtype=np.float32) for k in keys]) if keys else np.zeros((0, dim), dtype=np.float32)
    key_rows = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), DIGEST_BYTES)
    return TextVectors(key_rows, vectors), len(missing)


def _read(path: Path) -> TextVectors | None:
    """The table in path, memory-mapped; None when it is missing or not a table (a foreign or truncated file)."""
    try:
        stored = np.load(path, mmap_mode="r")
    except (OSError, ValueError):
        return None
    if stored.dtype.names != ("key", "vector"):
        return None
    return TextVectors(stored["key"], stored["vector"], path)


def _write(path: Path, table: TextVectors, *, stale: str) -> None:
    dim = table.vectors.shape[1] if table.vectors.ndim == 2 else 0
    rows = np.empty(len(table), dtype=[("key", "u1", (DIGEST_BYTES,)), ("vector", "<f4", (dim,))])
    rows["key"], rows["vector"] = table.keys, table.vectors
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp.npy")
        np.save(temporary, rows)
        os.replace(temporary, path)  # atomic: a reader maps the old file or the whole new one
        for other in path.parent.glob(stale):
            if other != path:
                other.unlink(missing_ok=True)  # an earlier set's table: processes that mapped it keep their mapping
    except OSError:
        pass  # a read-only data directory: the table lives in this process only


@contextmanager
def _lock(directory: Path) -> Iterator[None]:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle = open(directory / "text-vectors.lock", "w")
    except OSError:
        yield  # unwritable: nothing to coordinate, nothing will be saved
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
