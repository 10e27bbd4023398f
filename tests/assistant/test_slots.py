"""Slot extraction from zh/en free text, normalised; only what the user states."""

import pytest

from service.assistant.slots import extract_slots
from service.catalog import default_catalog


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


CASES = [
    ("我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？",
     {"model": "qwen-14b", "task": "fine-tune", "method": "full", "deadline_hours": 24}),
    ("有文章说64台8卡H100服务器10天就能完成LLaMA-3 70B预训练，靠谱吗？",
     {"model": "llama-3-70b", "task": "pretrain", "gpu": "h100-sxm", "gpus": 512, "nodes": 64, "deadline_hours": 240}),
    ("70B模型用LoRA微调需要几张A100 80G？", {"params_b": 70, "task": "fine-tune", "method": "lora", "gpu": "a100-80gb-sxm"}),
    ("How long to pretrain a 7B model on 2 trillion tokens with 256 H100s?",
     {"params_b": 7, "task": "pretrain", "tokens": 2e12, "gpu": "h100-sxm", "gpus": 256}),
    ("50万条样本，每条1024 token，预算5万元，千问14B全参微调",
     {"model": "qwen-14b", "task": "fine-tune", "method": "full", "samples": 5e5, "seq_len": 1024, "budget": 5e4, "currency": "CNY"}),
    ("We have $20k and need to QLoRA fine-tune Llama 3 8B on 50k examples within 3 days",
     {"model": "llama-3-8b", "task": "fine-tune", "method": "qlora", "samples": 5e4, "deadline_hours": 72, "budget": 2e4, "currency": "USD"}),
    ("4x A100 80G跑 Qwen2.5 72B 推理，100并发，上下文8K",
     {"model": "qwen2.5-72b", "task": "inference", "gpu": "a100-80gb-sxm", "gpus": 4, "concurrency": 100, "context_len": 8192}),
    ("700亿参数的模型全参微调需要多少显存", {"params_b": 70, "task": "fine-tune", "method": "full"}),
    ("数据不能出域，要训练一个13B的模型", {"params_b": 13, "data_sensitivity": "restricted"}),
    ("年利用率80%的话自建还是上云划算？8卡H100", {"gpu": "h100-sxm", "gpus": 8, "yearly_utilization": 0.8}),
    ("3000亿token，8卡H100，要训多久", {"tokens": 3e11, "gpu": "h100-sxm", "gpus": 8}),
    ("Rough cost of 10,000 H100 GPU-hours?", {"gpu": "h100-sxm", "gpu_hours": 1e4}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_extracts_stated_values(catalog, text, expected):
    assert extract_slots(text, catalog).stated() == pytest.approx(expected)


def test_elapsed_time_is_not_a_deadline(catalog):
    assert "deadline_hours" not in extract_slots("训练跑了三天，机房突然断电，是不是全白干了？", catalog).stated()


def test_two_gpus_are_a_comparison(catalog):
    assert extract_slots("H100 vs A100 训练速度差多少", catalog).compare_gpus == ["h100-sxm", "a100-80gb-sxm"]
    assert extract_slots("A100有40G和80G两个版本，做微调该选哪个", catalog).compare_gpus == ["a100-40gb-sxm", "a100-80gb-sxm"]


def test_measured_bus_bandwidth(catalog):
    assert extract_slots("8张H100 busbw只有20 GB/s正常吗", catalog).measured_busbw_gbps == 20


@pytest.mark.parametrize(("text", "budget"), [("课题组有40万预算采购服务器", 400_000), ("经费大概50万，买什么卡", 500_000)])
def test_wan_with_a_budget_word_is_a_cny_budget(text, budget) -> None:
    slots = extract_slots(text, default_catalog())
    assert slots.budget == budget and slots.currency == "CNY"


def test_wan_without_a_budget_word_is_no_budget() -> None:
    assert extract_slots("训练40万步要多久", default_catalog()).budget is None
