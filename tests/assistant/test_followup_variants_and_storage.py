"""Follow-ups that name a sibling GPU by its form factor or memory size, and checkpoints written at the user's
storage speed (issue 7: follow-ups re-run the tools with what changed)."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest
from service.assistant.followup import sibling_variant
from service.assistant.slot_readers import storage_write_gbps
from service.catalog import default_catalog


@pytest.fixture(scope="module")
def gpu_ids():
    return list(default_catalog().gpus)


@pytest.mark.parametrize(
    ("previous", "text", "expected"),
    [
        ("h100-pcie", "and the SXM one?", "h100-sxm"),
        ("h100-sxm", "what about PCIe", "h100-pcie"),
        ("a100-80gb-sxm", "那40G的呢", "a100-40gb-sxm"),
        ("a100-40gb-pcie", "and 80GB?", "a100-80gb-pcie"),
        ("h100-sxm", "what about 4 of them", None),
        ("l40s", "and the SXM one?", None),
    ],
)
def test_sibling_variant(gpu_ids, previous, text, expected):
    assert sibling_variant(previous, text, gpu_ids) == expected


@pytest.mark.parametrize(
    ("text", "gbps"),
    [
        ("our NFS only writes about 200 MB/s", 0.2),
        ("共享存储写入大概1.5GB/s", 1.5),
        ("checkpoints go to a Lustre that does 20 GB/s writes", 20.0),
        ("400 Gb/s InfiniBand per GPU", None),
        ("H100 memory bandwidth is 3,350 GB/s", None),
    ],
)
def test_storage_write_speed(text, gbps):
    found = storage_write_gbps(text)
    assert (found is None and gbps is None) or found == pytest.approx(gbps)


def test_a_follow_up_spec_question_switches_the_form_factor(advisor):
    first = advisor.answer(ChatRequest(message="how fast is the memory on an H100 PCIe"))
    second = advisor.answer(ChatRequest(message="and the SXM one?", conversation_id=first.conversation_id))
    assert "2,000 GB/s" in first.answer
    assert second.intent == "spec" and "3,350 GB/s" in second.answer and "PCIe" not in second.answer.split("\n")[0]


def test_a_checkpoint_follow_up_uses_the_storage_speed(advisor):
    first = advisor.answer(ChatRequest(message="how large is a full checkpoint of Llama 3 70B with optimizer states"))
    second = advisor.answer(
        ChatRequest(message="our shared storage writes at about 500 MB/s, how long does one save take?", conversation_id=first.conversation_id)
    )
    (call,) = [c for c in second.tool_calls if c.tool == "checkpoint"]
    assert call.input["write_gbps"] == pytest.approx(0.5)
    assert second.grounding.ungrounded == [] and "minutes" in second.answer


def test_a_checkpoint_at_a_stated_write_speed_in_chinese(advisor):
    answer = advisor.answer(ChatRequest(message="Qwen2.5-32B 全量训练，checkpoint 写到 NAS，写入约 300MB/s，存一次要多久"))
    (call,) = [c for c in answer.tool_calls if c.tool == "checkpoint"]
    assert call.input["write_gbps"] == pytest.approx(0.3) and "分钟" in answer.answer


def test_rent_or_buy_with_a_workload_sizes_the_card_first(advisor):
    answer = advisor.answer(ChatRequest(message="we fine-tune 7B models with LoRA all year; buy or rent, and which cards?"))
    assert answer.intent == "cloud_vs_onprem"
    assert answer.recommendation is not None
    configuration = answer.recommendation["recommended"]["configuration"]
    assert configuration["gpus"] <= 2 and configuration["gpu"] != "h100-sxm"
    assert "break-even" in answer.answer.lower()


def test_fitting_a_model_in_16_bit_with_no_training_word_is_a_serving_fit(advisor):
    answer = advisor.answer(ChatRequest(message="will Qwen2.5-72B in bf16 fit on a single H100?"))
    assert {c.tool for c in answer.tool_calls} >= {"inference"}
    assert "training-memory" not in {c.tool for c in answer.tool_calls}
    assert "FP8" in answer.answer.split("\n")[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24G显存的卡能全参微调7B吗", ("rtx-4090", 24)),
        ("I have a 48GB card, what can I fine-tune?", ("l40s", 48)),
        ("显存只有16G能跑7B吗", ("t4", 16)),
        ("7B needs 16GB of memory in fp16", None),
        ("my card has 12GB", None),  # no catalog card of that size: nothing stands in
    ],
)
def test_a_card_known_by_its_memory(text, expected):
    from service.assistant.slot_readers import card_by_memory

    assert card_by_memory(text) == expected


def test_a_fit_on_a_card_known_by_its_memory_says_what_stood_in(advisor):
    answer = advisor.answer(ChatRequest(message="I have a 48GB card, can it fine-tune Llama 3 8B?"))
    assert answer.answer.startswith("**Yes")
    assert "You named a 48 GB card" in answer.answer and answer.grounding.ungrounded == []
