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


# -- issue 7: forms the slot reader used to miss ----------------------------------------------------------
@pytest.mark.parametrize(("text", "price", "currency"), [
    ("Our provider charges $1.85/GPU-hr for A100s; at 75% yearly utilization should we buy?", 1.85, "USD"),
    ("we pay $3.10 per GPU hour on demand", 3.1, "USD"),
    ("quoted 2.4 USD/GPU-hour for H100", 2.4, "USD"),
    ("云上租的话 每卡每小时 15 块，自建划算吗", 15, "CNY"),
    ("这家报价 ¥7.5/卡时，值不值得自己买", 7.5, "CNY"),
    ("A800 租用 11 元/卡/小时", 11, "CNY"),
])
def test_a_quoted_rental_rate_is_a_price_not_a_budget(catalog, text, price, currency):
    slots = extract_slots(text, catalog)
    assert slots.cloud_price_per_gpu_hour == pytest.approx(price)
    assert slots.currency == currency
    assert slots.budget is None
    assert slots.gpus is None  # "15 块" is money here, not 15 GPUs


def test_a_budget_is_still_a_budget(catalog):
    slots = extract_slots("We have a $40k budget to fine-tune Llama 3 8B", catalog)
    assert slots.budget == 4e4 and slots.cloud_price_per_gpu_hour is None


@pytest.mark.parametrize(("text", "gpu", "gpus"), [
    ("16xH100 集群多久能训完", "h100-sxm", 16),
    ("one node of 8×A800", "a800", 8),
    ("4x4090 serving a 13B model", "rtx-4090", 4),
    ("2xL40S enough for SDXL inference?", "l40s", 2),
    ("we own eight RTX 4090 cards", "rtx-4090", 8),
    ("fine-tune on two H100s", "h100-sxm", 2),
    ("twelve A100 GPUs in one pod", "a100-80gb-sxm", 12),
    ("实验室有四张A100", "a100-80gb-sxm", 4),
    ("三块4090能不能跑", "rtx-4090", 3),
    ("renting H100s right now, 8xH100 per job", "h100-sxm", 8),  # the mention that carries the count
])
def test_counts_glued_or_in_words(catalog, text, gpu, gpus):
    slots = extract_slots(text, catalog)
    assert (slots.gpu, slots.gpus) == (gpu, gpus)


@pytest.mark.parametrize("text", ["两台8卡H800训7B要多久", "两台8卡服务器能训多大的模型"])
def test_machines_of_eight_cards_in_chinese_numerals(catalog, text):
    slots = extract_slots(text, catalog)
    assert (slots.nodes, slots.gpus) == (2, 16)


def test_a_word_that_is_not_a_count_is_left_alone(catalog):
    assert extract_slots("one of the H100s keeps falling off the bus", catalog).gpus is None


@pytest.mark.parametrize(("text", "users"), [
    ("serve a 7B assistant to 3,000 daily active users", 3000),
    ("chat app with 8k DAU, which GPU?", 8000),
    ("about 40,000 monthly active users", 40000),
    ("日活三万的客服机器人", 30000),
    ("五千日活，用什么卡部署", 5000),
])
def test_user_counts(catalog, text, users):
    assert extract_slots(text, catalog).users == users


@pytest.mark.parametrize(("text", "model", "params"), [
    ("部署 DeepSeek-R1-Distill-Qwen-14B 要几张卡", "deepseek-r1-distill-qwen-14b", 14.77),
    ("serve DeepSeek-R1-Distill-Llama-8B on one L4", "deepseek-r1-distill-llama-8b", 8.03),
])
def test_a_distilled_name_is_its_own_entry_not_its_prefix(catalog, text, model, params):
    slots = extract_slots(text, catalog)
    assert slots.model == model and catalog.models[model].params_b == params  # not DeepSeek-V3's 671B


@pytest.mark.parametrize(("text", "params"), [
    ("部署 DeepSeek-R1-Distill-Qwen-72B 要几张卡", 72),  # no such distill in the catalog: the name's own size, still not 671B
])
def test_the_parameter_count_in_an_unknown_distilled_name_wins_over_its_prefix(catalog, text, params):
    slots = extract_slots(text, catalog)
    assert slots.model is None and slots.params_b == params


@pytest.mark.parametrize(("text", "model"), [
    ("LoRA on Qwen2.5-14B-Instruct", "qwen2.5-14b"),
    ("Meta-Llama-3-8B-Instruct 全参微调", "llama-3-8b"),
    ("DeepSeek-R1 671B 推理需要几台 H20", "deepseek-v3"),
])
def test_a_suffix_that_agrees_keeps_the_catalog_entry(catalog, text, model):
    assert extract_slots(text, catalog).model == model


@pytest.mark.parametrize(("text", "gpus"), [("we have eight GPUs, how big a model can we fine-tune?", 8), ("two cards enough for a 7B?", 2)])
def test_bare_counts_in_words(catalog, text, gpus):
    assert extract_slots(text, catalog).gpus == gpus


def test_a_gpu_count_in_front_of_a_cluster_and_bare_nodes(catalog) -> None:
    assert extract_slots("a 16 gpu research cluster", catalog).gpus == 16
    assert extract_slots("vs buying 8 nodes?", catalog).gpus == 64
    assert extract_slots("coding assistant for about 50 devs", catalog).users == 50
    assert extract_slots("renting 64 H100 for 3 months at $2.2/hr", catalog).cloud_price_per_gpu_hour == 2.2
    assert extract_slots("$24/hr for the 8x H100 node", catalog).cloud_price_per_gpu_hour is None


@pytest.mark.parametrize(("text", "optimizer"), [("and with 8-bit adam?", "adamw-8bit"), ("用 bnb 的 adamw8bit 呢", "adamw-8bit"),
                                                  ("full fine-tune with Adafactor", "adafactor"), ("memory for llama 3 8b full fine-tune", None)])
def test_the_optimizer_named(catalog, text, optimizer):
    assert extract_slots(text, catalog).optimizer == optimizer


@pytest.mark.parametrize(("text", "budget"), [("公司预算50w人民币左右", 500_000), ("预算30w，买什么卡", 300_000), ("预算 80万", 800_000)])
def test_a_budget_in_wan_written_as_w(catalog, text, budget):
    slots = extract_slots(text, catalog)
    assert slots.budget == budget and slots.currency == "CNY"


def test_watts_are_not_a_budget(catalog):
    assert extract_slots("H100 的 700W 功耗", catalog).budget is None


@pytest.mark.parametrize(("text", "params_b", "tokens"), [("what if they meant fine-tuning on 2B tokens?", None, 2e9),
                                                          ("pretrain a 7B on 2T tokens", 7.0, 2e12), ("a 3B model on 1B tokens", 3.0, 1e9)])
def test_a_token_count_in_b_is_data_not_a_model_size(catalog, text, params_b, tokens):
    slots = extract_slots(text, catalog)
    assert slots.params_b == params_b and slots.tokens == tokens


@pytest.mark.parametrize(("text", "params_b"), [("train nanogpt-small (124M) on 9B tokens", 0.124), ("a 350M parameter model", 0.35),
                                                ("fine-tune on 500M tokens", None)])
def test_millions_of_parameters(catalog, text, params_b):
    assert extract_slots(text, catalog).params_b == params_b


def test_gpt2_small_is_a_catalog_model(catalog):
    slots = extract_slots("train gpt2-small (124M) on 9B tokens", catalog)
    assert slots.model == "gpt-2-124m" and catalog.models["gpt-2-124m"].params_b == pytest.approx(0.124, rel=0.01)


@pytest.mark.parametrize(
    ("text", "nodes", "gpus"),
    [("is 25GbE enough between two nodes for a LoRA run", 2, 16), ("two H100 nodes for a 13B", 2, 16), ("2 nodes of 4x A100", 2, 8)],
)
def test_node_counts_in_words(text, nodes, gpus) -> None:
    slots = extract_slots(text, default_catalog())
    assert (slots.nodes, slots.gpus) == (nodes, gpus)


@pytest.mark.parametrize(
    ("text", "samples", "seq_len"),
    [("fine-tune on 80,000 samples, avg 3,000 tokens", 80_000, 3_000), ("5万条样本，平均每条 1500 token", 50_000, 1_500)],
)
def test_an_average_length_per_sample_is_not_the_datasets_tokens(catalog, text, samples, seq_len) -> None:
    slots = extract_slots(text, catalog)
    assert (slots.samples, slots.seq_len, slots.tokens) == (samples, seq_len, None)


@pytest.mark.parametrize(
    ("text", "rate", "currency"),
    [("每张卡 2.49 美元一小时，64卡训练三周要多少钱", 2.49, "USD"), ("rent 2x 4090 at $1.89 for 1,000 GPU-hours", 1.89, "USD")],
)
def test_a_rate_with_the_card_before_it_or_gpu_hours_beside_it(catalog, text, rate, currency) -> None:
    slots = extract_slots(text, catalog)
    assert (slots.cloud_price_per_gpu_hour, slots.currency) == (rate, currency) and slots.budget is None
