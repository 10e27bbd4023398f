"""A CUDA OOM while training a named model: the training-memory tool's per-GPU need and the fixes in order of cost,
on the card the question names or the one the error's "GiB total capacity" implies."""

from __future__ import annotations

from service.assistant.answer import ChatRequest


def test_oom_with_a_model_and_the_capacity_in_the_error(advisor) -> None:
    answer = advisor.answer(ChatRequest(
        message="full fine-tune of Qwen2.5-7B dies with torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB "
                "(GPU 0; 79.15 GiB total capacity; 77.9 GiB already allocated)"))
    assert answer.intent == "diagnostics"
    memory = next(c for c in answer.tool_calls if c.tool == "training-memory")  # the card in the error; then a bigger one
    assert memory.input["gpu"] in {"a100-80gb-sxm", "a100-80gb-pcie", "h100-sxm", "h100-pcie", "h800", "a800"}
    assert "gradient checkpointing" in answer.answer and answer.grounding.ungrounded == []


def test_oom_without_a_model_names_no_figure_it_cannot_compute(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="训练时报 CUDA out of memory，怎么办"))
    assert answer.intent == "diagnostics"
    assert not [c for c in answer.tool_calls if c.tool == "training-memory"]


def test_an_oom_report_with_the_workload_names_the_cheapest_change_that_fits(advisor) -> None:
    # A LoRA at long sequences and micro-batch 4 does not fit 24 GB; a change of settings on the same card does.
    answer = advisor.answer(ChatRequest(message="LoRA on Llama 3 8B keeps hitting OOM on my 4090, seq len 8192, batch 4"))
    assert answer.intent == "diagnostics"
    first = next(c for c in answer.tool_calls if c.tool == "training-memory")
    assert first.input["micro_batch"] == 4 and first.input["method"] == "lora"
    assert answer.blocks[0].text.startswith("**No") and answer.grounding.ungrounded == []  # the job as described, against the card
    points = " ".join(item for b in answer.blocks if b.type == "bullets" for item in b.items)
    assert "cheapest change that fits" in points or "Switching method fits" in points


def test_asking_whether_a_plan_would_run_out_of_memory_is_a_fit_question(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="can a 4090 fine-tune llama 3 8b with LoRA without OOM?"))
    assert answer.intent == "sizing"
