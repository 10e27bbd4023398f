""""L40S trains as fast as an H100 at half the price": false on compute, and the answer names why for training (memory
type and bandwidth, capacity, no NVLink, price per unit of compute) and where the claim is roughly fair (en and zh)."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest
from tests.assistant.asking import ask
from tests.assistant.test_claim_checks import CATALOG, _run

L40S, H100 = CATALOG.gpus["l40s"], CATALOG.gpus["h100-sxm"]


def _body(finding) -> str:
    return " ".join([finding.lead, *finding.points])


@pytest.mark.parametrize(
    "text",
    [
        "A vendor says their L40S cluster trains as fast as an H100 at half the price. True?",
        "Our integrator insists the L40S is basically an H100 for training and costs half as much.",
        "厂商说 L40S 训练性能跟 H100 差不多，价格只要一半，靠谱吗？",
        "听说L40S和H100训练一样快，还便宜一半",
    ],
)
def test_training_parity_names_memory_link_price_and_where_it_is_fair(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "speedup" and finding.verdict == "false"
    body = _body(finding)
    # memory: capacity, type and bandwidth of both, from the catalog
    for figure in ("48 GB", "80 GB", "864 GB/s", "3,350 GB/s", "GDDR6", "HBM3"):
        assert figure in body, figure
    assert "NVLink" in body and "PCIe Gen4" in body
    # the all-reduce over PCIe against NVLink, from the allreduce tool
    ratio = next(c.output["ratio"] for c in ctx.tool_calls if c.tool == "allreduce-ratio")
    assert ratio > 5
    # price per unit of compute: the cheaper card costs more per dense TFLOPS
    price = next(c.output for c in ctx.tool_calls if c.tool == "price-per-compute")
    assert price["price_ratio"] < 0.6 and price["cost_per_compute_ratio"] > 1
    # decode is not "close" when the bandwidths are ~4x apart
    assert "close" not in body and "很接近" not in body
    fair = finding.points[-1]
    assert ("roughly fair" in fair or "大致成立" in fair) and "LoRA" in fair


def test_without_a_price_word_no_price_point_is_made() -> None:
    kind, finding, ctx = _run("a colleague says the L40S trains just as fast as an H100")
    assert kind == "speedup" and finding.verdict == "false"
    assert not any(c.tool == "price-per-compute" for c in ctx.tool_calls)
    assert "NVLink" in _body(finding)


def test_same_bandwidth_class_keeps_the_decode_exception() -> None:
    # H20 against H100: compute far apart, bandwidth close: decode is the exception, no memory point
    kind, finding, _ = _run("a colleague says the H20 is basically an H100 for pretraining, is that right?")
    assert kind == "speedup" and finding.verdict == "false"
    assert "close" in finding.points[0]


@pytest.mark.parametrize("text", ["A vendor says their L40S cluster trains as fast as H100 at half the price. True?",
                                  "厂商说L40S训练性能跟H100差不多，价格只要一半，靠谱吗？"])
def test_the_answer_is_grounded_end_to_end(advisor, text: str) -> None:
    answer = ask(advisor, text)
    assert answer.intent == "claim_check"
    assert "864" in answer.answer and "3,350" in answer.answer and "NVLink" in answer.answer
    if "厂商" in text:
        assert "Memory" not in answer.answer and "Where the claim" not in answer.answer


def test_unattributed_parity_claim_still_gets_the_check_when_routed_here(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="I heard L40S trains as fast as an H100 for half the price"))
    assert answer.grounding.ungrounded == []


@pytest.mark.parametrize("text", ["the L40S trains as fast as an H100 at half the price", "L40S 训练和 H100 一样快，还便宜一半"])
def test_a_bare_parity_assertion_is_checked_not_priced(advisor, text: str) -> None:
    # No vendor, no "true?": the assertion alone is the claim (it once read as a rent-or-buy question).
    answer = ask(advisor, text)
    assert answer.intent == "claim_check" and "claim-check" in [c.tool for c in answer.tool_calls]
    assert "break-even" not in answer.answer.lower() and "回本" not in answer.answer


def test_a_consumer_card_parity_claim_states_the_link_once(advisor) -> None:
    answer = ask(advisor, "RTX 4090 训练跟 A100 一样快")
    allreduce = [c for c in answer.tool_calls if c.tool == "allreduce"]
    assert allreduce and "P2P" in answer.answer
    slow_ms = next(c.output["total_ms"] for c in allreduce if c.input["gpu"] == "rtx-4090")
    assert answer.answer.count(f"{slow_ms:,.0f}") == 1, answer.answer
    bullets = [line for line in answer.answer.splitlines() if line.startswith("- ")]
    assert "说法大致成立" in bullets[len([b for b in bullets if "[" not in b]) - 1]  # the fair point closes the check
