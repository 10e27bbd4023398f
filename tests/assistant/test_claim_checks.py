"""Claim checks answer the claim that was made, with its own numbers, never another claim's verdict."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from service.assistant import claim_checks
from service.assistant.handlers.base import Context
from service.assistant.messages import catalog as messages
from service.assistant.slots import extract_slots
from service.catalog import default_catalog

CATALOG = default_catalog()


def _context(text: str) -> Context:
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
    understanding = SimpleNamespace(slots=extract_slots(text, CATALOG), intent="claim_check", language=lang, context=None)
    return Context(text=text, understanding=understanding, catalog=CATALOG, index=None)


def _run(text: str) -> tuple[str | None, claim_checks.Finding | None, Context]:
    ctx = _context(text)
    kind = claim_checks.classify(text, ctx.slots, CATALOG)
    return kind, (claim_checks.check(kind, ctx) if kind else None), ctx


def test_fp8_on_ampere_is_a_feature_claim_that_fails() -> None:
    kind, finding, ctx = _run("a vendor promises 2x speedup from FP8 on our A100s, legit?")
    assert kind == "feature" and finding.verdict == "false"
    assert "Ampere" in finding.lead and "FP8" in finding.lead and "H100" in " ".join(finding.points)
    assert ctx.tool_calls[-1].output["supported"] is False


def test_nvlink_on_a_pcie_card_is_refuted_from_the_catalog() -> None:
    kind, finding, _ = _run("someone told me the L40S has NVLink so multi-gpu training is fine")
    assert kind == "feature" and finding.verdict == "false" and "PCIe" in finding.lead


def test_network_adequacy_compares_allreduce_with_compute() -> None:
    kind, finding, ctx = _run("100G 以太网够不够跑 70B 多机预训练")
    assert kind == "network" and finding.verdict == "insufficient"
    assert "InfiniBand" in " ".join(finding.points) and {"allreduce", "training-time"} <= {c.tool for c in ctx.tool_calls}
    share = ctx.tool_calls[-1].output["comm_share"]
    assert share > 0.3 and ctx.tool_calls[-1].output["infiniband_ndr_share"] < share


def test_gpu_speedup_quotes_the_claim_and_the_datasheet_ratios() -> None:
    kind, finding, ctx = _run("有人说H100比A100快6倍，靠谱吗")
    assert kind == "speedup" and finding.verdict == "optimistic"
    assert "6 倍" in finding.points[0]
    output = next(c.output for c in ctx.tool_calls if "compute_ratio" in c.output)
    assert 2.5 < output["compute_ratio"] < 4 and output["bandwidth_ratio"] < output["compute_ratio"]


def test_precision_speedup_at_the_paper_ratio_is_overstated() -> None:
    kind, finding, _ = _run("FP8 on H100 doubles training speed, right?")
    assert kind == "speedup" and finding.verdict == "optimistic" and "FP8" in finding.lead


def test_throughput_claim_uses_the_claimed_figure() -> None:
    kind, finding, _ = _run("据说4张A100每秒能处理400个样本训练Qwen-14B")
    assert kind == "throughput" and finding.verdict == "not_credible" and "400 samples/s" in finding.lead


def test_memory_claim_says_which_method_fits() -> None:
    kind, finding, _ = _run("听说单张4090就够微调llama 3 8b了")
    assert kind == "memory" and finding.verdict == "partly_true" and "QLoRA" in finding.lead


def test_time_claim_quotes_the_claimed_duration() -> None:
    kind, finding, _ = _run("有文章说64台8卡H100服务器10天就能完成LLaMA-3 70B预训练")
    assert kind == "time" and finding.verdict == "not_credible" and "10 天" in finding.lead


@pytest.mark.parametrize("text", ["is it true that GPUs are getting cheaper every year?", "听说明年显卡会降价，是真的吗"])
def test_claims_the_tools_cannot_check_are_not_given_a_verdict(text: str) -> None:
    assert _run(text)[0] is None


def test_message_catalogs_have_the_same_keys_and_placeholders() -> None:
    import string

    en, zh = messages("en"), messages("zh")
    assert en.keys() == zh.keys()
    fields = lambda s: {f[1] for f in string.Formatter().parse(s) if f[1]}  # noqa: E731
    assert [k for k in en if fields(en[k]) != fields(zh[k])] == []
    assert not [k for k, v in zh.items() if re.search(r"[A-Za-z]{4,}", re.sub(r"\{[^}]*\}|[A-Z0-9][A-Za-z0-9-]*|\w+/s", "", v))
                and not re.search(r"[\u4e00-\u9fff]", v)]


def test_lora_all_reduces_only_the_adapters() -> None:
    kind, finding, ctx = _run("is 25GbE enough between two nodes for LoRA fine-tuning a 7B?")
    assert kind == "network" and finding.verdict == "sufficient"
    comm = next(c for c in ctx.tool_calls if c.tool == "allreduce")
    assert "size_mb" in comm.input and comm.input["size_mb"] < 200  # adapters, not the 14 GB of a 7B's gradients
    assert comm.input["gpus"] == 16  # "two nodes" of eight


def test_a_10g_link_between_two_nodes_is_read() -> None:
    kind, finding, ctx = _run("两台机器之间只有 10G 网，全参训 7B 够吗")
    assert kind == "network" and finding.verdict == "insufficient"
    assert next(c for c in ctx.tool_calls if c.tool == "allreduce").input["nic_gbps_per_gpu"] == 10 / 8


@pytest.mark.parametrize(
    ("text", "verdict", "figure"),
    [
        ("同事说 H100 显存带宽是 A100 的 3 倍", "false", "memory_bandwidth_gbps"),
        ("someone said the H200 has 1.76x the memory of an H100, true?", "true", "memory_gb"),
        ("blog says H200 has 2x the memory bandwidth of H100", "false", "memory_bandwidth_gbps"),
    ],
)
def test_a_ratio_claimed_for_one_datasheet_figure_is_checked_on_that_figure(text, verdict, figure) -> None:
    kind, finding, ctx = _run(text)
    assert kind == "speedup" and finding.verdict == verdict
    assert next(c for c in ctx.tool_calls if c.tool == "claim-check").input["figure"] == figure


def test_a_training_speed_up_is_still_a_speed_up() -> None:
    _, finding, ctx = _run("有人说 H100 比 A100 训练快 3 倍，靠谱吗")
    assert "figure" not in next(c for c in ctx.tool_calls if c.tool == "claim-check").input


def test_a_gpu_count_someone_put_on_a_serving_job_is_held_against_the_fewest_that_hold_it() -> None:
    kind, finding, ctx = _run("the reseller says we need 24 L40S to serve Llama 3 8B to 400 users")
    assert kind == "serving_count" and finding.verdict == "false"
    check = next(c for c in ctx.tool_calls if c.tool == "claim-check").output
    assert check["fewest_gpus"] < 24 / 2 and check["claimed_over_fewest"] == 24 / check["fewest_gpus"]
