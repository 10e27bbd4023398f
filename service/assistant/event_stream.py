"""A turn's events as they happen: the pipeline runs in a worker thread and hands them over through a queue."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from service.assistant.handlers.base import Cancelled
from service.assistant.understand import detect_language
from service.contract import ErrorEvent, StreamEvent
from service.assistant.faults import index_message, store_chat_body
from service.errors import RetrievalError, StoreDamagedError

if TYPE_CHECKING:
    from service.assistant.pipeline import Assistant, Turn

log = logging.getLogger("advisor.assistant")
ERROR_MESSAGES = {  # code -> language -> what the user reads in an `error` event
    "internal_error": {"en": "The answer could not be completed. Please try again.", "zh": "回答未能完成，请重试。"},
    "index_unavailable": {"en": "The knowledge index is not available yet; try again shortly.", "zh": "知识库索引暂不可用，请稍后再试。"},
}


def error_event(exc: Exception, lang: str) -> ErrorEvent:
    """What a stream that failed after its start ends with: the same words as the JSON error a chat would get."""
    if isinstance(exc, StoreDamagedError):
        log.error("streamed answer failed: %s", exc)
        body = store_chat_body(exc, lang)
        return ErrorEvent(code=body["error"], message=body["message"])
    if isinstance(exc, RetrievalError) and getattr(exc, "permanent", False):
        # /readyz reports it as a failure needing repair: "try again shortly" would contradict it.
        log.error("streamed answer failed: %s", exc)
        repair = getattr(exc, "repair", None) or "advisor ingest --rebuild"
        return ErrorEvent(code="index_corrupt", message=index_message(lang, permanent=True, repair=repair))
    code = "index_unavailable" if isinstance(exc, RetrievalError) else "internal_error"
    if code == "internal_error":
        log.exception("streamed answer failed")
    else:
        log.warning("streamed answer failed: %s", exc)
    return ErrorEvent(code=code, message=ERROR_MESSAGES[code][lang])


class EventStream:
    """The pipeline's events, produced by a worker thread and handed over through a queue.

    Iterate it from any one thread; `cancel()` (from any thread) stops the work at the next tool
    call or retrieval, e.g. when the client disconnected. Anything failing after the start becomes
    an `error` event, last.
    """

    _END = object()

    def __init__(self, assistant: Assistant, turn: Turn) -> None:
        self._assistant, self._turn = assistant, turn
        self._queue: queue.Queue = queue.Queue()
        self._cancelled = threading.Event()
        self._worker: threading.Thread | None = None

    def _work(self) -> None:
        language = self._turn.request.language
        try:
            self._assistant._run(self._turn, emit=self._queue.put, cancelled=self._cancelled)
        except Cancelled:
            log.info("stream cancelled: the client went away")
        except Exception as exc:
            lang = language or detect_language(self._turn.text)
            self._queue.put(error_event(exc, lang))
        finally:
            self._queue.put(self._END)

    def __iter__(self) -> Iterator[StreamEvent]:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="advisor-stream", daemon=True)
            self._worker.start()
        while True:
            event = self._queue.get()
            if event is self._END:
                return
            yield event

    def cancel(self) -> None:
        self._cancelled.set()

    def close(self) -> None:
        self.cancel()
