"""Prometheus metrics (prometheus-client), with a tiny API the pipeline and channels call.

    metrics.count_intent("workload", channel="rest")
    metrics.observe_stage("retrieve", 0.004)        # or: with metrics.stage("retrieve"): ...
    metrics.observe_retrieval_confidence(0.82)
    metrics.count_llm_fallback("timeout")
    metrics.count_rate_limit_refusal("visitor")

Label values are bounded (route templates, not raw paths; known intents), so series stay few.

Several workers (`advisor serve --workers N`): each is its own process with its own registry, so a scrape would see
only the worker that answered it. prometheus-client's multiprocess mode fixes that: with PROMETHEUS_MULTIPROC_DIR set
before prometheus_client is imported (`advisor serve` does it, see `prepare_multiprocess_dir`), every process writes its
values to files there and `render` sums them over all workers, past and present. Only counters and histograms are
used here: they aggregate exactly across processes (gauges would need a multiprocess_mode, and none is needed).
"""

from __future__ import annotations

import atexit
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

# prometheus-client itself switches to multiprocess mode on this variable (when it is imported), so the exposition
# follows the same variable rather than a setting: the two cannot disagree.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

REGISTRY = CollectorRegistry(auto_describe=True)

HTTP_REQUESTS = Counter("advisor_http_requests", "HTTP requests answered", ["method", "route", "status", "channel"], registry=REGISTRY)
HTTP_LATENCY = Histogram("advisor_http_request_duration_seconds", "Time to answer an HTTP request (to the end of the body)",
                         ["method", "route", "channel"], registry=REGISTRY,
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
INTENTS = Counter("advisor_intents", "Answered questions by intent and channel", ["intent", "channel"], registry=REGISTRY)
STAGE_LATENCY = Histogram("advisor_pipeline_stage_seconds", "Time spent in each answer-pipeline stage", ["stage"], registry=REGISTRY,
                          buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30))
RETRIEVAL_CONFIDENCE = Histogram("advisor_retrieval_confidence", "Top retrieval score of each search (0..1)", registry=REGISTRY,
                                 buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0))
LLM_FALLBACKS = Counter("advisor_llm_fallbacks", "Answers where the LLM rewrite was discarded for the deterministic one", ["reason"],
                        registry=REGISTRY)
RATE_LIMIT_REFUSALS = Counter("advisor_rate_limit_refusals", "Requests refused with 429", ["scope"], registry=REGISTRY)


def _label(value: str | None, limit: int = 60) -> str:
    return (value or "unknown")[:limit]


def observe_request(method: str, route: str, status: int, channel: str, seconds: float) -> None:
    HTTP_REQUESTS.labels(method, route, str(status), channel).inc()
    HTTP_LATENCY.labels(method, route, channel).observe(seconds)


def count_intent(intent: str, channel: str = "rest") -> None:
    INTENTS.labels(_label(intent), _label(channel)).inc()


def observe_stage(name: str, seconds: float) -> None:
    STAGE_LATENCY.labels(_label(name)).observe(max(seconds, 0.0))


@contextmanager
def stage(name: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        observe_stage(name, time.perf_counter() - started)


def observe_retrieval_confidence(score: float) -> None:
    RETRIEVAL_CONFIDENCE.observe(min(max(float(score), 0.0), 1.0))


def count_llm_fallback(reason: str) -> None:
    LLM_FALLBACKS.labels(_label(reason)).inc()


def count_rate_limit_refusal(scope: str) -> None:
    RATE_LIMIT_REFUSALS.labels(_label(scope)).inc()


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def render() -> tuple[bytes, str]:
    """The exposition text and its content type, for GET /metrics: summed over every worker in multiprocess mode."""
    path = multiprocess_dir()
    if path is None:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=path)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def prepare_multiprocess_dir(path: Path) -> Path:
    """Make `path` an empty metrics directory: values left by an earlier run would be added to this run's totals."""
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink()
    return path


if multiprocess_dir() is not None:
    # A worker that exits says so; prometheus-client then drops its live gauges (counters and histograms stay in the totals).
    atexit.register(multiprocess.mark_process_dead, os.getpid())
