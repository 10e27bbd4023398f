"""handlers/claims.py: a claim no tool can check gets the knowledge base's answer and the list of what can be checked,
including the kinds checked beside claim_checks (scaling efficiency, offload, a weight format on one card), never
another claim's verdict (en and zh)."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask


@pytest.mark.parametrize("text", ["Someone told me H100 GPUs are painted by hand, true?", "有人说 H100 的散热比 A100 更安静，是真的吗？"])
def test_unrecognised_claims_list_what_can_be_checked(advisor, text: str) -> None:
    answer = ask(advisor, text)
    notice = next(b.text for b in answer.blocks if b.type == "notice")
    assert ("scaling-efficiency" in notice and "offload" in notice) or ("扩展效率" in notice and "offload" in notice)
    assert "Verdict" not in answer.answer and "结论：" not in answer.answer
