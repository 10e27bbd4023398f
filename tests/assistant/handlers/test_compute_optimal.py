"""Questions about the model size a compute budget trains best (handlers/compute_optimal.py)."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask


@pytest.mark.parametrize(
    "question",
    [
        "We get 256 H100s for six weeks. How big a model should we pretrain, compute-optimally?",
        "128张A100用两个月，按计算最优从头预训练该训多大的模型？",
    ],
)
def test_a_gpu_time_budget_gets_the_compute_optimal_model(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "sizing"
    call = next(c for c in answer.tool_calls if c.tool == "compute-optimal")
    assert call.input["hours"] in (42 * 24, 60 * 24)
    params = call.output["params_b"]["typical"]
    assert f"{params:.3g}B" in answer.blocks[0].text.replace(",", "")
    assert answer.grounding.ungrounded == []
    # the round trip: that model on those tokens takes about the time given
    check = next(c for c in answer.tool_calls if c.tool == "training-time")
    assert 0.8 < check.output["hours"]["typical"] / call.input["hours"] < 1.3


def test_gpu_hours_alone_are_a_budget(advisor) -> None:
    answer = ask(advisor, "with 200k H100 GPU-hours, what size model is compute-optimal to train?")
    call = next(c for c in answer.tool_calls if c.tool == "compute-optimal")
    assert call.input["gpus"] * call.input["hours"] == pytest.approx(200_000)
    assert call.input["hours"] <= 90 * 24  # shown on a cluster that spends them within a quarter


@pytest.mark.parametrize("question", ["we have 50k a100 gpu-hours, biggest model to train chinchilla-optimally?", "5万 H100 卡时，按计算最优能训多大的模型"])
def test_gpu_hours_beyond_one_gpus_lifetime_still_size_a_model(advisor, question) -> None:
    answer = ask(advisor, question)
    call = next(c for c in answer.tool_calls if c.tool == "compute-optimal")
    assert call.input["gpus"] * call.input["hours"] == pytest.approx(50_000)
    assert "20" in answer.answer


def test_no_time_given_shows_a_week_a_month_and_a_quarter(advisor) -> None:
    answer = ask(advisor, "how big a model should we pretrain on 64 h100s?")
    calls = [c for c in answer.tool_calls if c.tool == "compute-optimal"]
    assert [c.input["hours"] for c in calls] == [7 * 24, 30 * 24, 90 * 24]
    sizes = [c.output["params_b"]["typical"] for c in calls]
    assert sizes == sorted(sizes)
    assert answer.clarification is None


def test_a_card_without_a_time_budget_is_not_a_compute_budget(advisor) -> None:
    answer = ask(advisor, "4090能跑多大的模型")
    assert not any(c.tool == "compute-optimal" for c in answer.tool_calls)


# -- a model named with a compute-optimal word and a cluster: its Chinchilla data, timed on that cluster ------------


@pytest.mark.parametrize(
    ("question", "params"),
    [("按 Chinchilla 最优，20B 的模型用 128 张 H100 要训几天", 20e9), ("chinchilla-optimal data for a 7B model - how long on 64 A100s?", 7e9)],
)
def test_a_named_model_gets_its_compute_optimal_tokens_timed_on_the_cluster(advisor, question: str, params: float) -> None:
    from tests.assistant.asking import ask

    answer = ask(advisor, question)
    assert answer.intent == "sizing" and answer.clarification is None
    data = [c for c in answer.tool_calls if c.tool == "compute-optimal-data"]
    assert data and data[0].output["tokens"] == pytest.approx(20 * params, rel=0.05)
    timing = [c for c in answer.tool_calls if c.tool == "training-time"]
    assert timing and timing[0].input["tokens"] == data[0].output["tokens"]
    assert "Chinchilla" in answer.answer


# -- a money budget: the GPU-hours it buys, then the compute-optimal model -------------------------------------


@pytest.mark.parametrize(
    ("question", "hours"),
    [("$30k budget at $1.5 per H100 GPU-hour: what size model can we pretrain compute-optimally?", 20_000),
     ("预算 8 万美元，H100 按每卡时 2 美元算，能预训练多大的模型（算力最优）", 40_000)],
)
def test_a_money_budget_at_a_rate_becomes_gpu_hours(advisor, question: str, hours: int) -> None:
    from tests.assistant.asking import ask

    answer = ask(advisor, question)
    assert answer.clarification is None
    bought = [c for c in answer.tool_calls if c.tool == "budget-gpu-hours"]
    assert bought and bought[0].output["gpu_hours"] == pytest.approx(hours)
    assert f"{hours:,}" in answer.answer
    assert any(c.tool == "compute-optimal" for c in answer.tool_calls)
