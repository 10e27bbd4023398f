"""Follow-ups reuse the conversation's slots; relative changes apply to the previous values."""

import pytest

from service.assistant.followup import state
from service.assistant.understand import understand
from service.catalog import default_catalog


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def turn(catalog, text, previous):
    # The understander merges follow-ups itself (service.understanding); merge() is what it calls.
    und = understand(text, catalog, state=previous)
    return und, state(und, text, previous)


def test_what_about_another_gpu(catalog):
    first, s1 = turn(catalog, "我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？", {})
    second, _ = turn(catalog, "如果换成 H100 呢？", s1)
    assert second.intent == "recommend"
    assert second.slots.model == "qwen-14b" and second.slots.gpu == "h100-sxm" and second.slots.deadline_hours == 24


def test_half_the_budget(catalog):
    _, s1 = turn(catalog, "预算5万元，千问14B全参微调，50万条样本，需要什么配置", {})
    second, _ = turn(catalog, "如果预算只有一半呢？", s1)
    assert second.slots.budget == 25000 and second.intent == "recommend"


def test_answer_to_a_clarifying_question(catalog):
    first, s1 = turn(catalog, "我们想训练一个大模型，该买什么卡？", {})
    assert first.intent == "recommend" and first.slots.model is None
    second, _ = turn(catalog, "Llama 3 8B，QLoRA，5万条数据", s1)
    assert second.intent == "recommend" and second.slots.model == "llama-3-8b" and second.slots.method == "qlora"


def test_a_new_question_is_not_a_follow_up(catalog):
    _, s1 = turn(catalog, "我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？", {})
    third, _ = turn(catalog, "有文章说64台8卡H100服务器10天就能完成LLaMA-3 70B预训练，靠谱吗？", s1)
    assert third.intent == "claim_check" and third.slots.model == "llama-3-70b"


def test_out_of_scope_turns_keep_the_workload(catalog):
    _, s1 = turn(catalog, "Llama 3 8B QLoRA 微调需要多少显存？", {})
    und, s2 = turn(catalog, "帮我写一首关于秋天的诗", s1)
    assert und.intent == "out_of_scope" and s2 == s1


def test_double_the_context_of_a_serving_plan_left_at_its_default(catalog):
    _, s1 = turn(catalog, "serve Llama 3 8B on one L40S for 20 concurrent users", {})
    second, s2 = turn(catalog, "double the context?", s1)
    assert second.intent == "sizing" and second.slots.context_len == 8192 and second.slots.concurrency == 20
    third, _ = turn(catalog, "上下文不变，并发翻倍呢", s2)
    assert third.slots.concurrency == 40 and third.slots.context_len == 8192
