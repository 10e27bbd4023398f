"""The long-lived parts of a running advisor, built once from Settings.

Channels (REST, CLI, Slack) get their catalog, knowledge index and answer
pipeline from here instead of constructing their own, so every channel runs
the same components with the same configuration.
"""

from __future__ import annotations

import gc
import logging
import threading
from typing import TYPE_CHECKING

from service.catalog import Catalog, default_catalog
from service.config import Settings
from service.errors import IndexOpenError, RetrievalError

if TYPE_CHECKING:
    from service.assistant.front import Advisor
    from service.assistant.pipeline import Assistant
    from service.retrieval import KnowledgeIndex

log = logging.getLogger("advisor.runtime")

_gc_paused_for_start = False


def pause_gc_for_start() -> None:
    """No cyclic garbage collection until a server's start is done (open_index_in_background resumes it).

    A start allocates a few million long-lived objects (modules, classes, compiled patterns, the catalogs, the index's
    records and jieba's dictionary) and makes almost no garbage, yet the collector kept walking them: about a tenth of
    the start. Only `advisor serve` pauses it (its process and each of its workers); at ready everything built so far
    is frozen (gc.freeze: kept out of later collections, which then walk only what requests allocate) and the collector
    runs again as usual."""
    global _gc_paused_for_start
    gc.disable()
    _gc_paused_for_start = True


def resume_gc_after_start() -> None:
    global _gc_paused_for_start
    if _gc_paused_for_start:
        _gc_paused_for_start = False
        gc.freeze()
        gc.enable()


PROBE_SWITCH_INTERVAL = 0.001  # seconds; CPython's default is 0.005


def responsive_event_loop() -> None:
    """Let the event loop thread take the GIL back sooner from a turn computing in a worker thread.

    A turn is CPU-bound Python in a thread; the loop that answers /healthz and /readyz waits for the GIL at every step of
    a request, up to one switch interval each. With 20 clients sending the slowest messages, probes reached 139 ms at
    the default 5 ms; a 1 ms interval keeps them under 100 ms for a few percent of throughput (bench/bench_hostile.py)."""
    import sys

    sys.setswitchinterval(PROBE_SWITCH_INTERVAL)


def single_threaded_blas() -> None:
    """One BLAS thread per process.

    A search multiplies one vector by a few thousand rows: far too little work to share, and
    OpenBLAS's spinning pool turned that 1.5 ms into about 50 ms whenever the 2 cores were busy
    with other requests. Parallelism comes from the server's threads and workers instead.
    """
    import numpy  # noqa: F401 — threadpoolctl only limits libraries already loaded
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def start_loading_encoder(settings: Settings) -> None:
    """The process's multilingual encoder (its ONNX session) loads on a thread from now, for `advisor serve` to call
    before it imports the app: creating the session runs mostly outside the GIL, so it overlaps the imports instead of
    following them. The index's opening then finds it loaded (or waits for it); a failure here is left for that
    opening to meet again and report."""
    if settings.embedding_backend != "use-multilingual":
        return

    def load() -> None:
        try:
            from service.retrieval.embeddings import shared_use_multilingual

            shared_use_multilingual()
        except Exception:  # noqa: BLE001  (open_index loads it again and reports)
            log.debug("loading the encoder early failed", exc_info=True)

    threading.Thread(target=load, name="advisor-encoder", daemon=True).start()


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        single_threaded_blas()
        # Loading the catalog validates it: a bad entry stops start-up here.
        self.catalog: Catalog = default_catalog(settings.knowledge_dir)
        self._index: KnowledgeIndex | None = None
        self._index_error: BaseException | None = None
        self._index_ready = threading.Event()
        self._starting = False  # open_index_in_background's preparation is under way
        self._started = threading.Event()  # set when that preparation is done (ready, or failed)
        self._lock = threading.Lock()
        # Built now so a misconfigured LLM stops start-up instead of failing every chat request.
        from service.assistant.writer import build_writer

        self.writer = build_writer(settings)
        self._assistant_lock = threading.Lock()
        self._assistant: Assistant | None = None
        self._store = None
        self._store_lock = threading.Lock()  # not self._lock: that one is held through a whole first ingest
        self._sweeper = None
        self._analytics = None
        self._analytics_lock = threading.Lock()

    # -- knowledge index -----------------------------------------------------
    def open_index(self, *, background: bool = False) -> KnowledgeIndex:
        """Open the index (ingesting first if none exists); idempotent and thread-safe. background: a missing table of
        fixed texts' vectors is built on a thread (retrieval/fixed_vectors.py) instead of before the index is open."""
        with self._lock:
            if self._index is None:
                from service.retrieval import open_index

                from service.assistant import fixed_texts

                try:
                    index = open_index(self.settings, self.catalog)
                    # Fixed texts' vectors (knowledge sentences, queries, exemplars) from the table stored with the index;
                    # built only after an ingest or a change to what is fixed, so an answer encodes only the user's words.
                    fixed_texts.prepare(index, self.catalog, background=background)
                    self._index = index
                except BaseException as exc:  # kept for /readyz to report
                    self._index_error = exc
                    raise
                self._index_ready.set()
            return self._index

    def open_index_in_background(self) -> threading.Thread:
        """A server's start: the index, the answer pipeline and its router; `ready` when all are in, then jieba's dictionary.

        Nothing is answered or embedded to warm up: everything is read from what the index stored (retrieval/snapshot_files.py,
        the BM25 index, the fixed texts' vectors, the router's exemplar matrix). A missing fixed-text table (after an ingest)
        is built after ready (retrieval/fixed_vectors.py). jieba's dictionary (0.2-0.3 s, holding the GIL) loads on this
        thread just after ready: a turn that segments text first waits for it under the tokenizer's lock
        (retrieval/text.py), so the first turns can be that much slower, and are answered as any later one."""
        from service.retrieval.text import load_dictionary

        def run() -> None:
            try:
                self.open_index(background=True)
                self.prepare_assistant()
            except Exception:
                log.exception("opening the knowledge index failed")
                return
            finally:
                self._starting = False
                self._started.set()
                resume_gc_after_start()
            try:
                load_dictionary()
            except Exception:  # noqa: BLE001  (the first text to segment loads it again and fails there, with its turn)
                log.exception("loading jieba's dictionary failed")

        self._starting = True
        thread = threading.Thread(target=run, name="advisor-index", daemon=True)
        thread.start()
        return thread

    def wait_started(self, timeout: float | None = None) -> bool:
        """Wait until open_index_in_background's preparation is done (ready, or failed), not for what follows it."""
        return self._started.wait(timeout)

    def prepare_assistant(self) -> None:
        """Build the answer pipeline and its router now (the exemplar matrix and out-of-domain thresholds), not in the
        first question."""
        understander = self.assistant.understander
        if hasattr(understander, "ood_thresholds"):
            understander.ood_thresholds  # noqa: B018  (builds the router: the stored exemplar matrix, then the thresholds)

    @property
    def ready(self) -> bool:
        """The index is open and a server's start (open_index_in_background) is done."""
        return self.index_ready and not self._starting

    @property
    def index(self) -> KnowledgeIndex:
        if self._index is None:
            if self._index_error is not None:
                raise IndexOpenError(self._index_error) from self._index_error
            raise RetrievalError("the knowledge index is still being prepared")
        return self._index

    @property
    def index_ready(self) -> bool:
        return self._index_ready.is_set()

    def wait_index(self, timeout: float | None = None) -> bool:
        return self._index_ready.wait(timeout)

    # -- assistant ---------------------------------------------------------------
    @property
    def assistant(self) -> Assistant:
        """The answer pipeline over this runtime's catalog, index and conversation store (built once)."""
        with self._assistant_lock:
            if self._assistant is None:
                from service.assistant.pipeline import Assistant

                self._store = self.conversation_store
                secrets = [*self.settings.api_key_values]
                if self.settings.llm_api_key is not None:
                    secrets.append(self.settings.llm_api_key.get_secret_value())
                from service.understanding import RoutedUnderstander

                # Built once: its exemplar matrix is embedded on first use and cached under data_dir by content hash.
                understander = RoutedUnderstander(self.catalog, cache_dir=self.settings.data_dir / "understanding", encoder=self._router_encoder())
                from service.analytics.recorder import Recorder

                recorder = Recorder(self.analytics_store, store_questions=self.settings.store_questions)
                self._assistant = Assistant(self.catalog, _LazyIndex(self), self._store, writer=self.writer,
                                            max_message_chars=self.settings.max_message_chars, secrets=tuple(secrets), understander=understander,
                                            recorder=recorder, memo_size=self._memo_size(), turn_budget_s=self.settings.turn_budget_s,
                                            concurrency=self.settings.chat_concurrency)
            return self._assistant

    def _router_encoder(self):
        """The router's encoder (always the multilingual one): through the index when the index uses it too, so the
        exemplars' vectors come from the table stored with the index and a question is encoded once for both."""
        if self.settings.embedding_backend != "use-multilingual":
            return None
        return _IndexEncoder(self)

    def _memo_size(self) -> int:
        """The answer memo holds answers over the index this process opened; a Chroma server is shared, can be re-ingested
        from another host and can go down, so with one every answer is computed against it (service/assistant/answer_memo.py)."""
        return 0 if self.settings.chroma_url else self.settings.answer_memo_size

    @property
    def conversation_store(self):
        """SQLite in the data dir by default; PostgreSQL (migrated on open) when ADVISOR_DATABASE_URL is a postgresql:// URL.
        Opening it starts the retention sweep (ADVISOR_RETENTION_DAYS)."""
        with self._store_lock:
            if self._store is None:
                from service.assistant.retention import RetentionSweeper

                if self.settings.server_database_url:
                    from service.assistant.store_sql import SqlConversationStore

                    self._store = SqlConversationStore(self.settings.server_database_url)
                else:
                    from service.assistant.store import SqliteConversationStore

                    self._store = SqliteConversationStore(self.settings.sqlite_path)
                self._sweeper = RetentionSweeper(self._store, self.settings.retention_days, also=(self.analytics_store,)).start()
            return self._store

    @property
    def analytics_store(self):
        """Question records (service/analytics): a table in the conversation database, SQLite or PostgreSQL.
        Built after the conversation store, whose start-up runs the PostgreSQL migrations that create the table."""
        with self._analytics_lock:
            if self._analytics is None:
                if self.settings.server_database_url:
                    from service.analytics.store_sql import SqlAnalyticsStore

                    self._analytics = SqlAnalyticsStore(self.settings.server_database_url)
                else:
                    from service.analytics.store import SqliteAnalyticsStore

                    self._analytics = SqliteAnalyticsStore(self.settings.sqlite_path)
            return self._analytics

    @property
    def advisor(self) -> Advisor:
        """The front door channels use (answer, stream, feedback, conversation), over this runtime's assistant."""
        from service.assistant.front import Advisor

        return Advisor(self.assistant)

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.stop()
        if self._store is not None:
            self._store.close()
            self._store = None
            self._assistant = None
        if self._analytics is not None:
            self._analytics.close()
            self._analytics = None


class _LazyIndex:
    """The runtime's index, resolved at each search so the assistant can exist before ingest finishes."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    def search(self, query: str, **kwargs):
        return self._runtime.index.search(query, **kwargs)

    def embed(self, texts: list[str]):
        """The index's encoder (cached), for composers that rank sentences by meaning (compose/faq_answer.py)."""
        return self._runtime.index.embed(texts)


class _IndexEncoder:
    """The router's Encoder over the runtime's index (its stored fixed-text vectors and its cache), or the shared
    encoder itself while the index is not open yet."""

    def __init__(self, runtime: Runtime) -> None:
        from service.retrieval.embeddings import use_multilingual_identity

        self._runtime = runtime
        self.identity = use_multilingual_identity()

    def encode(self, texts: list[str]):
        if self._runtime._index is not None:
            return self._runtime.index.embed(texts)
        from service.retrieval.embeddings import shared_use_multilingual

        return shared_use_multilingual().encode(texts)
