"""Evidence rules for symptoms of the user's own run, spec numbers of two GPUs, explicit GPU choices, serving
frameworks and link questions, acceptance-test how-tos, bare GPU counts, finance, and learners without a budget
(registry.yaml evidence_rules; words in <lang>/cues.yaml). Questions written for these tests."""

from __future__ import annotations

import pytest




def _check(understander, text: str, intent: str, rule: str | None = None):
    und = understander.understand(text)
    assert und.intent == intent, und.trace
    assert und.clarification is None, und.trace
    if rule is not None:
        assert rule in und.evidence, und.trace
    return und


@pytest.mark.parametrize(
    "text",
    [
        "during our fine-tune the gpu utilization swings from 20% to 95% every few seconds, what's wrong",
        "我们跑预训练的时候显卡利用率波动很大，怎么回事",
        "since this morning our samples/s dropped by a third and the sm clocks are way down",
        "跑了两天之后吞吐下降了，gpu 频率很低",
        "our 13b finetune loss became nan around step 800",
        "per-gpu throughput on 3 nodes is much lower than on a single node, why is our scaling so poor",
        "nvidia-smi shows util pegged at 100% but the run is really slow",
    ],
)
def test_a_symptom_of_the_users_own_run_is_diagnostics(understander, text):
    _check(understander, text, "diagnostics")


@pytest.mark.parametrize(
    "text",
    [
        "what is GPU-Util in nvidia-smi supposed to measure",
        "what is an Xid code",
        "what are xid errors in general",
        "Xid 错误码是什么意思",
    ],
)
def test_a_conceptual_question_without_a_symptom_stays_faq(understander, text):
    _check(understander, text, "faq")


@pytest.mark.parametrize(
    "text",
    [
        "power draw of the H200 vs the H100 SXM?",
        "L4 vs T4 memory bandwidth numbers",
        "A800 和 H800 的显存带宽分别是多少",
        "H20 跟 H100 有什么区别？H20 的显存多大",
    ],
)
def test_spec_numbers_of_two_gpus_are_a_spec_question(understander, text):
    _check(understander, text, "spec", "two_gpu_spec_numbers")


@pytest.mark.parametrize(
    "text",
    [
        "L40S or A100 for fine-tuning a 13b model, which should we pick",
        "H800 vs A800, which is better for training? someone told me the H800 interconnect is cut",
        "A800 还是 H800，训练 34B 哪个更靠谱？生态怎么样",
    ],
)
def test_an_explicit_choice_between_two_gpus_is_a_comparison_even_with_hearsay(understander, text):
    _check(understander, text, "compare")


@pytest.mark.parametrize(
    "text",
    [
        "the hosting company claims their A100 nodes match H100 speed for training, is that realistic",
        "a provider says they hit 90% of line rate on all_reduce across 8 nodes, what should we expect",
        "服务商说他们的集群跑 all_reduce 能到满带宽，靠谱吗",
    ],
)
def test_a_third_party_assertion_about_one_system_is_a_claim_check(understander, text):
    _check(understander, text, "claim_check")


@pytest.mark.parametrize(
    "text",
    [
        "SGLang or vLLM, which serving engine is better",
        "lmdeploy 和 vLLM 哪个好",
        "is PCIe not enough for 8 GPUs, do we really need NVLink?",
        "卡间互联用 PCIe 够不够，有必要上 NVLink 吗",
    ],
)
def test_serving_frameworks_and_link_questions_are_knowledge(understander, text):
    _check(understander, text, "faq", "infrastructure_choice")


@pytest.mark.parametrize("text", ["how should I run nccl-tests and what do I look for in the output", "gpu-burn 怎么用，结果怎么看"])
def test_how_to_run_an_acceptance_test_is_preflight(understander, text):
    _check(understander, text, "preflight", "acceptance_test")


@pytest.mark.parametrize("text", ["how many gpus would we need?", "我们得多少张卡？"])
def test_a_bare_gpu_count_is_a_sizing_question_for_the_count(understander, text):
    und = _check(understander, text, "sizing", "gpu_count_request")
    assert und.ask == "gpu_count", und.trace


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        ("minimum number of a100 80gb to fully fine-tune a 34b?", "gpu_count"),
        ("Yi 34B 做全参微调，至少要几张 H100？", "gpu_count"),
        ("how many l40s would it take to lora a 34b in a reasonable way", "gpu_count"),
        # another quantity named (a deadline) keeps its own ask
        ("how many h100s to pretrain a 3b on 1t tokens within 10 days", "deadline"),
    ],
)
def test_a_count_for_a_stated_job_is_sizing(understander, text, ask):
    und = _check(understander, text, "sizing", "gpu_count_request")
    assert und.ask == ask, und.trace


@pytest.mark.parametrize("text", ["which gpus should we get for a 13b lora, and how many?", "做 14B 的 LoRA，推荐什么卡、要几张？"])
def test_which_card_and_how_many_stays_a_recommendation(understander, text):
    und = understander.understand(text)
    assert und.intent == "recommend", und.trace
    assert "gpu_count_request" not in und.evidence, und.trace


@pytest.mark.parametrize("text", ["how many gpus does a p5.48xlarge have", "一台 DGX H100 里有几张卡"])
def test_gpus_in_one_server_are_not_a_gpu_count_request(understander, text):
    und = understander.understand(text)
    assert "gpu_count_request" not in und.evidence, und.trace


@pytest.mark.parametrize(
    "text",
    [
        "is NVDA stock overvalued right now",
        "should I put my savings into nvidia shares before the earnings call",
        "英伟达的股价还会涨吗",
        "有哪些算力概念股值得买",
    ],
)
def test_stock_and_investing_questions_are_out_of_scope(understander, text):
    _check(understander, text, "out_of_scope", "finance_investing")


def test_gpus_being_out_of_stock_is_not_finance(understander):
    und = understander.understand("H100s are out of stock at our cloud, what can we rent instead for fine-tuning a 7b model")
    assert und.intent != "out_of_scope" and "finance_investing" not in und.trace.rules, und.trace


@pytest.mark.parametrize(
    "text",
    ["I'm a grad student and can't afford a GPU, how can I practise multi-node training", "研究生一个，没钱买显卡，想学大模型微调怎么入门"],
)
def test_a_learner_without_budget_gets_a_recommendation_not_a_break_even(understander, text):
    _check(understander, text, "recommend", "learner_without_budget")


@pytest.mark.parametrize("text", [
    "We trained our radiance-field model on an A100 for 3 hours and it renders at only 90 FPS; the paper reports far faster. How do we get there?",
    "在 A100 上训练 3D 高斯模型要好几个小时，渲染帧率只有 90，论文里快得多，怎么复现？",
])
def test_a_model_the_user_trains_is_in_scope_even_when_it_renders_frames(understander, text: str) -> None:
    assert understander.understand(text).intent != "out_of_scope"


@pytest.mark.parametrize("text", ["which gaming laptop gets the most fps in fortnite?", "打游戏帧率高的显卡推荐一个"])
def test_gaming_frame_rates_stay_out_of_scope(understander, text: str) -> None:
    assert understander.understand(text).intent == "out_of_scope"
