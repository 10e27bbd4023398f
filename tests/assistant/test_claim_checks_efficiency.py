""""95% scaling efficiency to 1,000+ GPUs over plain Ethernet/RoCE": the answer estimates all-reduce against compute
per step with the tools, at two global batches and model sizes, and says what the figure depends on (en and zh)."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask
from tests.assistant.test_claim_checks import _run


def _check(ctx) -> dict:
    return next(c.output for c in ctx.tool_calls if c.tool == "claim-check")


@pytest.mark.parametrize(
    ("text", "gpus", "fabric"),
    [
        ("A startup claims 95% scaling efficiency to 1,000+ GPUs over plain Ethernet RoCE. Believable?", 1000, "RoCE"),
        ("有厂商宣称用普通以太网 RoCE 可以在1000多张卡上做到95%的扩展效率，可信吗？", 1000, "RoCE"),
        ("Vendor claims near-linear 95% scaling efficiency on 2,048 GPUs using standard Ethernet.", 2048, "TCP"),
        ("听说有团队在两千张卡上用以太网做到了 90% 的线性度", 2000, "TCP"),
    ],
)
def test_efficiency_claim_is_estimated_and_explained(text: str, gpus: int, fabric: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "efficiency"
    out = _check(ctx)
    assert out["gpus"] == gpus
    rows = [v for v in out.values() if isinstance(v, dict)]
    assert len(rows) == 4 and all(0 < r["efficiency_no_overlap"] < 1 for r in rows)
    # a bigger global batch means more compute per all-reduce, so higher efficiency
    assert rows[1]["efficiency_no_overlap"] > rows[0]["efficiency_no_overlap"]
    assert {"allreduce", "training-time"} <= {c.tool for c in ctx.tool_calls}
    body = " ".join([finding.lead, *finding.points])
    assert fabric in body and "InfiniBand" in body and "all-reduce" in body
    assert ("batch" in body) and ("overlap" in body or "重叠" in body) and ("RDMA" in body)
    if fabric == "TCP":
        assert finding.verdict == "optimistic"


def test_same_fabric_does_not_compare_with_itself() -> None:
    kind, finding, _ = _run("A vendor claims 98% scaling efficiency on 512 H100 with InfiniBand.")
    assert kind == "efficiency"
    assert not any("with InfiniBand NDR" in p for p in finding.points)


def test_a_sublinear_linear_scaling_claim_is_still_the_scaling_check() -> None:
    kind, _, _ = _run("Scaling across 16 GPUs is sublinear, not linear, correct?")
    assert kind == "scaling"


@pytest.mark.parametrize("text", ["A startup claims 95% scaling efficiency to 1,000+ GPUs over plain Ethernet RoCE. Believable?",
                                  "有厂商宣称用普通以太网 RoCE 可以在1000多张卡上做到95%的扩展效率，可信吗？"])
def test_efficiency_answer_is_grounded(advisor, text: str) -> None:
    answer = ask(advisor, text)
    assert answer.intent == "claim_check" and "all-reduce" in answer.answer

