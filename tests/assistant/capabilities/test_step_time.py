"""A question that states its layout is answered from the step-time model with its terms (issue 27's Done-when)."""

from __future__ import annotations

from tests.assistant.asking import ask, lead


def test_a_stated_layout_is_timed_by_the_step_time_model_with_its_terms(advisor) -> None:
    answer = ask(advisor, "Llama 2 70B, TP 8, PP 4, micro-batch 1, 1,024 A100s, sequence 4,096: how long per step?")
    runs = [c for c in answer.tool_calls if c.tool == "step-time"]
    assert runs and all(c.input["tp"] == 8 and c.input["pp"] == 4 and c.input["gpus"] == 1024 and c.input["seq_len"] == 4096 for c in runs)
    assert lead(answer).startswith("**About") and "per step" in lead(answer)
    text = answer.answer
    for term in ("compute", "tensor-parallel collectives", "pipeline bubble", "data-parallel reduction"):
        assert term in text
    assert "global batch" in text  # not stated: the assumption is said, with the one-micro-batch figure beside it


def test_chinese_layout_question_in_chinese(advisor) -> None:
    answer = ask(advisor, "Llama 3 8B 在 64 张 H100 上，TP 2，PP 1，全局 batch 512，序列长度 8192，每步多久？")
    run = next(c for c in answer.tool_calls if c.tool == "step-time")
    assert run.input["tp"] == 2 and run.input["global_batch"] == 512 and run.input["seq_len"] == 8192
    assert answer.language == "zh" and lead(answer).startswith("**每步约")
