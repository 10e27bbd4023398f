"""Claims decided by hardware figures (claim_checks_hardware.py) and compound claims: each kind is found, computed by the
tools and answered with the claim's own number and the gap."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from service.assistant import claim_checks
from service.assistant.claim_checks_hardware import claimed_ms_per_token
from service.assistant.handlers.base import Context
from service.assistant.slots import extract_slots
from service.catalog import default_catalog

CATALOG = default_catalog()


def _run(text: str):
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
    understanding = SimpleNamespace(slots=extract_slots(text, CATALOG), intent="claim_check", language=lang, context=None)
    ctx = Context(text=text, understanding=understanding, catalog=CATALOG, index=None)
    kind = claim_checks.classify(text, ctx.slots, CATALOG)
    return kind, (claim_checks.check(kind, ctx) if kind else None), ctx


def _output(ctx, tool: str) -> list[dict]:
    return [c.output for c in ctx.tool_calls if c.tool == tool]


@pytest.mark.parametrize(("text", "ms"), [("12 ms per token", 12.0), ("每秒 50 个 token", 20.0), ("推理 10-20 tokens/s", 50.0),
                                          ("每秒8到16个token", 62.5), ("no figure here", None)])
def test_the_claimed_per_token_time_is_read_in_ms_or_from_a_rate(text: str, ms: float | None) -> None:
    assert claimed_ms_per_token(text) == ms


def test_a_per_token_latency_claim_is_checked_against_the_bandwidth_floor_per_tp_degree() -> None:
    kind, finding, ctx = _run("供应商说 Llama-3-70B 在 H100 上每个输出 token 只要 3 毫秒，可信吗？")
    assert kind == "decode" and finding.verdict == "not_credible"
    floors = _output(ctx, "decode-floor")
    assert [f["floor_ms_per_token"] for f in floors] == sorted((f["floor_ms_per_token"] for f in floors), reverse=True)
    assert min(f["floor_ms_per_token"] for f in floors) > 3  # below every floor: physically impossible
    text = finding.lead + " ".join(finding.points)
    assert "显存带宽" in text and "张量并行" in text and "TP=8" in text and "3 毫秒" in finding.lead


def test_a_latency_reachable_only_with_tensor_parallelism_is_plausible_on_enough_gpus() -> None:
    kind, finding, ctx = _run("Is 30 ms per output token per user realistic for Llama-3-70B on A100s?")
    assert kind == "decode" and finding.verdict == "plausible"
    typical = {f["floor_ms_per_token"]: f["typical_ms_per_token"] for f in _output(ctx, "decode-floor")}
    assert min(typical.values()) <= 30 < max(typical.values())  # one TP degree is too slow, a larger one meets it
    assert "memory-bandwidth-bound" in " ".join(finding.points)


def test_a_moe_models_floor_counts_only_the_active_experts() -> None:
    kind, finding, ctx = _run("They say Mixtral 8x7B decodes at 5 ms per token per user on one A100. Really?")
    assert kind == "decode"
    floor = _output(ctx, "decode-floor")[0]
    assert floor["floor_ms_per_token"] <= floor["typical_ms_per_token"]


@pytest.mark.parametrize("text", ["Someone says the A800 trains exactly as fast as the A100.", "听说阉割版的 H800 训练大模型慢很多，真的吗？"])
def test_an_export_variant_claim_names_the_nvlink_cut_and_the_same_compute(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "export" and finding.verdict == "partly_true"
    check = _output(ctx, "claim-check")[-1]
    assert check["variant_bf16_dense_tflops"] == check["base_bf16_dense_tflops"]
    assert check["variant_nvlink_gbps"] == 400 and check["base_nvlink_gbps"] in (600, 900)
    assert "400 GB/s" in finding.lead and ("600 GB/s" in finding.lead or "900 GB/s" in finding.lead)


def test_an_export_claim_with_a_model_times_the_allreduce_on_both_cards() -> None:
    kind, finding, ctx = _run("H800 跑 Qwen2-72B 训练和 H100 一样快吗")
    assert kind == "export"
    slow, fast = (o["total_ms"] for o in _output(ctx, "allreduce"))
    assert slow > fast


def test_cannot_hold_so_tensor_parallel_is_only_partly_true() -> None:
    kind, finding, ctx = _run("My colleague says a 40GB A100 can't hold Llama-2-70B full fine-tuning, so tensor parallel is a must.")
    assert kind == "memory" and finding.verdict == "partly_true"
    layouts = {(o["tp"], o["sharding"]) for o in _output(ctx, "training-memory")}
    assert (8, "none") in layouts and (1, "zero3") in layouts
    assert "ZeRO-3" in " ".join(finding.points) and "not enough by itself" in " ".join(finding.points)


def test_a_time_claim_with_a_speedup_checks_both_parts() -> None:
    kind, finding, ctx = _run("听说 128 张 H100 两天就能把 Llama-3-8B 预训练完，而且比 A100 快五倍")
    assert kind == "time"
    assert {"training-time", "gpus-for-deadline"} <= {c.tool for c in ctx.tool_calls}
    speed = next(p for p in finding.points if p.startswith("说法中关于加速比的部分"))
    assert "5 倍" in speed and "3.17 倍" in speed  # the claim's own factor against the data-sheet ratio
    assert [c.input["claimed_speedup"] for c in ctx.tool_calls if c.tool == "claim-check" and "claimed_speedup" in c.input] == [5]


def test_a_throughput_claim_with_a_plus_sign_is_still_a_throughput_claim() -> None:
    kind, finding, _ = _run("Vendor: 8x A100 80GB do 900+ samples/sec fine-tuning Llama-2-13B. True?")
    assert kind == "throughput" and "900 samples/s" in finding.lead


def test_a_fine_tuning_claim_with_an_inference_speed_checks_memory_then_decode() -> None:
    kind, finding, ctx = _run("广告说一块 A10 就能微调 Qwen2-7B，推理每秒 60 个 token")
    assert kind == "memory"
    assert any(p.startswith("说法中关于推理速度的部分") for p in finding.points)
    assert _output(ctx, "decode-floor")


@pytest.mark.parametrize("question", ["有人说 A100 上跑 Llama-3-70B，每个用户每个输出 token 只要 25 毫秒，靠谱吗？",
                                      "A reseller claims the A800 is just as fast as an A100 for training Qwen2-72B. Agree?"])
def test_the_whole_answer_is_grounded_and_in_the_users_language(advisor, question: str) -> None:
    from tests.assistant.asking import ask

    answer = ask(advisor, question)  # asserts every number is grounded
    assert answer.intent == "claim_check"
    if answer.language == "zh":
        assert "显存带宽" in answer.answer and "张量并行" in answer.answer and "TP=" in answer.answer
    else:
        assert "400 GB/s" in answer.answer and "600 GB/s" in answer.answer


def test_an_export_card_against_another_card_is_not_an_export_claim() -> None:
    kind, _, _ = _run("有人说 H800 和 H20 训练一样快")
    assert kind != "export"


def test_a_decode_claim_is_sized_with_the_weight_format_it_names() -> None:
    kind, finding, ctx = _run("Heard one H200 serves Llama-3-70B at 12 ms per token for a single user with FP8 weights. Plausible?")
    assert kind == "decode"
    assert {c.input["weights"] for c in ctx.tool_calls if c.tool == "inference"} == {"fp8"}
    assert "FP8 weights" in finding.lead
