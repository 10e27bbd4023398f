"""Who is asking and what for, with no model named (issue 7): personas (a hobbyist, a Kaggle player, a domestic-hardware
rule, a small pre-training budget) and LLM features in a product (game NPC dialogue, support chatbots, RAG, 知识库问答,
copilots) asking what to get or how to deploy are recommendations, never out of scope. The same products asked about
with a symptom, a check before launch, a definition or a rent-or-buy choice stay where those questions belong.
Phrasings written for these tests; none is an exemplar."""

from __future__ import annotations

import pytest

from service.understanding import load_registry



PERSONA_AND_PRODUCT_SETUPS = [
    # LLM features in a product
    "we're bolting an LLM helpdesk assistant onto our ticketing product, what hardware should we get",
    "our indie studio wants NPCs that improvise dialogue with players, what do we need to deploy",
    "hosting a RAG bot over our product manuals for customers, smallest setup that works?",
    "copilot-style code assistant for 150 devs, self-hosted, which gpus",
    "customer support chatbot for a bank, about 40k daily users",
    "想在我们的二次元手游里做能聊天的NPC，后端怎么部署",
    "做一个员工用的知识库问答机器人，公司大概一千人，推荐什么配置",
    "电商平台要接智能客服，日活大概五万，需要什么硬件",
    "给律所搭个合同问答助手，最低配置要多少",
    # personas
    "weekend kaggle competitor, which card should I buy for my desktop",
    "I tinker with small image models at home as a hobby, what gpu should I get",
    "个人业余玩玩视觉模型，在家买什么显卡合适",
    "参加天池比赛，自己配一台机器，选什么卡",
    "our autonomous-driving team trains perception models, recommend a setup",
    "影像科想训练肺结节检测模型，给个硬件方案",
    "单位要求信创，准备部署一个内部问答系统，什么方案",
]


@pytest.mark.parametrize("text", PERSONA_AND_PRODUCT_SETUPS)
def test_persona_or_product_setup_questions_are_recommendations(understander, text):
    und = understander.understand(text)
    assert und.intent == "recommend", und.trace


PRODUCT_FEATURES_WITHOUT_A_REQUEST = [
    "AI dialogue for the characters in our open-world game",
    "RAG assistant inside our analytics dashboard",
    "游戏里给NPC加上大模型对话",
    "给公司做一个知识库问答",
    "copilot for our internal low-code platform",
]


@pytest.mark.parametrize("text", PRODUCT_FEATURES_WITHOUT_A_REQUEST)
def test_an_llm_product_feature_is_in_the_domain(understander, text):
    """The worst outcome is refusing an in-scope question: a product feature next to "game" or "app" is still AI work."""
    und = understander.understand(text)
    assert und.intent not in ("out_of_scope", "smalltalk"), und.trace
    assert not any("off_topic_use" in rule for rule in und.trace.rules), und.trace


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # the same products, other questions
        ("our support chatbot's gpus sit at 25% utilization, why so low", "diagnostics"),
        ("客服机器人的推理服务利用率一直上不去，怎么回事", "diagnostics"),
        ("what should we check before the GPU servers for our RAG assistant go live", "preflight"),
        ("知识库问答的推理集群上线前要检查哪些项", "preflight"),
        ("what is retrieval-augmented generation and why does it need a vector database", "faq"),
        # rent-or-buy is the question, whoever asks it
        ("pilot for our chatbot: rent gpus first or buy a server right away", "cloud_vs_onprem"),
        ("聊天机器人还在POC阶段，GPU先租还是直接买", "cloud_vs_onprem"),
    ],
)
def test_the_same_products_keep_their_other_questions(understander, text, intent):
    und = understander.understand(text)
    assert und.intent == intent, und.trace
    assert "deployment_goal_without_model" not in und.evidence


@pytest.mark.parametrize(
    "text",
    [
        "building a gaming pc, which gpu should I get for 1440p",
        "打游戏配什么显卡，预算五千",
        "剪视频的电脑推荐什么配置",
    ],
)
def test_gaming_and_video_rigs_stay_out_of_scope(understander, text):
    und = understander.understand(text)
    assert und.intent == "out_of_scope", und.trace


def test_the_rule_names_its_words_and_steps_aside_for_a_named_model(understander):
    und = understander.understand("what setup should we get for a support chatbot with 20k users a day")
    assert und.intent == "recommend"
    assert "deployment_goal_without_model" in und.evidence
    # a model named is a workload the recommendation sizes directly: the rule is not what decided it
    named = understander.understand("what setup should we get for a support chatbot on llama 3 8b with 20k users a day")
    assert "deployment_goal_without_model" not in named.evidence


def test_the_rule_is_data_with_words_in_both_languages():
    registry = load_registry()
    rule = next(r for r in registry.rules if r.name == "deployment_goal_without_model")
    assert rule.intent == "recommend" and "workload" in rule.blocked_by
    for lang in ("en", "zh"):
        words = registry.languages[lang].rule_words["deployment_goal_without_model"]
        assert words["any"].terms and words["also"].terms and words["unless"].terms
