"""The FAQ composer's section gate and question parts (compose/faq_sections.py), its question-kind cues loaded from
compose/faq_cues.yaml, and three selection rules: a follow-up's parts come from its own words, a fix list is not
crowded out of a "what do I do" answer, and "is our value low?" is answered by the typical range.

Pure unit tests on words alone (embed=None), each isolating one rule.
"""

from __future__ import annotations

import yaml

from service.assistant.compose import extract
from service.assistant.compose.faq_answer import _part_answers, _score, compose_faq, units
from service.assistant.compose.faq_sections import on_topic, question_parts
from tests.assistant.compose.faq_hits import Hit, quoted


def test_a_question_in_several_parts_is_split_into_the_parts_that_ask() -> None:
    parts = question_parts("is spot capacity reliable for fine-tuning, and what if the node is reclaimed?")
    assert len(parts) == 2 and parts[0].startswith("is spot") and "reclaimed" in parts[1], parts
    assert question_parts("how do I shard a checkpoint across nodes?") == []
    # A piece that only reports ("we measured 40 percent") is not a part to answer.
    assert question_parts("我们测了一下大概百分之四十，这个正常吗") == []


def test_a_document_far_below_the_best_one_is_gated_and_sections_of_one_document_stand_together() -> None:
    hits = [
        Hit("PFC and ECN must be tuned for RoCE.", "RoCE tuning", "fabrics"),
        Hit("Buffers on the RoCE switches matter too.", "Switch buffers", "fabrics"),
        Hit("Restore the optimizer state when resuming.", "Resume", "resume"),
    ]
    kept = on_topic("what must we tune for RoCE", hits, {0: 0.9, 1: 0.2, 2: 0.2}, None)
    assert kept == {0, 1}
    assert on_topic("anything", hits[:1], {0: 0.1}, None) == {0}


def test_question_kind_cues_are_data_in_both_languages() -> None:
    cues = yaml.safe_load(extract.CUES.read_text(encoding="utf-8"))
    for name in ("remedy_ask", "advice", "worth_ask", "verdict", "difference_ask", "judge_ask", "benchmark"):
        assert cues[name]["en"] and cues[name]["zh"], name
    assert extract.WORTH_ASK.search("is gradient checkpointing worth it") and extract.WORTH_ASK.search("这个值不值得上")
    assert extract.JUDGE_ASK.search("throughput is 2k tokens/s per GPU, is that low?") and extract.JUDGE_ASK.search("这个吞吐正常吗")
    assert not extract.JUDGE_ASK.search("how do I measure throughput")
    assert extract.SIDES.search("ZeRO-2 or FSDP").groups() == ("ZeRO-2", "FSDP")
    assert extract.SIDES.search("bf16和fp16").groups() == ("bf16", "fp16")


def test_a_follow_ups_parts_come_from_its_own_words_not_from_the_question_it_follows() -> None:
    hits = [
        Hit("Tokens per second per GPU come from the training log. Peak FLOPS is the dense figure for the precision.", "Measuring", "t"),
        Hit("Large dense runs typically reach a utilisation range of 35 to 50 percent.", "Published figures", "t"),
    ]
    earlier = "how is utilisation computed? which peak flops should I use?"
    follow_up = "we get 30 percent, is that low?"
    candidates = [u for index, hit in enumerate(hits) for u in units(hit.text, index)]
    _score(f"{earlier} {follow_up}", hits, candidates, None, None)
    # Read as one question, the earlier question's two parts would each claim a sentence of the answer ...
    assert len(_part_answers(f"{earlier} {follow_up}", hits, candidates, None, None)) == 2
    # ... but they were answered in their own turn: a follow-up in one part forces no part answers.
    assert _part_answers(f"{earlier} {follow_up}", hits, candidates, None, None, asked=follow_up) == []


def test_is_our_value_low_prefers_the_typical_range() -> None:
    hits = [
        Hit(
            "Utilisation is the share of peak throughput a job reaches. Utilisation counts only model work. "
            "Utilisation is usually in the range of 35 to 50 percent for large dense models.",
            "Utilisation",
            "u",
        )
    ]
    judged = compose_faq("our utilisation is 30 percent, is that low?", "en", hits, None, max_points=1)
    assert "usually in the range" in quoted(judged), quoted(judged)


def test_asked_what_to_do_the_fix_list_is_not_crowded_out_by_another_section() -> None:
    fixes = [
        "Shard the optimizer state with ZeRO.",
        "Offload parameters to CPU memory.",
        "Recompute activations during backward.",
        "Use a smaller micro-batch with gradient accumulation.",
    ]
    hits = [
        Hit("Memory runs out for several reasons. Out of memory in backward is the usual case. Memory use grows in backward.", "Why memory runs out", "m"),
        Hit("Try these, cheapest first:\n\n" + "\n".join(f"- {f}" for f in fixes), "Fixes for out of memory", "m"),
    ]
    result = compose_faq("out of memory in backward, what should I try?", "en", hits, None, max_points=4)
    assert all(f in quoted(result) for f in fixes), quoted(result)
