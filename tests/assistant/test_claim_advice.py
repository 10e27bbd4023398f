"""Claim checks that say what an expert would: end-to-end speed-up bands, parity claims, RoCE vs InfiniBand (claim_checks.py)."""

from __future__ import annotations

import pytest

from service.contract import ChatRequest


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], answer.grounding.ungrounded
    return answer


def test_a_precision_speed_up_gets_an_end_to_end_band_below_the_peak_ratio(advisor) -> None:
    answer = ask(advisor, "Someone told me FP8 makes H200 training twice as fast as BF16. Realistic?")
    band = next(c for c in answer.tool_calls if c.tool == "amdahl-speedup").output
    assert 1.2 < band["end_to_end_low"] < band["end_to_end_high"] < 1.7
    assert "Amdahl" in answer.answer


def test_a_parity_claim_between_gpus_states_both_dense_peaks(advisor) -> None:
    answer = ask(advisor, "厂商说 H20 集群训练和 H100 一样快，可信吗？")
    first = answer.blocks[0].text
    assert "不成立" in first and "148" in first and "989.5" in first


def test_roce_equals_infiniband_names_the_tuning_it_needs(advisor) -> None:
    answer = ask(advisor, "A reseller says RoCE and InfiniBand are identical for distributed training. Is that right?")
    first = answer.blocks[0].text
    assert "partly" in first and "PFC" in first and "ECN" in first and "DCQCN" in first


@pytest.mark.parametrize(
    ("question", "verdict", "numbers"),
    [
        ("听说H20训练比A100快，真的吗", "只对了一部分", ["148", "312", "4,000"]),  # bandwidth ahead, compute behind
        ("someone told me an RTX 4090 is slower than a T4 for training, is that so?", "false", ["65", "165.2"]),
        ("the vendor claims the H100 SXM is faster than the A100 80GB SXM for training, correct?", "true", ["989", "312"]),
    ],
)
def test_which_card_is_faster_is_checked_against_compute_and_bandwidth(advisor, question, verdict, numbers) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "claim_check"
    check = [c for c in answer.tool_calls if c.tool == "claim-check"]
    assert check and "compute_ratio" in check[0].output and "bandwidth_ratio" in check[0].output
    lead = answer.blocks[0].text
    assert verdict in lead.lower() or verdict in lead
    assert all(n in lead for n in numbers)
