"""The named evidence rules (registry.yaml `evidence_rules`, words in <lang>/cues.yaml) on questions written for
these tests: near-domain off-topic uses, the user's own fit questions, error signatures and symptoms,
infrastructure choices, cloud providers and billing, acceptance tests, monitoring and serving latency."""

from __future__ import annotations

import shutil

import pytest

from service.understanding import load_registry
from service.understanding.registry import DATA_DIR



def _read(understander, text: str):
    und = understander.understand(text)
    return und, und.trace


OFF_TOPIC = [
    "is it still profitable to mine ethereum with a 3080",
    "how many hashes per second does a 4090 get mining bitcoin",
    "用显卡挖矿现在还能回本吗",
    "3090挖以太坊一天能挣多少",
    "which gaming laptop under 1500 dollars has the best gpu",
    "building a gaming pc, is a 4070 enough for 1440p",
    "预算8000想买个游戏本，推荐一下",
    "装机打游戏用4060还是4070",
    "what pc should I build for 4k video editing in premiere",
    "剪视频用什么电脑好",
    "买什么手机拍照好",
    "帮我写个爬虫抓豆瓣电影",
]


@pytest.mark.parametrize("text", OFF_TOPIC)
def test_near_domain_uses_of_gpus_are_out_of_scope(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "out_of_scope", trace
    assert und.clarification is None


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("which gpu is best for fine-tuning a 13b model", "recommend"),
        ("4090 能跑 7B 推理吗", "sizing"),
        ("can I fine-tune llama 3 8b on my gaming laptop's 4090", "sizing"),
        ("显卡挖矿的机器能改来做大模型微调吗，4张3090跑qwen 7b lora", None),  # a card not in the catalog: any in-domain reading
    ],
)
def test_a_gpu_with_an_ai_workload_is_never_refused(understander, text, intent):
    und, trace = _read(understander, text)
    assert und.intent != "out_of_scope" and "off_topic_use" not in trace.rules, trace
    assert intent is None or und.intent == intent, trace


@pytest.mark.parametrize(
    "text",
    [
        "can 2x A100 80GB full finetune llama 3 8b?",
        "could a single L40S handle LoRA on qwen 14b",
        "is one h100 enough to serve llama 3 70b",
        "can my 4090 run mistral 7b",
        "8卡A100能全参训练Qwen 72B吗",
        "两张4090能lora微调llama3 8b吗",
        "一张H100够不够部署Qwen2 72B",
        "单张A10跑得动chatglm3 6b推理吗",
    ],
)
def test_the_users_own_fit_question_is_sizing_not_a_claim(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "sizing", trace
    assert "own_fit_question" in und.evidence
    assert und.ask in ("memory", "inference")


@pytest.mark.parametrize(
    "text",
    [
        "the vendor says 2x A100 can full finetune llama 3 8b, true?",
        "销售号称一张L40S就能全参微调14B，真的假的",
        "my colleague said one h100 can serve llama 3 70b in fp16",
    ],
)
def test_a_third_partys_assertion_stays_a_claim_check(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "claim_check", trace
    assert "own_fit_question" not in und.evidence


@pytest.mark.parametrize(
    "text",
    [
        "Xid 79 on gpu 3, GPU has fallen off the bus, what now",
        "NVRM: Xid (PCI:0000:3b:00): 63, pid=1234, Row Remapper",
        "NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.18",
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.35 GiB total capacity)",
        "loss became inf at step 3000 with bf16",
        "job hangs forever at init_process_group on 2 nodes",
        "nvidia-smi shows 12 uncorrectable ECC errors on gpu 5",
        "gpu util stuck at 30% and cpu pegged at 100%",
        "训练跑着跑着突然挂了，日志里有Xid 94",
        "报错 CUDA out of memory. Tried to allocate 4.00 GiB，怎么办",
        "多机训练一直卡在init_process_group不动",
        "NCCL WARN Timeout 报错，训练挂了",
        "loss突然变成nan了",
    ],
)
def test_error_signatures_and_symptoms_are_diagnostics(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "diagnostics", trace
    assert und.clarification is None
    assert any(r.startswith("evidence rule error_signature") or r.startswith("evidence rule symptom_verb") for r in trace.rules), trace.rules


@pytest.mark.parametrize("text", ["what does an Xid 79 mean in general", "ECC报错是什么意思，严重吗"])
def test_asking_what_an_error_means_is_knowledge(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "faq", trace
    assert "error_signature" not in und.evidence


@pytest.mark.parametrize(
    "text",
    [
        "InfiniBand vs RoCE for a 32 node cluster",
        "slurm vs kubernetes for our training jobs",
        "volcano or kueue for batch gpu scheduling",
        "NFS or Lustre for training data",
        "storage for 50 million small jpgs for training",
        "which storage should we use for the training cluster",
        "IB和RoCE选哪个",
        "slurm和k8s哪个适合训练集群",
        "训练数据放NFS还是对象存储",
        "调度系统用Volcano还是Kueue",
    ],
)
def test_choices_between_non_gpu_infrastructure_are_knowledge(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "faq", trace
    assert und.clarification is None


def test_two_gpus_named_still_make_a_comparison(understander):
    und, trace = _read(understander, "H100 vs A100 on an InfiniBand cluster, which trains faster")
    assert und.intent == "compare", trace


@pytest.mark.parametrize(
    "text",
    [
        "which cloud is cheapest for a 2 week training sprint",
        "runpod vs lambda vs aws for a short finetune project",
        "on-demand vs reserved vs spot for h100s",
        "our cloud bill is $80k per month, when does on-prem make sense",
        "短期训练一个月，阿里云、腾讯云、AutoDL哪家便宜",
        "按量付费和包年包月、竞价实例怎么选",
        "每月云账单30万，什么时候该自建",
    ],
)
def test_cloud_providers_and_billing_models_are_cloud_vs_onprem(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "cloud_vs_onprem", trace
    assert "cloud_provider_choice" in und.evidence


@pytest.mark.parametrize(
    "text",
    [
        "how long should gpu-burn run on new nodes",
        "what is a normal busbw from all_reduce_perf on a new 8x h100 box",
        "ib_write_bw per nic, what number should new servers hit",
        "which dcgm diag level before accepting new servers",
        "新机器gpu-burn要跑多久",
        "新节点all_reduce_perf跑出多少busbw算正常",
    ],
)
def test_acceptance_tests_on_new_hardware_are_preflight(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "preflight", trace
    assert "acceptance_test" in und.evidence


def test_a_measured_busbw_is_still_a_symptom(understander):
    und, trace = _read(understander, "all_reduce_perf on the new 8x H100 node shows busbw 90 GB/s, is that normal")
    assert und.intent == "diagnostics", trace


@pytest.mark.parametrize(
    "text",
    [
        "what should I alert on for a gpu training cluster",
        "gpu集群监控哪些指标，告警怎么设",
        "our TTFT is too high, how to bring it down",
        "p99 latency spikes under load with vllm",
        "is speculative decoding worth it",
        "kv cache用fp8量化对效果有影响吗",
        "首token延迟太高怎么优化",
        "投机解码值得开吗",
    ],
)
def test_monitoring_and_serving_latency_are_knowledge(understander, text):
    und, trace = _read(understander, text)
    assert und.intent == "faq", trace
    assert und.clarification is None


def test_a_rule_naming_an_unknown_intent_is_refused_with_its_file(tmp_path):
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    registry_file = target / "registry.yaml"
    registry_file.write_text(registry_file.read_text(encoding="utf-8") + "  bogus_rule: {intent: not_an_intent, weight: 1}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="registry.yaml.*bogus_rule"):
        load_registry(target)


def test_rule_words_for_an_unknown_rule_are_refused(tmp_path):
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    cues = target / "en" / "cues.yaml"
    text = cues.read_text(encoding="utf-8").replace("rule_words:\n", "rule_words:\n  no_such_rule:\n    any: [x]\n", 1)
    cues.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="cues.yaml.*no_such_rule"):
        load_registry(target)


def test_every_rule_has_words_in_both_languages():
    registry = load_registry()
    for rule in registry.rules:
        for language, data in registry.languages.items():
            assert data.rule_words.get(rule.name) and data.rule_words[rule.name]["any"].terms, (rule.name, language)
