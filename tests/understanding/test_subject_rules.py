"""Evidence rules for questions whose subject decides the intent: which hardware supports a feature, Apple Silicon,
rules of thumb, checkpoint cadence, bursty demand, a speed-up someone believes in, the user's own MFU or scaling,
GPUDirect and perftest checks (registry.yaml evidence_rules; words in <lang>/cues.yaml). Questions written for
these tests."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("text", "intent", "rule"),
    [
        ("which cards actually support fp8 training, and is it mature enough?", "faq", "feature_support_question"),
        ("BF16 哪些卡支持？老卡能用吗", "faq", "feature_support_question"),
        ("could an m3 ultra mac studio serve a 70b model for our small team", "faq", "apple_silicon"),
        ("苹果 M4 Max 统一内存 128G 能不能跑 70B", "faq", "apple_silicon"),
        ("what's the usual tokens-per-parameter ratio for a from-scratch LLM", "faq", "rule_of_thumb"),
        ("从零预训练的话，数据量一般是参数量的多少倍", "faq", "rule_of_thumb"),  # a model named is the computation (test_compute_optimal_data)
        ("what's a sane checkpoint interval for a two-week run", "faq", "checkpoint_cadence"),
        ("训练的时候权重多久存一次比较好，放哪里", "faq", "checkpoint_cadence"),
        ("we use 8 gpus most of the time but need 64 during quarter-end crunch, how to provision", "cloud_vs_onprem", "bursty_demand"),
        ("平时就十来张卡，月底冲量要八十张，资源怎么规划", "cloud_vs_onprem", "bursty_demand"),
        ("our architect thinks the H200 would finish the same 7B run twice as fast as the H100", "claim_check", "hearsay_question"),
        ("leadership believes A100 to H100 is 5x faster for our fine-tunes", "claim_check", "hearsay_question"),
        ("we're at about 22% MFU on a 7b with 16 h100s, where should I look", "diagnostics", "own_run_symptom"),
        ("训练 MFU 才 18%，该从哪查起", "diagnostics", "own_run_symptom"),
        ("how can I tell if GPUDirect RDMA is really on between our nodes", "preflight", "link_health_check"),
        ("新集群怎么用 ib_write_bw 把每对节点都测一遍", "preflight", "link_health_check"),
        ("怎么确认每台机器的 IB 网卡没有降速", "preflight", "link_health_check"),
        ("would hosting qwen 72b on our own gpus beat paying an api per token at 2M requests a month", "cloud_vs_onprem", "self_host_vs_api"),
        ("自己部署 72B 还是直接调 API 按 token 付费便宜", "cloud_vs_onprem", "self_host_vs_api"),
        ("有个博主说单卡 24G 就能全参微调 13B", "claim_check", "third_party_assertion"),
        ("a youtuber claims one 4090 can serve a 70b at fp16 for a whole team", "claim_check", "third_party_assertion"),
        ("上线 32B 推理，L40S 还是 A100 80G", "compare", "explicit_gpu_choice"),
        ("两张 A6000 上做 LoRA 微调巨慢，一个 epoch 要一整天", "diagnostics", "slow_own_run"),
        ("our finetune on two a6000s is way slower than expected", "diagnostics", "slow_own_run"),
    ],
)
def test_the_subject_decides(understander, text, intent, rule):
    und = understander.understand(text)
    assert und.intent == intent, und.trace
    assert rule in und.evidence, und.trace


@pytest.mark.parametrize("text", ["how big is a 70b checkpoint with optimizer states", "13B 的 checkpoint 存一次要多久"])
def test_a_checkpoints_size_or_save_time_stays_the_checkpoint_tool(understander, text):
    und = understander.understand(text)
    assert und.intent == "sizing" and und.ask == "checkpoint", und.trace


def test_a_settings_only_follow_up_keeps_a_chinese_conversation_chinese(understander):
    state = {"intent": "diagnostics", "slots": {}, "ask": None, "query": "我的 4090 训练很慢", "language": "zh"}
    assert understander.understand("bf16, bs=4, seq 1024", state=state).language == "zh"
    assert understander.understand("what about switching to the H100 cluster next week instead", state=state).language == "en"


@pytest.mark.parametrize("text", ["batch 已经调到 32 了，还是老样子", "bumped it to 12 like you said, made no difference"])
def test_a_tried_that_follow_up_continues_the_diagnosis(understander, text):
    state = {"intent": "diagnostics", "slots": {"gpus": 8}, "ask": None, "query": "8 卡训练利用率只有 40%", "language": "zh"}
    assert understander.understand(text, state=state).intent == "diagnostics"
