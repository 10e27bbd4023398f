"""Short turns inside a conversation: a cost follow-up continues it, an off-topic one is still refused, and a close
call is answered rather than asked (service/understanding/understander.py)."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask


@pytest.mark.parametrize(("first", "second"), [("4090 vs 3090 for local LLM fine-tuning", "ok but per dollar?"),
                                               ("H100 和 A100 训练哪个好", "好的，那性价比呢")])
def test_a_cost_follow_up_of_a_comparison_continues_it(advisor, first: str, second: str) -> None:
    answer = ask(advisor, first, second)
    assert answer.intent == "compare" and any(c.tool == "gpu-compare" for c in answer.tool_calls), answer.answer


@pytest.mark.parametrize(("first", "second"), [("H100 vs A100 for training", "what about the weather tomorrow?"),
                                               ("H100 和 A100 训练哪个好", "那明天天气怎么样")])
def test_an_off_topic_turn_with_a_follow_up_cue_is_still_refused(advisor, first: str, second: str) -> None:
    assert ask(advisor, first, second).intent == "out_of_scope"


def test_a_close_call_inside_a_conversation_is_answered(advisor) -> None:
    answer = ask(advisor, "we want to full fine-tune Llama 3 70B on 4 nodes of 8 H100 with FSDP", "nodes only have 25GbE between them, no IB")
    assert answer.clarification is None and answer.intent != "out_of_scope", answer.answer


def test_a_budget_and_a_configuration_ask_is_a_purchase_without_asking_for_a_model(advisor) -> None:
    answer = ask(advisor, "预算80万人民币，做图文多模态模型微调，推荐个配置")
    assert answer.clarification is None
    assert any(c.tool == "purchase-options" for c in answer.tool_calls), answer.answer
    renting = ask(advisor, "预算10万，租云上的卡做微调，推荐个配置")
    assert not any(c.tool == "purchase-options" for c in renting.tool_calls), renting.answer


def test_a_budget_doubled_in_a_follow_up_is_read_not_refused(advisor) -> None:
    answer = ask(advisor, "预算80万人民币，做图文多模态模型微调，推荐个配置", "预算翻倍到160万呢")
    assert answer.intent == "recommend" and answer.clarification is None, answer.answer
    assert "1,600,000" in answer.answer
