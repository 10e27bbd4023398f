"""A model named and no cluster: its compute-optimal data, led with the number (handlers/compute_optimal.py
compute_optimal_data). Questions written for these tests."""

from __future__ import annotations

import pytest

from tests.assistant.asking import ask, lead


@pytest.mark.parametrize(
    ("question", "params", "shown"),
    [
        ("how many training tokens would a 6B model need if I pretrain it from scratch?", 6e9, "120B"),
        ("按 Chinchilla 算，训一个 30B 的模型需要多少 token", 30e9, "6,000 亿"),
    ],
)
def test_the_answer_leads_with_the_compute_optimal_tokens(advisor, question: str, params: float, shown: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "sizing" and answer.clarification is None
    data = next(c for c in answer.tool_calls if c.tool == "compute-optimal-data")
    assert data.output["tokens"] == pytest.approx(20 * params)
    assert shown in lead(answer) and "Chinchilla" in lead(answer) and "Hoffmann" in lead(answer)
    compute = next(c for c in answer.tool_calls if c.tool == "training-compute")
    assert compute.input["tokens"] == data.output["tokens"]  # the work: 6·N·D on that many tokens
    assert any(c.tool == "training-time" for c in answer.tool_calls)  # GPU-hours on the default card as context


def test_a_catalog_model_names_its_published_over_trained_run_with_the_source(advisor) -> None:
    answer = ask(advisor, "what's the compute-optimal number of pretraining tokens for Llama 3 8B?")
    published = next(c for c in answer.tool_calls if c.tool == "published-pretraining-tokens")
    assert published.input["model"] == "llama-3-8b" and published.output["tokens"] == pytest.approx(15e12)
    assert "15T" in answer.answer and published.output["url"] in answer.answer
    assert "161B" in lead(answer)  # 20 × 8.03B


def test_with_no_published_run_nearby_the_over_training_note_has_no_figure(advisor) -> None:
    # No catalog run between 500B and 2T parameters was trained past 100 tokens per parameter (DeepSeek-V3: 22).
    answer = ask(advisor, "a 1000B model, how much data is compute-optimal for pretraining?")
    assert not any(c.tool == "published-pretraining-tokens" for c in answer.tool_calls)
    assert "20T" in lead(answer) and "trained far past" in answer.answer


def test_a_published_run_of_about_that_size_is_named(advisor) -> None:
    # 250B: Qwen3-235B-A22B (36T tokens, about 150 per parameter) is the nearest over-trained run in the catalog.
    answer = ask(advisor, "a 250B model, how much data is compute-optimal for pretraining?")
    published = next(c for c in answer.tool_calls if c.tool == "published-pretraining-tokens")
    assert published.input["model"] == "qwen3-235b-a22b" and published.output["tokens"] == pytest.approx(36e12)
    assert "5T" in lead(answer) and published.output["url"] in answer.answer


def test_the_follow_up_times_that_data_on_the_cluster_named(advisor) -> None:
    answer = ask(advisor, "How many tokens should I pre-train a 4B model on?", "and on 32 H100s, how long?")
    timing = next(c for c in answer.tool_calls if c.tool == "training-time")
    assert timing.input["gpus"] == 32 and timing.input["tokens"] == pytest.approx(80e9)


def test_a_rule_of_thumb_without_a_model_stays_knowledge(advisor) -> None:
    answer = ask(advisor, "what's the usual tokens-per-parameter rule for pretraining?")
    assert answer.intent == "faq"
    assert not any(c.tool == "compute-optimal-data" for c in answer.tool_calls)


def test_a_cluster_still_gets_the_timed_run(advisor) -> None:
    answer = ask(advisor, "chinchilla-optimal data for a 3B model - how long on 16 A100s?")
    assert any(c.tool == "training-time" and c.input["gpus"] == 16 for c in answer.tool_calls)
    assert not any(c.tool == "training-compute" for c in answer.tool_calls)


def test_a_chinchilla_question_is_pre_training_so_a_cluster_follow_up_times_it(advisor) -> None:
    # "Chinchilla" or "compute-optimal" names pre-training data: the follow-up's cluster times that data, not asks for it.
    from tests.assistant.asking import ask

    answer = ask(advisor, "Chinchilla 最优的话 13B 要多少 token", "那用 64 张 H100 要训多久")
    assert answer.clarification is None
    timing = next(c for c in answer.tool_calls if c.tool == "training-time")
    assert timing.input["tokens"] == 260e9 and timing.input["gpus"] == 64
