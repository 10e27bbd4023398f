"""The open knowledge index: hybrid search (Chroma vectors + BM25) over the active collection.

Chunk texts and metadata of the active collection are held in memory (a few
MB): BM25 is rebuilt from them on open, hits are assembled from them without a
second round trip, and filters are applied on both sides from the same data.
Searches only read an immutable snapshot, so concurrent readers need no lock;
a reload (after another process re-ingested) swaps the snapshot in one step. The snapshot
and its loading from the store are in snapshot.py.

With the embedded store the vectors are held in memory too, and the dense side is an exact
cosine search (one matrix product over a few thousand rows, well under a millisecond), which
is both faster and more exact than an HNSW query through Chroma's filtered path. Against a
Chroma server the query goes to the server, whose index is the shared source of truth.

Section questions (questions.py) are rows of the same collection and of the
same BM25 corpus; a question that matches lends its score to its section's
chunks (the best of chunk and question counts), so results stay chunks,
deduplicated by chunk id, and fusion is unchanged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from service.catalog import Catalog
from service.config import Settings
from service.retrieval.embeddings import IndexEmbeddings, embedder_identity, make_embedder
from service.retrieval.fixed_vectors import FixedVectors
from service.retrieval.fusion import fuse
from service.retrieval.models import Hit, SearchMode
from service.retrieval.names import named_documents
from service.retrieval.snapshot import Snapshot, load_snapshot
from service.retrieval.store import ChromaStore, backend_failure, is_not_found
from service.retrieval.text import Sentences, query_language, snippet, snippet_sentences, tokenize

# Candidates taken from each side before fusion.
POOL = 50
# Vector neighbours fetched when questions share the collection: many of them collapse onto the same chunks.
QUESTION_POOL = 100
# A question's evidence relative to the chunk's own (dense cosine, BM25 score on the shared corpus).
QUESTION_DENSE = 1.0
QUESTION_LEXICAL = 0.5
# Cross-lingual question-to-question similarity is noisy for short texts: a question in the other
# language than the query's counts this much (0: only the chunk's own vector counts).
QUESTION_OTHER_LANGUAGE = 0.5
EMBED_CACHE = 20_000  # texts; about 40 MB of 512-d float32 vectors at most
# Sections with one heading across documents (every GPU card's "Interconnect and power") answer a general question
# ("what is NVSwitch") alike: past this many, further ones give way to other documents unless the question names them.
MAX_SAME_HEADING = 2


class KnowledgeIndex:
    def __init__(self, store: ChromaStore, embedder: IndexEmbeddings | Future[IndexEmbeddings], settings: Settings) -> None:
        """embedder may still be loading (a Future, see open_index): the snapshot is read meanwhile."""
        self._store = store
        self._identity = embedder_identity(settings) if isinstance(embedder, Future) else embedder.identity
        self._token_cache = settings.data_dir / "index-cache"
        self._dense_weight = settings.dense_weight
        self._bm25_weight = settings.bm25_weight
        self._reload_lock = threading.Lock()
        self._vectors: dict[str, np.ndarray] = {}  # embed() cache
        self._vectors_lock = threading.Lock()
        self._fixed = FixedVectors(self._token_cache)  # vectors of fixed texts, stored with the index (use_fixed_texts)
        self._files_seen = self._index_files()
        self._snapshot = self._load()
        self._embedder: IndexEmbeddings = embedder.result() if isinstance(embedder, Future) else embedder

    # -- public --------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        k: int = 5,
        language: str | None = None,
        topics: list[str] | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[Hit]:
        """The k best chunks for a question; language and topics (any of them) filter before ranking."""
        snap = self._follow_reingest(self._snapshot)
        terms = tokenize(query)
        try:
            dense = self._dense(snap, query, language, topics) if mode != "bm25" else []
        except Exception as exc:
            if not is_not_found(exc):
                raise
            # Another process re-ingested and deleted this collection: follow the pointer once.
            snap = self.reload()
            dense = self._dense(snap, query, language, topics) if mode != "bm25" else []
        if mode == "dense":
            ranked = dense
        elif mode == "bm25":
            ranked = _top(self._lexical(snap, terms, language, topics))
        else:
            named = np.isin(snap.doc_of_row, [snap.doc_numbers[d] for d in named_documents(query, snap.names)])
            ranked = fuse(
                dict(dense),
                self._lexical(snap, terms, language, topics),
                snap.doc_of_row,
                snap.languages,
                query_language(query),
                named,
                dense_weight=self._dense_weight,
                bm25_weight=self._bm25_weight,
                pool=POOL,
            )
            ranked = _spread_headings(ranked, snap, named, k)
        query_terms = set(terms)
        return [self._hit(snap, row, score, query_terms) for row, score in ranked[:k]]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length vectors from the index's own encoder (rows in order).

        Fixed texts (knowledge sentences, headings, the handlers' queries) come from the table stored with the index
        (use_fixed_texts); anything else, in practice the user's words, is encoded once and kept in a bounded cache,
        since a turn embeds its question for the router, the retriever and the composer.
        """
        known = self._fixed.rows(texts, self._embedder)
        with self._vectors_lock:
            known.update({t: self._vectors[t] for t in texts if t not in known and t in self._vectors})
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if len(missing) > 1 and self._fixed.known:
            # With fixed texts stored, what is left is the user's own words asked for together (the parts of a question):
            # one encoder run for all of them, kept out of the per-text cache.
            known.update(zip(missing, self._embedder.encode_together(missing), strict=True))
        elif missing:
            fresh = dict(zip(missing, self._embedder.encode(missing), strict=True))
            known.update(fresh)
            with self._vectors_lock:
                for text, vector in fresh.items():
                    if len(self._vectors) >= EMBED_CACHE:
                        self._vectors.pop(next(iter(self._vectors)))  # oldest first; dicts keep insertion order
                    self._vectors[text] = vector
        return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    def sections(self) -> list[tuple[str, str, str]]:
        """(text, heading, title) of every chunk, as hits carry them: what a composer may embed of a section."""
        snap = self._snapshot
        return [(text, str(meta.get("heading", "")), str(meta["title"])) for text, meta in zip(snap.texts, snap.metadatas, strict=True)]

    @property
    def fingerprint(self) -> str:
        """The content digest of the open collection (ingest.py), or its name for an index built without one."""
        snap = self._snapshot
        return str(snap.manifest.get("fingerprint") or snap.name)

    def use_fixed_texts(self, set_key: Callable[[str], str], texts: Callable[[], Iterable[str]], *, background: bool = False) -> int:
        """Serve fixed texts' vectors from the table stored with the index (fixed_vectors.py): read when one exists for
        set_key(fingerprint), else built, embedding only texts no earlier table holds; again after each reload.
        background: build a missing table on a thread, the index answering meanwhile with the same vectors. Returns how
        many texts were embedded (0 when the table was found or is being built in the background)."""
        self._fixed.use(set_key, texts, background)
        return self._fixed.load(self.fingerprint, self._embedder)

    def wait_fixed_texts(self, timeout: float | None = None) -> bool:
        """Wait for a fixed-text table being built in the background; True once none is."""
        return self._fixed.wait(timeout)

    def get(self, chunk_id: str) -> Hit | None:
        snap = self._snapshot
        row = snap.row_of.get(chunk_id)
        return None if row is None else self._hit(snap, row, 0.0, set())

    @property
    def info(self) -> dict[str, Any]:
        snap = self._snapshot
        manifest = snap.manifest
        return {
            "collection": snap.name,
            "embedder": manifest.get("embedder", ""),
            "chunks": len(snap.ids),
            "questions": len(snap.question_targets),
            "documents": manifest.get("documents", 0),
            "built_at": manifest.get("built_at", ""),
            "store": self._store.location,
        }

    def reload(self) -> Snapshot:
        """Re-read the pointer and load whatever collection it names now."""
        with self._reload_lock:
            self._snapshot = self._load()
            self._fixed.load(self.fingerprint, self._embedder)  # the new content's table (its ingest built it; a text it lacks is only encoded)
            return self._snapshot

    # -- internals -----------------------------------------------------------
    def _index_files(self) -> tuple[tuple[int, int], ...]:
        """(mtime, size) of the embedded store's SQLite files: they change only when someone writes the index."""
        if not getattr(self._store, "embedded", False):
            return ()
        stamps = []
        for name in ("chroma.sqlite3", "chroma.sqlite3-wal"):
            try:
                st = (Path(self._store.location) / name).stat()
                stamps.append((st.st_mtime_ns, st.st_size))
            except OSError:
                stamps.append((0, 0))
        return tuple(stamps)

    def _follow_reingest(self, snap: Snapshot) -> Snapshot:
        """In-memory vectors never hit a deleted collection, so watch the files for another process's ingest.

        A stat per search costs microseconds; the pointer is read only when the files changed.
        """
        if snap.vectors is None:
            return snap  # server queries raise NotFoundError on a replaced collection instead
        files = self._index_files()
        if files == self._files_seen:
            return snap
        self._files_seen = files
        return self.reload() if self._store.active_name() != snap.name else snap

    def _load(self) -> Snapshot:
        return load_snapshot(self._store, self._identity, self._token_cache)

    def _dense(self, snap: Snapshot, query: str, language: str | None, topics: list[str] | None) -> list[tuple[int, float]]:
        vector = self.embed([query])  # cached: the FAQ composer embeds the same question again
        records = len(snap.ids) + len(snap.question_targets)
        wanted = min(POOL + QUESTION_POOL if snap.question_targets else POOL, records)
        if snap.vectors is not None:
            return self._collapse(snap, query, _nearest(snap.vectors, vector[0], _allowed(snap, language, topics), wanted))
        assert snap.collection is not None  # a server's snapshot keeps its collection
        try:
            result = snap.collection.query(
                query_embeddings=vector,
                n_results=wanted,
                where=_where(language, topics),
                include=["distances"],
            )
        except Exception as exc:
            if is_not_found(exc):
                raise  # the collection was replaced: search() reloads and retries
            raise backend_failure(self._store.location, "searching the vectors", exc) from exc
        positions = []
        for record_id, distance in zip(result["ids"][0], result["distances"][0], strict=True):
            row = snap.row_of.get(record_id)
            question = snap.question_row_of.get(record_id)
            if row is not None or question is not None:
                positions.append((row if row is not None else len(snap.ids) + question, 1.0 - float(distance)))
        return self._collapse(snap, query, positions)

    @staticmethod
    def _collapse(snap: Snapshot, query: str, neighbours: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """(record position, cosine) neighbours -> the best similarity per chunk row, best first.

        Positions count chunks first, then section questions; a question lends its similarity to its
        section's chunks.
        """
        asked_in = query_language(query)
        chunks = len(snap.ids)
        best: dict[int, float] = {}
        for position, similarity in neighbours:
            if position < chunks:
                rows = [position]
            else:  # a section question: its evidence goes to the section's chunks
                question = position - chunks
                rows = snap.question_targets[question].tolist()
                same = snap.question_metadatas[question].get("language") == asked_in
                similarity *= QUESTION_DENSE * (1.0 if same else QUESTION_OTHER_LANGUAGE)
            for target in rows:
                if similarity > best.get(target, -np.inf):
                    best[target] = similarity
        ranked = sorted(best.items(), key=lambda item: -item[1])
        return ranked[:POOL]

    def _lexical(self, snap: Snapshot, terms: list[str], language: str | None, topics: list[str] | None) -> np.ndarray:
        """BM25 score per chunk row (its own or its best section question's), 0 for rows the filters exclude."""
        every = snap.bm25.scores(terms)
        chunks = len(snap.ids)
        scores = every[:chunks].copy()
        for question in np.flatnonzero(every[chunks:] > 0):
            targets = snap.question_targets[question]
            scores[targets] = np.maximum(scores[targets], QUESTION_LEXICAL * every[chunks + question])
        if language or topics:
            scores = np.where(_allowed(snap, language, topics)[:chunks], scores, 0.0)
        return scores

    def _hit(self, snap: Snapshot, row: int, score: float, query_terms: set[str]) -> Hit:
        meta, text = snap.metadatas[row], snap.texts[row]
        sources = json.loads(str(meta.get("sources") or "[]"))
        # The passage's own source (its section's); indexes built before sections fall back to the first.
        first = json.loads(str(meta.get("source") or "{}")) or (sources[0] if sources else {"title": "", "url": ""})
        return Hit(
            id=snap.ids[row],
            doc_id=str(meta["doc_id"]),
            language=meta["language"],
            title=str(meta["title"]),
            heading=str(meta.get("heading", "")),
            topics=list(meta.get("topics") or []),
            source=first["title"],
            url=first["url"],
            sources=sources,
            score=round(score, 6),
            snippet=snippet(text, query_terms, sentences=self._sentences(snap, row)),
            text=text,
            kind=str(meta.get("kind") or "doc"),
        )

    @staticmethod
    def _sentences(snap: Snapshot, row: int) -> Sentences:
        # Concurrent first uses may both compute it; the results are equal and the dict write is atomic.
        cached = snap.sentences.get(row)
        if cached is None:
            cached = snap.sentences[row] = snippet_sentences(snap.texts[row])
        return cached


def _top(scores: np.ndarray) -> list[tuple[int, float]]:
    candidates = np.flatnonzero(scores > 0)
    best = candidates[np.argsort(-scores[candidates], kind="stable")][:POOL]
    return [(int(row), float(scores[row])) for row in best]


def _allowed(snap: Snapshot, language: str | None, topics: list[str] | None) -> np.ndarray:
    """Which records (chunks, then questions) a filter lets through; a handful of filters recur, so cached."""
    key = (language, tuple(sorted(topics or ())))
    mask = snap.masks.get(key)
    if mask is None:
        metas = [*snap.metadatas, *snap.question_metadatas]
        mask = snap.masks[key] = np.array([_matches(meta, language, topics) for meta in metas], dtype=bool)
    return mask


def _nearest(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, wanted: int) -> list[tuple[int, float]]:
    """Exact cosine neighbours among the allowed rows, best first (ties by position)."""
    similarity = vectors @ query.astype(np.float32)
    candidates = np.flatnonzero(allowed)
    if not len(candidates) or wanted <= 0:
        return []
    scores = similarity[candidates]
    take = min(wanted, len(candidates))
    top = np.argpartition(-scores, take - 1)[:take]
    top = top[np.lexsort((candidates[top], -scores[top]))]
    return [(int(candidates[i]), float(scores[i])) for i in top]


def _matches(meta: dict[str, Any], language: str | None, topics: list[str] | None) -> bool:
    if language and meta.get("language") != language:
        return False
    return not topics or bool(set(topics).intersection(meta.get("topics") or []))


def _where(language: str | None, topics: list[str] | None) -> dict[str, Any] | None:
    clauses: list[dict[str, Any]] = []
    if language:
        clauses.append({"language": language})
    if topics:
        topic_clauses = [{"topics": {"$contains": t}} for t in topics]
        clauses.append(topic_clauses[0] if len(topic_clauses) == 1 else {"$or": topic_clauses})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _spread_headings(ranked: list[tuple[int, float]], snap: Snapshot, named: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ranking with at most MAX_SAME_HEADING sections per heading among the first k (named documents exempt):
    templated sections of sibling documents (one card per GPU) must not fill a general question's hits."""
    seen: dict[str, int] = {}
    kept: list[tuple[int, float]] = []
    deferred: list[tuple[int, float]] = []
    for row, score in ranked:
        heading = str(snap.metadatas[row].get("heading") or "")
        if heading and not named[row]:
            seen[heading] = seen.get(heading, 0) + 1
            if seen[heading] > MAX_SAME_HEADING and len(kept) < k:
                deferred.append((row, score))
                continue
        kept.append((row, score))
    return kept[:k] + deferred + kept[k:]


def open_index(settings: Settings, catalog: Catalog) -> KnowledgeIndex:
    """Open the active index; on a store without one (first start), ingest first."""
    from service.retrieval.ingest import ingest

    store = ChromaStore(settings)
    manifest = store.active_manifest()
    if manifest is None or manifest.get("embedder") != embedder_identity(settings):
        # First start, or the configured embedder changed: the index must be (re)built before it can serve.
        ingest(settings, catalog)
    with ThreadPoolExecutor(1, thread_name_prefix="advisor-encoder") as pool:
        # The encoder's ONNX session takes most of a second to load, mostly outside the GIL: it loads while the snapshot is read.
        return KnowledgeIndex(store, pool.submit(make_embedder, settings), settings)
