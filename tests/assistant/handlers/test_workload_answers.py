"""Single sizing questions answered with the tool that answers them (handlers/workload.py): KV-cache totals for the context
and batch asked about, checkpoint time, total FLOPs, and the tokens a money budget buys."""

from __future__ import annotations

from tests.assistant.asking import ask


def test_a_kv_cache_question_with_a_batch_gives_the_batch_total(advisor) -> None:
    answer = ask(advisor, "Mistral 7B，16k 上下文，batch 8，KV cache 总共要多少显存？")
    total = next(c for c in answer.tool_calls if c.tool == "kv-total")
    assert total.input["context_len"] == 16384 and total.input["sequences"] == 8
    assert total.output["tokens"] == 16384 * 8
    assert f"{total.output['kv_gb']:.3g}"[:3] in answer.answer.replace(",", "")
    assert not any(c.tool == "training-memory" for c in answer.tool_calls)


def test_a_single_long_sequence_gets_its_total_in_gb(advisor) -> None:
    answer = ask(advisor, "What's the KV cache for one 100k-token sequence on Qwen2-72B?")
    total = next(c for c in answer.tool_calls if c.tool == "kv-total").output
    assert total["tokens"] >= 100_000
    assert "GB (" in answer.answer and "for one sequence" in answer.answer


def test_how_long_a_checkpoint_takes_is_a_checkpoint_question(advisor) -> None:
    answer = ask(advisor, "保存一次 Qwen2-72B 的完整 checkpoint 要多长时间？")
    assert any(c.tool == "checkpoint" for c in answer.tool_calls)
    assert not any(c.tool == "training-time" for c in answer.tool_calls)


def test_total_flops_then_gpu_hours_is_a_compute_question(advisor) -> None:
    answer = ask(advisor, "Pre-training Llama-3-8B on 5T tokens: how many FLOPs in total, and how long on 256 H100s?")
    tools = [c.tool for c in answer.tool_calls]
    assert "training-compute" in tools and "training-time" in tools
    assert answer.blocks[0].text.count("FLOPs") >= 1


def test_a_money_budget_buys_gpu_hours_then_tokens(advisor) -> None:
    # Called on the handler itself: which handler a budget question reaches first is the consulting layer's choice.
    from types import SimpleNamespace

    from service.assistant.handlers.base import Context
    from service.assistant.handlers.workload import sizing_answer
    from service.assistant.slots import extract_slots

    pipeline = advisor._assistant
    text = "We hold $20,000 of H100 credit for a 13B model. How many tokens of training is that?"
    understanding = SimpleNamespace(slots=extract_slots(text, pipeline.catalog), intent="sizing", language="en", context=None, ask="cost",
                                    evidence=[])
    ctx = Context(text=text, understanding=understanding, catalog=pipeline.catalog, index=pipeline.index)
    draft = sizing_answer(ctx)
    hours = next(c for c in ctx.tool_calls if c.tool == "budget-to-hours")
    budget = next(c for c in ctx.tool_calls if c.tool == "tokens-in-budget")
    assert abs(budget.input["hours"] - hours.output["hours"]) < 1e-6
    assert hours.output["gpu_hours"] == 20_000 / hours.input["price_per_gpu_hour"]
    text = " ".join(getattr(b, "text", "") for b in draft.blocks)
    assert "MFU" in text and "GPU-hours" in text
