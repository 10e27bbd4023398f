"""A fit question on several GPUs ("can 4x A100 40GB fully fine-tune a 13B?") leads with yes or no on those GPUs,
the model states in all and each GPU's share, before the plan. Questions written for these tests."""

from __future__ import annotations

from tests.assistant.asking import ask, lead


def _states(answer) -> dict:
    return next(c for c in answer.tool_calls if c.tool == "model-states-total").output


def test_a_full_fine_tune_that_cannot_fit_says_no_with_the_states_in_all(advisor) -> None:
    answer = ask(advisor, "will 4 x A100 40GB handle full fine-tuning of Llama 2 13B?")
    assert lead(answer).startswith("**No"), lead(answer)
    states = _states(answer)
    assert 180 < states["states_gb"] < 240  # about 16 bytes per parameter of a 13B model
    assert f"{states['states_gb']:.0f} GB" in answer.answer.replace(",", "")


def test_a_fit_that_holds_says_yes_in_chinese(advisor) -> None:
    answer = ask(advisor, "8卡 A100 80G 做 Llama2-13B 全参微调放得下吗")
    assert lead(answer).startswith("**可以"), lead(answer)
    assert "优化器状态" in answer.answer
