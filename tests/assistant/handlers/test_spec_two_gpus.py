"""Spec questions about two GPUs or two variants: both catalog entries side by side, each cited to its own spec card."""

from __future__ import annotations

from service.assistant.spec_facts import asked_attributes
from service.contract import ChatRequest


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], answer.grounding.ungrounded
    return answer


def _table_rows(answer) -> list[tuple[str, str, str]]:
    table = next(b for b in answer.blocks if b.type == "table")
    return [(row[0].text, row[1].text, row[2].text) for row in table.rows]


def test_the_power_of_two_gpus_is_answered_for_each_from_the_catalog(advisor) -> None:
    answer = ask(advisor, "board power of the H200 vs the L4?")
    assert answer.intent == "spec"
    rows = _table_rows(answer)
    assert {gpu for gpu, _, _ in rows} == {"NVIDIA H200 SXM 141GB", "NVIDIA L4"}, rows
    lookups = [c for c in answer.tool_calls if c.tool == "catalog-lookup"]
    assert len(lookups) == 2 and all(c.input["attributes"] == ["power"] for c in lookups)
    # each GPU's spec card is cited, not just the first one's
    assert len({c.title for c in answer.citations}) >= 2, answer.citations


def test_two_variants_get_their_own_bandwidths(advisor) -> None:
    answer = ask(advisor, "A100 40GB 和 A100 80GB 的显存带宽分别是多少")
    assert answer.intent == "spec"
    rows = _table_rows(answer)
    bandwidths = {gpu: value for gpu, _, value in rows}
    assert set(bandwidths) == {"NVIDIA A100 40GB SXM4", "NVIDIA A100 80GB SXM4"}, rows
    assert len(set(bandwidths.values())) == 2, rows  # each entry's own figure
    assert answer.language == "zh"


def test_a_variant_name_is_not_a_question_about_its_pcie_link() -> None:
    assert asked_attributes("TDP of the H100 PCIe vs the A100 80GB PCIe") == ["power"]
    assert "pcie" in asked_attributes("L40S 是 pcie 几代")


def test_vram_and_bandwidth_asked_together_are_both_answered() -> None:
    assert asked_attributes("a100 40gb vram and memory bandwidth?") == ["memory", "bandwidth"]
    assert asked_attributes("how much vram does the l40s have, and how fast is it")[0] == "memory"
    assert asked_attributes("L40S 显存带宽多少") == ["bandwidth"]  # 显存 names the kind of bandwidth


def test_a_link_figure_is_also_given_in_tb_per_second(advisor) -> None:
    answer = ask(advisor, "what's the NVLink bandwidth per GPU on an H200?")
    assert "0.9 TB/s" in answer.answer, answer.answer[:400]
