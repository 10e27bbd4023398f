"""Which sections and sentences the FAQ composer quotes: documents far off the question contribute nothing, each part
of a question in several parts gets its answer, and the kind of question (worth it? A or B?) picks the kind of sentence.

Pure unit tests of service/assistant/compose/faq_answer.py on words alone (embed=None), each isolating one rule.
"""

from __future__ import annotations

from service.assistant.compose.faq_answer import compose_faq
from tests.assistant.compose.faq_hits import Hit, quoted


def test_a_document_far_off_the_question_is_not_quoted_even_to_reach_the_minimum() -> None:
    hits = [
        Hit("Resume the cluster job from the latest checkpoint. Check the restored step on the new cluster.", "Resume", "resume"),
        Hit(
            "RoCE needs PFC on the RDMA traffic class. RoCE needs ECN marking tuned on every switch.",
            "RoCE tuning",
            "fabrics",
        ),
    ]
    result = compose_faq("what do we need to tune for RoCE", "en", hits, None)
    assert "PFC" in quoted(result) and "ECN" in quoted(result), quoted(result)
    assert "Resume" not in quoted(result) and "restored step" not in quoted(result), quoted(result)
    assert result.cited_hits == [hits[1]]


def test_sections_of_the_same_document_stay_together() -> None:
    # The second section shares few of the question's words, but its document is the one that answers.
    hits = [
        Hit("Small files starve the GPU: reading millions of small images is slow on any storage.", "Small files", "storage"),
        Hit("Pack the samples into large shards such as WebDataset tar files.", "Shard formats", "storage"),
    ]
    result = compose_faq("reading millions of small images is slow, what storage should we use", "en", hits, None)
    assert "WebDataset" in quoted(result), quoted(result)


def test_each_part_of_a_two_part_question_gets_its_answer() -> None:
    pricing = [
        "Spot instances are spare capacity sold at a discount and are reliable enough for many jobs.",
        "Reliable spot capacity is scarce for large GPU instances in busy regions.",
    ]
    hits = [
        Hit(" ".join(pricing), "What spot instances are", "spot"),
        Hit("Spot prices change with demand in each region.", "Prices", "spot"),
        Hit("When a node is reclaimed, restart from the latest checkpoint on new capacity.", "Interruptions", "spot"),
    ]
    result = compose_faq("are spot instances reliable? what if the node is reclaimed?", "en", hits, None, max_points=1)
    assert "latest checkpoint" in quoted(result), quoted(result)


def test_a_difference_question_prefers_the_sentence_that_names_both() -> None:
    hits = [
        Hit(
            "For training large models, bf16 is the default. Unlike fp16, bf16 keeps the exponent range of fp32, so large models rarely overflow.",
            "Precision",
            "precision",
        )
    ]
    result = compose_faq("what is the difference between bf16 and fp16 when training large models", "en", hits, None)
    assert "exponent range" in result.lead, result.lead


def test_a_worth_it_question_is_led_by_the_trade_off() -> None:
    hits = [
        Hit(
            "Asynchronous checkpointing writes the checkpoint in a background thread during training. "
            "Asynchronous checkpointing is worth it only when the save blocks training for a large share of each interval.",
            "Asynchronous checkpointing",
            "ckpt",
        )
    ]
    result = compose_faq("is asynchronous checkpointing during training worth it", "en", hits, None)
    assert "only when" in result.lead, result.lead
