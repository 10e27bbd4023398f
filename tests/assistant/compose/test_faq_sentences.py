"""How the FAQ composer cuts and weighs sentences: abbreviations do not end a sentence, a "why" question is answered by
a reason, and a relevant point is not crowded out by a weaker one once the minimum is reached.

These are pure unit tests of service/assistant/compose/faq_answer.py: hits are plain objects and, where an encoder
would decide, scoring runs on words alone (embed=None), so each test isolates one rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.assistant.compose.faq_answer import compose_faq, units


@dataclass
class Hit:
    text: str
    heading: str
    source: str = "A source"


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    text = "Narayanan et al. (2021) show throughput falling once groups cross nodes. Keep it inside a node, e.g. 8 GPUs."
    assert [u.text for u in units(text)] == [
        "Narayanan et al. (2021) show throughput falling once groups cross nodes.",
        "Keep it inside a node, e.g. 8 GPUs.",
    ]


def test_sentences_still_end_at_full_stops() -> None:
    assert [u.text for u in units("Shard the optimizer states first. Then shard the gradients. 最后才把参数本身也切分掉。然后再看通信量有没有变大。")] == [
        "Shard the optimizer states first.",
        "Then shard the gradients.",
        "最后才把参数本身也切分掉。",
        "然后再看通信量有没有变大。",
    ]


def test_a_why_question_is_led_by_the_reason() -> None:
    # Both sentences hold every word of the question; only the second says why.
    hits = [
        Hit(
            "Tensor parallelism is kept inside a node by most training frameworks. "
            "Tensor parallelism is kept inside a node because its all-reduces need NVLink bandwidth.",
            "Parallelism",
        )
    ]
    result = compose_faq("why is tensor parallelism kept inside a node", "en", hits, None)
    assert "because" in result.lead, result.lead
    # Asked whether rather than why, the reason gets no preference.
    plain = compose_faq("is tensor parallelism kept inside a node", "en", hits, None)
    assert "because" not in plain.lead, plain.lead


def test_a_chinese_why_question_is_led_by_the_reason() -> None:
    hits = [Hit("张量并行通常留在单机内部运行。张量并行留在单机内部，是因为它需要 NVLink 带宽。", "并行")]
    result = compose_faq("张量并行为什么留在单机内部", "zh", hits, None)
    assert "因为" in result.lead, result.lead


def test_past_the_minimum_a_relevant_point_is_kept_over_a_weak_one() -> None:
    # Four sentences share the question's words; one is off the subject. Once the lead and two points are chosen,
    # the fourth relevant sentence (similar to those chosen) must still be preferred to the weak one, which is
    # below the floor, instead of the answer stopping at the weak one.
    relevant = [
        "When a spot node is reclaimed, spot instances need a watcher for the notice.",
        "When a spot node is reclaimed, spot instances need frequent checkpoints.",
        "When a spot node is reclaimed, spot instances need an elastic launcher.",
        "When a spot node is reclaimed, spot instances need a SIGTERM handler.",
    ]
    hits = [Hit(" ".join(relevant), "Spot instances"), Hit("Object storage is where spot instances keep data.", "Storage")]
    result = compose_faq("what do spot instances need when a spot node is reclaimed", "en", hits, None)
    quoted = [result.lead, *result.points]
    assert sum(any(s in line for line in quoted) for s in relevant) == 4, quoted
    assert not any("Object storage" in line for line in quoted), quoted
