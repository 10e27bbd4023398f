""""Their stack runs a 70B in FP16 on a single 24 GB 4090": the FP16 weight size against 24 GB, and a follow-up "what
about INT4?" gives the INT4 size and still does not fit one card (two cards or offload), in en and zh."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask
from tests.assistant.test_claim_checks import _run


@pytest.mark.parametrize(
    "text",
    [
        "A vendor says their stack runs Llama 2 70B in FP16 on a single 24 GB RTX 4090.",
        "Salesman claims their inference engine serves Qwen2-72B at fp16 on one 4090.",
        "厂商说他们的推理框架能在单张24G的4090上跑FP16的70B模型",
        "供应商说用他们的引擎，一张 4090 就能跑 70B 的 FP16 推理",
    ],
)
def test_fp16_weights_against_one_card(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "weights" and finding.verdict == "false"
    out = next(c.output for c in ctx.tool_calls if c.tool == "claim-check")
    assert 130 < out["weights_gb"] < 150 and 33 < out["int4_weights_gb"] < 43  # Qwen2-72B is 72.7B in the catalog: 42.3 GB at int4
    assert out["gpus_needed"] == 8
    body = " ".join([finding.lead, *finding.points])
    assert f"{out['weights_gb']:.0f} GB" in finding.lead and "24 GB" in finding.lead
    assert "INT4" in body and ("two cards" in body or "两张卡" in body)


def test_int4_named_directly() -> None:
    kind, finding, ctx = _run("a vendor says their runtime serves Llama 2 70B in INT4 on one RTX 4090")
    assert kind == "weights" and finding.verdict == "false"
    out = next(c.output for c in ctx.tool_calls if c.tool == "claim-check")
    assert out["gpus_needed"] == 2 and "INT4" in finding.lead


def test_a_model_that_fits_is_true() -> None:
    kind, finding, _ = _run("someone says an H100 runs Llama 3 8B in FP16 without trouble")
    assert kind == "weights" and finding.verdict == "true"


def test_a_speed_claim_stays_a_decode_check() -> None:
    kind, _, _ = _run("a vendor says their stack runs Llama 2 70B in INT4 on one RTX 4090 at 30 tokens/s")
    assert kind != "weights"


@pytest.mark.parametrize(
    ("first", "follow", "marker"),
    [
        ("A vendor says their stack runs Llama 2 70B in FP16 on a single 24 GB RTX 4090.", "what about INT4?", "INT4"),
        ("厂商说他们的推理框架能在单张24G的4090上跑FP16的70B模型", "那INT4呢？", "INT4"),
        ("供应商说用他们的引擎，一张 4090 就能跑 70B 的 FP16 推理", "换成 4 位量化呢", "INT4"),
    ],
)
def test_follow_up_int4_gives_the_int4_size_and_still_does_not_fit(advisor, first: str, follow: str, marker: str) -> None:
    answer = ask(advisor, first, follow)
    assert answer.intent == "claim_check"
    check = next(c.output for c in answer.tool_calls if c.tool == "claim-check")
    assert 33 < check["weights_gb"] < 42 and check["gpus_needed"] == 2
    top = answer.answer.split("\n")[0]
    assert marker in top and ("false" in top or "不成立" in top)
