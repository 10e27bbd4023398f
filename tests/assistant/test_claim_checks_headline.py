"""Claims users bring with a headline figure or a derived rate: a TFLOPS number, a per-node network rate, a fine-tune
time given as samples × tokens per sample, a batch-1 decode rate, a memory fit (claim_checks_headline / _time /
_decode / _fit). Each finding quotes the claim's numbers and the tool's, in en and zh."""

from __future__ import annotations

import pytest

from tests.assistant.test_claim_checks import CATALOG, _run


@pytest.mark.parametrize(
    "text",
    [
        "Our integrator says the RTX 4090 has 660 TFLOPS so it is as good as an A100 for training, true?",
        "集成商说4090有660 TFLOPS，训练上跟A100一样，是真的吗？",
    ],
)
def test_a_sparse_peak_is_named_and_dense_compute_memory_and_link_decide(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "peak" and finding.verdict == "false"
    spec = CATALOG.gpus["rtx-4090"]
    assert ctx.tool_calls[-1].output["source_field"] == "sparse_fp8_tflops"
    assert "FP8" in finding.lead and "165.2" in finding.lead and "312" in finding.lead
    body = " ".join(finding.points)
    assert f"{spec.memory_gb:g} GB" in body and "40/80" in body and "PCIe Gen4" in body and "NVLink" in body


def test_a_dense_figure_alone_is_true() -> None:
    kind, finding, ctx = _run("the vendor claims the H100 SXM has 989 TFLOPS, right?")
    assert kind == "peak" and finding.verdict == "true" and ctx.tool_calls[-1].output["source_field"] == "bf16_dense_tflops"


@pytest.mark.parametrize(
    "text, per_gpu",
    [
        ("A cloud advertises 3.2 Tbps of networking per node. Good for training or marketing?", "400"),
        ("云厂商宣传每台节点3.2Tbps网络，对训练有用还是营销？", "400"),
        ("a provider says 800 Gbps per node is plenty for training", "100"),
    ],
)
def test_a_node_rate_is_split_per_gpu_and_checked_with_nccl(text: str, per_gpu: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "node_network" and f"{per_gpu} Gb/s" in finding.lead
    assert finding.verdict == ("true" if per_gpu == "400" else "partly_true")
    assert any(call.tool == "nccl-expected" for call in ctx.tool_calls)
    assert "nccl-tests" in " ".join(finding.points)
    if per_gpu == "400":
        assert "p5.48xlarge" in " ".join(finding.points)  # the catalog instance advertising the same figure


@pytest.mark.parametrize(
    "text",
    [
        "A vendor claims a full fine-tune of a 7B model on 1M samples of ~512 tokens takes 10 minutes on one A100. Realistic?",
        "厂商说用一张A100全量微调7B模型，100万条样本、每条约512个token，只要10分钟，靠谱吗？",
    ],
)
def test_a_fine_tune_time_multiplies_samples_by_their_length(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "time" and finding.verdict == "not_credible"
    timing = finding.results[0]
    assert timing.tokens == pytest.approx(1e6 * 512)
    claim = next(c for c in ctx.tool_calls if c.tool == "claim-check")
    assert claim.input["claimed_hours"] == pytest.approx(10 / 60) and claim.output["ratio"] > 100
    assert ("10 minutes" in finding.lead or "10 分钟" in finding.lead) and ("512M" in finding.points[0] or "5.12 亿" in finding.points[0])


@pytest.mark.parametrize(
    "text",
    [
        "Someone claims 10,000 tokens/s for Llama 70B on a single H100 at batch 1. Possible?",
        "有人说单张H100上跑Llama 70B，batch 1能达到每秒10000个token，可能吗？",
    ],
)
def test_a_batch_one_rate_is_bounded_by_memory_bandwidth(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "decode" and finding.verdict == "not_credible"
    claim = next(c for c in ctx.tool_calls if c.tool == "claim-check")
    assert claim.input["claimed_tokens_per_s"] == pytest.approx(10_000)
    assert claim.output["ceiling_tokens_per_s"] < CATALOG.gpus["h100-sxm"].memory_bandwidth_gbps / 70  # at most 1 byte per weight
    body = " ".join(finding.points)
    assert "BF16" in body  # 16-bit weights do not fit one 80 GB card
    assert "aggregate" in body or "总吞吐" in body  # what the figure could mean across many requests


def test_a_plausible_aggregate_is_told_apart_from_the_per_user_speed() -> None:
    _, finding, _ = _run("A vendor says Llama 3 8B runs at 800 tokens/s per user on one H100")
    assert finding.verdict == "not_credible" and "plausible" in finding.points[-1]


@pytest.mark.parametrize("text", ["I heard 70B fits on one 80GB card, is that true?", "听说70B模型一张H100 80G就能装下，是真的吗？"])
def test_a_fit_claim_depends_on_the_weight_format(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "memory" and finding.verdict == "partly_true"
    fits = next(c for c in ctx.tool_calls if c.tool == "claim-check").output
    assert fits["bf16"] == "does_not_fit" and fits["int4"] == "fits"
    assert "QLoRA" in " ".join(finding.points)


@pytest.mark.parametrize(
    "text",
    ["a salesman says their engine runs a 70B model on one RTX 4090 at 40 tokens/s for one user", "销售说他们的推理引擎能让70B模型在单张4090上每秒跑40个token"],
)
def test_weights_that_fit_nowhere_are_bounded_by_pcie(text: str) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "decode" and finding.verdict == "not_credible"
    floor = next(c for c in ctx.tool_calls if c.tool == "offload-floor").output
    assert floor["ceiling_tokens_per_s"] < 40 and floor["offloaded_gb"] > 0
    assert "PCIe" in finding.lead and "24" in finding.lead


def test_two_consumer_cards_hold_int4_weights_and_split_them_over_pcie() -> None:
    _, finding, ctx = _run("a salesman says their engine runs a 70B model on two RTX 4090 at 40 tokens/s for one user")
    # A bare 70B has grouped-query attention (shapes.estimate_shape), so its INT4 weights fit the two cards: the
    # ceiling is decode over both cards' bandwidth.
    check = next(c for c in ctx.tool_calls if c.tool == "claim-check").output
    assert check["bandwidth_gbps"] == pytest.approx(2 * CATALOG.gpus["rtx-4090"].memory_bandwidth_gbps)
    assert finding.verdict in ("optimistic", "plausible") and "PCIe" in " ".join(finding.points)


def test_a_follow_up_reuses_the_claim_it_follows() -> None:
    from dataclasses import replace
    from types import SimpleNamespace

    from service.assistant.handlers.claims import claim_check
    from tests.assistant.test_claim_checks import _context

    first = "a salesman says their engine runs a 70B model on one RTX 4090 at 40 tokens/s for one user"
    ctx = _context("and with two of them?")
    slots = _context(first).slots.model_copy(update={"gpus": 2})  # the merged slots a follow-up gets
    ctx = replace(
        ctx,
        understanding=SimpleNamespace(**{**vars(ctx.understanding), "slots": slots, "context": first}),
        index=SimpleNamespace(search=lambda *args, **kwargs: []),
    )  # no knowledge index: the tools answer alone
    draft = claim_check(ctx)
    check = next(c for c in ctx.tool_calls if c.tool == "claim-check")
    assert check.input["gpus"] == 2 and check.input["claimed_tokens_per_s"] == 40
    assert "40" in draft.blocks[0].text


@pytest.mark.parametrize(
    "text, verdict",
    [("they claim Llama 3 8B fits on a single 24GB card for full fine-tuning", "false"), ("someone said Llama 3 8B fits on one 24GB card with QLoRA", "true")],
)
def test_a_fit_claim_for_a_named_method_is_decided_by_that_method(text: str, verdict: str) -> None:
    kind, finding, _ = _run(text)
    assert kind == "memory" and finding.verdict == verdict


@pytest.mark.parametrize("rate, verdict, within", [(150, "optimistic", True), (300, "not_credible", False)])
def test_a_rate_beyond_16_bit_weights_is_checked_with_4_bit_ones(rate: int, verdict: str, within: bool) -> None:
    _, finding, ctx = _run(f"a vendor says Llama 3 8B does {rate} tokens/s for one user on an RTX 4090")
    assert finding.verdict == verdict and "RTX 4090" in finding.lead and "1 ×" in finding.lead  # the card named, not TP=8
    four = next(c for c in ctx.tool_calls if c.tool == "decode-floor" and c.input.get("weights") == "int4").output
    assert (four["ceiling_tokens_per_s"] >= rate) is within
    assert "INT4" in finding.points[1]
