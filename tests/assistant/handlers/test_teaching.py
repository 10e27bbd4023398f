"""A course where many students run small fine-tunes gets shared small cards sized by the training-memory tool, not a
training cluster or "which model?". Questions written for these tests."""

from __future__ import annotations

from tests.assistant.asking import ask, lead


def test_a_class_gets_small_shared_cards_sized_per_student(advisor) -> None:
    answer = ask(advisor, "I'm teaching a course where 50 students each do a small LoRA project, what GPUs should the department get?")
    assert answer.clarification is None and answer.intent == "recommend"
    memory = [c for c in answer.tool_calls if c.tool == "training-memory"]
    assert {c.input["method"] for c in memory} == {"qlora", "lora"}
    assert "L4" in lead(answer) and "MIG" in answer.answer
    assert "50 students" in answer.answer


def test_a_chinese_course_question_is_answered_in_chinese(advisor) -> None:
    answer = ask(advisor, "下学期给学生上大模型微调的课，大概四十个学生，要准备什么卡")
    assert answer.clarification is None
    assert "学生" in lead(answer) and "MIG" in answer.answer and "调度" in answer.answer
