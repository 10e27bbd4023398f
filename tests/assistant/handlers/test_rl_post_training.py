"""RL post-training on top of a training plan: the reference copy, the rollout engine's weights and, for PPO, the critic,
computed from the model's parameters and held against what the plan leaves free."""

from __future__ import annotations

import pytest

from service.assistant.answer import ChatRequest


def _rl(answer) -> dict:
    return next(c for c in answer.tool_calls if c.tool == "rl-memory")


def test_grpo_adds_a_reference_and_a_rollout_engine_but_no_critic(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="how do I set up GRPO training for a 7B model, how many GPUs?"))
    rl = _rl(answer)
    assert rl.output["reference_gb"] == pytest.approx(14) and rl.output["rollout_engine_weights_gb"] == pytest.approx(14)
    assert rl.output["critic_gb"] == 0
    assert "rollout" in answer.answer and "verl" in answer.answer and answer.grounding.ungrounded == []


def test_ppo_in_chinese_adds_the_critic(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="用PPO对Qwen2.5-7B做RLHF，需要几张A100 80G"))
    rl = _rl(answer)
    assert rl.output["critic_gb"] == pytest.approx(rl.input["params"] * 16 / 1e9)
    assert "价值模型" in answer.answer and answer.language == "zh" and answer.grounding.ungrounded == []


def test_dpo_with_lora_needs_no_second_copy(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="DPO on llama 3 8b with LoRA, what GPU?"))
    assert _rl(answer).output["extra_gb"] == 0
    assert "adapters switched off" in answer.answer and "rollouts' KV cache" not in answer.answer


def test_a_plain_fine_tune_gets_no_rl_notes(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="LoRA fine-tune llama 3 8b, what GPU?"))
    assert "rl-memory" not in [c.tool for c in answer.tool_calls]
