"""The JSON log formatter, the request-id context and the metrics API other components call."""

from __future__ import annotations

import json
import logging

from service.observability import metrics
from service.observability.context import accept_or_make_request_id, request_id_var
from service.observability.logging import JsonFormatter, RequestIdFilter, content, logging_config, set_log_content


def _record(message: str, **extra) -> logging.LogRecord:
    record = logging.LogRecord("advisor.test", logging.INFO, __file__, 1, message, (), None)
    for key, value in extra.items():
        setattr(record, key, value)
    RequestIdFilter().filter(record)
    return record


def test_one_json_object_per_record_with_the_request_id_and_extras() -> None:
    token = request_id_var.set("rid-42")
    try:
        line = JsonFormatter().format(_record("answered", route="/v1/chat", status=200))
    finally:
        request_id_var.reset(token)
    data = json.loads(line)
    assert data["message"] == "answered" and data["request_id"] == "rid-42" and data["level"] == "info"
    assert data["route"] == "/v1/chat" and data["status"] == 200 and data["logger"] == "advisor.test"
    assert "request_id" not in json.loads(JsonFormatter().format(_record("no request")))


def test_request_ids_from_callers_are_accepted_only_when_plain() -> None:
    assert accept_or_make_request_id("abc-123_x.y:z") == "abc-123_x.y:z"
    for hostile in ("a b", "x" * 200, "id\nforged-log-line", "", None):
        assert accept_or_make_request_id(hostile) != hostile


def test_content_is_redacted_unless_enabled() -> None:
    # (configure_logging itself is process-wide and only called by `advisor serve`; see test_serve_logs)
    try:
        set_log_content(False)
        assert content("my confidential question") == "[24 chars redacted]"
        set_log_content(True)
        assert content("my confidential question") == "my confidential question"
    finally:
        set_log_content(False)


def test_uvicorn_access_log_is_silenced_in_favour_of_the_route_template_log() -> None:
    config = logging_config("info", "json")
    assert config["loggers"]["uvicorn.access"]["handlers"] == [] and config["loggers"]["uvicorn.access"]["propagate"] is False
    assert config["formatters"]["default"]["()"].endswith("JsonFormatter")


def _sample(name: str, labels: dict[str, str]) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def test_the_metrics_api_records_what_the_pipeline_reports() -> None:
    before = _sample("advisor_intents_total", {"intent": "faq", "channel": "slack"})
    metrics.count_intent("faq", channel="slack")
    assert _sample("advisor_intents_total", {"intent": "faq", "channel": "slack"}) == before + 1
    count = _sample("advisor_pipeline_stage_seconds_count", {"stage": "retrieve"})
    with metrics.stage("retrieve"):
        pass
    metrics.observe_stage("retrieve", 0.002)
    assert _sample("advisor_pipeline_stage_seconds_count", {"stage": "retrieve"}) == count + 2
    metrics.observe_retrieval_confidence(7.0)  # clamped into 0..1
    assert _sample("advisor_retrieval_confidence_bucket", {"le": "1.0"}) >= 1
    metrics.count_llm_fallback("timeout")
    metrics.count_rate_limit_refusal("visitor")
    text, content_type = metrics.render()
    assert content_type.startswith("text/plain")
    for name in ("advisor_llm_fallbacks_total", "advisor_rate_limit_refusals_total", "advisor_http_request_duration_seconds"):
        assert name.encode() in text
