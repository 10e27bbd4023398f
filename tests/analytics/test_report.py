"""The report's aggregation: pure functions over records and feedback, checked against hand-counted figures."""

from __future__ import annotations

from datetime import UTC, datetime

from service.analytics.records import QuestionRecord, retrieval_confidence
from service.analytics.report import build_report, percentile
from service.analytics.store import FeedbackItem

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC).timestamp()
DAY = 86400.0


def rec(
    n: int,
    *,
    age_days: float = 0.0,
    channel: str = "api",
    language: str = "en",
    intent: str = "faq",
    outcome: str = "answered",
    total_ms: float = 10.0,
    confidence: float | None = 0.9,
    tools: list[str] | None = None,
    question: str | None = None,
) -> QuestionRecord:
    return QuestionRecord(
        id=f"q_{n:04d}",
        created_at=NOW - age_days * DAY,
        channel=channel,
        language=language,
        intent=intent,
        outcome=outcome,
        total_ms=total_ms,
        stages_ms={"understand": total_ms / 10, "retrieve": total_ms / 5},
        retrieval_confidence=confidence,
        tools=tools or [],
        message_id=f"msg_{n:04d}",
        conversation_id="conv_1",
        question=question,
    )


def test_counts_per_day_channel_language_intent_and_outcome() -> None:
    records = [
        rec(1, channel="api"),
        rec(2, channel="widget", language="zh"),
        rec(3, age_days=1, channel="slack", intent="recommend"),
        rec(4, age_days=2.2, outcome="refused_out_of_scope", intent="out_of_scope"),
        rec(5, age_days=40),
    ]  # the last is outside 30 days
    report = build_report(records, [], days=30, now=NOW)

    assert report.total == 4
    assert len(report.per_day) == 31 and report.per_day[-1].day == "2026-11-30"
    assert report.per_day[-1].total == 2 and report.per_day[-1].by_channel == {"api": 1, "widget": 1}
    assert report.per_day[-2].by_channel == {"slack": 1}
    assert {s.key: s.count for s in report.channels} == {"api": 2, "widget": 1, "slack": 1}
    assert {s.key: s.share for s in report.languages} == {"en": 0.75, "zh": 0.25}
    assert [s.key for s in report.intents][0] == "faq" and report.intents[0].count == 2
    assert [s.key for s in report.outcomes] == ["answered", "clarified", "refused_out_of_scope", "abstained", "over_budget", "error"]
    assert [s.count for s in report.outcomes] == [3, 0, 1, 0, 0, 0]


def test_latency_percentiles_are_nearest_rank_for_the_turn_and_each_stage() -> None:
    records = [rec(n, total_ms=float(n)) for n in range(1, 101)]
    latency = build_report(records, [], days=1, now=NOW).latency_ms
    assert (latency.total.p50, latency.total.p95, latency.total.p99, latency.total.count) == (50.0, 95.0, 99.0, 100)
    assert latency.stages["retrieve"].p95 == 19.0 and set(latency.stages) == {"understand", "retrieve"}
    assert percentile([], 50) is None and percentile([7.0], 99) == 7.0


def test_thumbs_down_join_their_question_by_message_id_newest_first() -> None:
    records = [rec(1, question="why is NCCL slow", intent="diagnostics"), rec(2)]
    feedback = [
        FeedbackItem(message_id="msg_0001", rating="down", comment="wrong busbw", created_at=NOW - 100),
        FeedbackItem(message_id="msg_0002", rating="down", comment=None, created_at=NOW - 10),
        FeedbackItem(message_id="msg_0002", rating="up", comment="thanks", created_at=NOW - 5),
    ]
    report = build_report(records, feedback, days=1, now=NOW)
    assert [t.message_id for t in report.thumbs_down] == ["msg_0002", "msg_0001"]
    assert report.thumbs_down[1].comment == "wrong busbw" and report.thumbs_down[1].question == "why is NCCL slow"
    assert report.thumbs_down[1].intent == "diagnostics"
    assert report.feedback == {"down": 2, "up": 1}


def test_without_texts_gaps_are_grouped_by_intent_and_the_report_says_how_to_see_examples() -> None:
    records = [
        rec(1, confidence=0.3),
        rec(2, confidence=0.5, language="zh"),
        rec(3, intent="claim_check", outcome="abstained", confidence=None),
        rec(4, confidence=0.95),
        rec(5, confidence=0.2, tools=["recommend"]),
    ]  # confident, and tool-computed: not gaps
    for language, phrase in (("en", "ADVISOR_STORE_QUESTIONS"), ("zh", "ADVISOR_STORE_QUESTIONS")):
        report = build_report(records, [], days=1, now=NOW, language=language, store_questions=False)
        assert [(g.key, g.count) for g in report.coverage_gaps] == [("intent:faq", 2), ("intent:claim_check", 1)]
        assert all(g.examples == [] for g in report.coverage_gaps)
        assert phrase in report.notice
    assert "建议补充的知识主题" in report.coverage_gaps[0].suggestion and report.coverage_gaps[0].languages == {"en": 1, "zh": 1}


def test_refusals_are_gaps_only_near_the_domain() -> None:
    near = rec(1, intent="out_of_scope", outcome="refused_out_of_scope", confidence=None).model_copy(update={"domain_similarity": 0.45})
    far = rec(2, intent="out_of_scope", outcome="refused_out_of_scope", confidence=None).model_copy(update={"domain_similarity": 0.2})
    report = build_report([near, far], [], days=1, now=NOW, near_domain=0.3)
    assert [(g.key, g.count) for g in report.coverage_gaps] == [("intent:out_of_scope", 1)]


def test_retrieval_confidence_puts_both_languages_on_one_scale() -> None:
    assert retrieval_confidence(1.19, "en") == 1.0 and retrieval_confidence(1.61, "zh") == 1.0
    assert retrieval_confidence(0.595, "en") == 0.5 and retrieval_confidence(5.0, "zh") == 1.0 and retrieval_confidence(-1, "en") == 0.0


def test_a_weak_match_is_no_gap_when_the_question_is_phrased_like_the_domain() -> None:
    familiar = rec(1, confidence=0.7).model_copy(update={"domain_similarity": 0.76})  # "What is ZeRO-3?": short, weakly matched
    strange = rec(2, confidence=0.7).model_copy(update={"domain_similarity": 0.38})  # a fictional vendor's accelerator
    report = build_report([familiar, strange], [], days=1, now=NOW, low_confidence=0.85, familiar=0.5)
    assert [(g.key, g.count) for g in report.coverage_gaps] == [("intent:faq", 1)]
    assert build_report([familiar, strange], [], days=1, now=NOW, familiar=1.0).coverage_gaps[0].count == 2
