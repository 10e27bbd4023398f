"""A follow-up that asks something new gets a new answer (handlers/knowledge.knowledge_instead_of_repeating).

Graders of real threads saw follow-ups answered with the first turn's card again, word for word: the user had asked
whether checkpointing can cut memory further, whether a config file needs editing, and got the fit verdict once more."""

from __future__ import annotations

from service.assistant import followup
from tests.assistant.asking import ask, lead


def test_a_new_question_after_a_fit_verdict_is_answered_not_repeated(advisor) -> None:
    first = ask(advisor, "Can I fully fine-tune a 6B model on one RTX 4090?")
    second = ask(advisor, "Can I fully fine-tune a 6B model on one RTX 4090?", "Can changing the gradient checkpointing settings reduce the activation memory further?")
    assert "99.9" in lead(first)
    assert "99.9" not in lead(second) and "checkpointing" in lead(second).lower()
    assert second.citations  # from the knowledge, cited


def test_a_follow_up_that_changes_a_fact_is_sized_again() -> None:
    previous = {"lead": "No: full fine-tuning needs about 99.9 GiB per GPU and the RTX 4090 has 24 GB.", "slots": {"gpu": "rtx-4090"}}
    again = "No — it does not fit. Full fine-tuning of 6B needs about 99.9 GiB per GPU on the RTX 4090 (24 GiB)."
    assert followup.repeats(again, previous, {"gpu": "rtx-4090"})
    assert not followup.repeats(again, previous, {"gpu": "rtx-4090", "method": "qlora"})  # a new fact: the tools answer it
    assert not followup.repeats("Yes: QLoRA needs 7.13 GiB per GPU, within 24 GB.", previous, {"gpu": "rtx-4090"})
    assert not followup.repeats(again, None) and not followup.repeats(None, previous)
