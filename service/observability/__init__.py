"""Logs, request ids and metrics: one formatter, one request-id context, one metrics registry.

    from service.observability import metrics
    metrics.count_intent("faq", channel="rest")
    with metrics.stage("retrieve"): ...
"""

from service.observability.context import current_request_id, request_id_var

__all__ = ["current_request_id", "request_id_var"]
