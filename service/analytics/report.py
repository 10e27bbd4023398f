"""The operators' report: pure functions over question records and feedback (GET /v1/admin/analytics, /admin).

    build_report(records, feedback, days=30, now=time.time(), language="en", embed=index.embed, ...)

Counts per day (UTC) and channel, language mix, top intents, outcomes, latency percentiles (nearest rank) for
the whole turn and each stage, thumbs down with comments (newest first, joined to their question by message
id) and coverage gaps (gaps.py).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, Field

from service.analytics.gaps import CoverageGap, Embed, coverage_gaps
from service.analytics.messages import message
from service.analytics.records import OUTCOMES, STAGES, QuestionRecord
from service.analytics.store import FeedbackItem

TOP_INTENTS = 12
MAX_THUMBS_DOWN = 50


class Share(BaseModel):
    key: str
    count: int
    share: float = Field(description="count / total, 0..1")


class DayCount(BaseModel):
    day: str = Field(description="YYYY-MM-DD (UTC)")
    total: int
    by_channel: dict[str, int]


class Percentiles(BaseModel):
    count: int
    p50: float | None = None
    p95: float | None = None
    p99: float | None = None


class Latency(BaseModel):
    total: Percentiles
    stages: dict[str, Percentiles] = Field(description="milliseconds per pipeline stage")


class ThumbsDown(BaseModel):
    message_id: str
    created_at: float
    comment: str | None
    channel: str | None = None
    language: str | None = None
    intent: str | None = None
    outcome: str | None = None
    question: str | None = Field(default=None, description="only when question texts are stored")


class Thresholds(BaseModel):
    low_confidence: float
    near_domain: float
    familiar: float
    cluster_similarity: float


class AnalyticsReport(BaseModel):
    days: int
    since: float = Field(description="epoch seconds: the window's start")
    generated_at: float
    language: str = Field(description="the language of the report's sentences (suggestions, notices)")
    total: int = Field(description="questions recorded in the window")
    questions_stored: bool = Field(description="ADVISOR_STORE_QUESTIONS: whether question texts are being kept")
    per_day: list[DayCount] = Field(description="every day of the window, oldest first")
    channels: list[Share]
    languages: list[Share]
    intents: list[Share] = Field(description="the most frequent intents, most frequent first")
    outcomes: list[Share] = Field(description="answered, clarified, refused_out_of_scope, abstained, over_budget, error")
    latency_ms: Latency
    feedback: dict[str, int] = Field(description="ratings in the window: up, down")
    thumbs_down: list[ThumbsDown] = Field(description="newest first")
    coverage_gaps: list[CoverageGap] = Field(description="largest first")
    notice: str | None = Field(default=None, description="what the operator should know to read the gaps")
    thresholds: Thresholds


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile: always one of the values (no interpolation between two turns)."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)], 3)


def percentiles(values: Sequence[float]) -> Percentiles:
    return Percentiles(count=len(values), p50=percentile(values, 50), p95=percentile(values, 95), p99=percentile(values, 99))


def shares(counter: Counter, total: int, *, order: Sequence[str] | None = None, limit: int | None = None) -> list[Share]:
    keys = list(order) if order is not None else [k for k, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))]
    rows = [Share(key=k, count=counter.get(k, 0), share=round(counter.get(k, 0) / total, 4) if total else 0.0) for k in keys]
    return rows[:limit] if limit else rows


def per_day(records: Sequence[QuestionRecord], since: float, now: float) -> list[DayCount]:
    first, last = _day(since), _day(now)
    days: dict[str, DayCount] = {}
    day = first
    while day <= last:
        days[day.isoformat()] = DayCount(day=day.isoformat(), total=0, by_channel={})
        day += timedelta(days=1)
    for record in records:
        entry = days.get(_day(record.created_at).isoformat())
        if entry is not None:
            entry.total += 1
            entry.by_channel[record.channel] = entry.by_channel.get(record.channel, 0) + 1
    return list(days.values())


def latency(records: Sequence[QuestionRecord]) -> Latency:
    stages = {stage: percentiles([r.stages_ms[stage] for r in records if stage in r.stages_ms]) for stage in STAGES}
    return Latency(total=percentiles([r.total_ms for r in records]), stages={k: v for k, v in stages.items() if v.count})


def thumbs_down(records: Sequence[QuestionRecord], feedback: Sequence[FeedbackItem]) -> list[ThumbsDown]:
    by_message = {r.message_id: r for r in records if r.message_id}
    rows = []
    for item in sorted((f for f in feedback if f.rating == "down"), key=lambda f: (-f.created_at, f.message_id)):
        record = by_message.get(item.message_id)
        rows.append(
            ThumbsDown(
                message_id=item.message_id,
                created_at=item.created_at,
                comment=item.comment,
                channel=record.channel if record else None,
                language=record.language if record else None,
                intent=record.intent if record else None,
                outcome=record.outcome if record else None,
                question=record.question if record else None,
            )
        )
    return rows[:MAX_THUMBS_DOWN]


def build_report(
    records: Sequence[QuestionRecord],
    feedback: Sequence[FeedbackItem],
    *,
    days: int,
    now: float | None = None,
    language: str = "en",
    embed: Embed | None = None,
    store_questions: bool = False,
    low_confidence: float = 0.85,
    near_domain: float = 0.3,
    familiar: float = 1.0,
    cluster_similarity: float = 0.5,
) -> AnalyticsReport:
    now = time.time() if now is None else now
    since = now - days * 86400
    records = [r for r in records if since <= r.created_at <= now]
    feedback = [f for f in feedback if since <= f.created_at <= now]
    total = len(records)
    gaps = coverage_gaps(
        records, language=language, low_confidence=low_confidence, near_domain=near_domain, similarity=cluster_similarity, embed=embed, familiar=familiar
    )
    hidden = any(g.key.startswith("intent:") for g in gaps)
    notice = message("text_off", language) if hidden or (gaps and not store_questions and not any(g.examples for g in gaps)) else None
    if not gaps:
        notice = message("no_gaps", language)
    return AnalyticsReport(
        days=days, since=since, generated_at=now, language=language, total=total, questions_stored=store_questions,
        per_day=per_day(records, since, now),
        channels=shares(Counter(r.channel for r in records), total),
        languages=shares(Counter(r.language or "unknown" for r in records), total),
        intents=shares(Counter(r.intent or "unknown" for r in records), total, limit=TOP_INTENTS),
        outcomes=shares(Counter(r.outcome for r in records), total, order=OUTCOMES),
        latency_ms=latency(records),
        feedback=dict(Counter(f.rating for f in feedback)),
        thumbs_down=thumbs_down(records, feedback),
        coverage_gaps=gaps, notice=notice,
        thresholds=Thresholds(low_confidence=low_confidence, near_domain=near_domain, familiar=familiar, cluster_similarity=cluster_similarity),
    )  # fmt: skip


def _day(timestamp: float):
    return datetime.fromtimestamp(timestamp, UTC).date()
