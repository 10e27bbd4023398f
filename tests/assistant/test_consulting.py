"""Sizing that consults, spec answers from the catalog and the general claim check, through the whole pipeline."""

from __future__ import annotations

import re

import pytest

from tests.assistant.asking import ask, lead


def test_a_fit_question_leads_with_the_method_that_fits(advisor) -> None:
    answer = ask(advisor, "can a 4090 fine-tune Llama 3 8B?")
    assert answer.clarification is None
    assert "QLoRA" in lead(answer) and "24 GB" in lead(answer)
    table = next(b for b in answer.blocks if b.type == "table")
    assert [row[0].text for row in table.rows][:3] == ["full fine-tuning", "LoRA", "QLoRA (4-bit base weights)"]


def test_a_serving_fit_question_weighs_weight_formats_and_names_serving_engines(advisor) -> None:
    answer = ask(advisor, "Llama 3 70B 推理一张 H100 放得下吗")
    assert "FP8" in lead(answer) or "INT" in lead(answer)
    assert "vLLM" in answer.answer and "GQA" in answer.answer


def test_budget_words_steer_to_parameter_efficient_fine_tuning(advisor) -> None:
    answer = ask(advisor, "预算有限，想微调 Qwen 14B，用什么配置")
    assert answer.recommendation and answer.recommendation["method"] in ("lora", "qlora")
    assert answer.recommendation["tier"] == "entry"
    assert any(b.type == "notice" and "预算" in b.text for b in answer.blocks)


def test_pre_training_without_data_assumes_compute_optimal_tokens_and_shows_cluster_sizes(advisor) -> None:
    answer = ask(advisor, "从头训一个70B要多大集群")
    assert "Chinchilla" in answer.answer and "1.4 万亿" in answer.answer
    table = next(b for b in answer.blocks if b.type == "table")
    gpus = [row[0].value for row in table.rows]
    hours = [row[1].value for row in table.rows]
    assert gpus == sorted(gpus) and hours == sorted(hours, reverse=True)


def test_users_become_a_stated_concurrency(advisor) -> None:
    answer = ask(advisor, "serve llama 3 8b to about 200 users, what do we need")
    assert any(b.type == "notice" and "20 concurrent" in b.text for b in answer.blocks)
    assert "SGLang" in answer.answer


def test_a_quantisation_follow_up_reruns_the_tools(advisor) -> None:
    first = ask(advisor, "Llama 3 70B 推理要多少显存")
    second = ask(advisor, "Llama 3 70B 推理要多少显存", "那换成INT4呢")
    weights = [c.output.get("weights_format") for c in second.tool_calls if c.tool == "inference"]
    assert "int4" in weights and first.answer != second.answer


def test_a_parameter_follow_up_keeps_the_sizing_question(advisor) -> None:
    answer = ask(advisor, "Qwen 14B 全参微调，50万条样本", "如果换成 H100 呢？")
    assert answer.intent in ("recommend", "sizing") and answer.recommendation
    assert answer.recommendation["recommended"]["configuration"]["gpu"].startswith("h100")


def test_halving_an_unset_budget_says_why_nothing_changed(advisor) -> None:
    answer = ask(advisor, "Qwen 14B 全参微调，50万条样本", "如果预算只有一半呢？")
    assert any(b.type == "notice" and "没有给出预算" in b.text for b in answer.blocks)


@pytest.mark.parametrize(("question", "expected"), [
    ("H100 SXM 显存带宽多少", "3,350 GB/s"),
    ("how fast is the HBM on an H100?", "3.35 TB/s"),
    ("A100 80GB 的 NVLink 多快", "600 GB/s"),
])
def test_spec_questions_are_read_from_the_catalog(advisor, question: str, expected: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "spec" and answer.clarification is None
    assert expected in lead(answer)
    assert answer.citations and re.search(r"specifications|规格", answer.citations[0].title)


@pytest.mark.parametrize(("question", "verdict"), [
    ("a vendor promises 2x from FP8 on our A100s, is that legit?", "false"),
    ("100G 以太网够不够跑 70B 多机预训练", "不够"),
])
def test_claims_get_their_own_verdict(advisor, question: str, verdict: str) -> None:
    answer = ask(advisor, question)
    assert verdict in lead(answer)
    assert "64 台" not in lead(answer) and "64 nodes" not in lead(answer) and "10 天" not in lead(answer)  # never the seed claim


def test_a_fit_question_about_one_method_says_no_then_names_what_fits(advisor) -> None:
    answer = ask(advisor, "my single RTX 4090 - could it do full finetuning of Mistral 7B?")
    assert lead(answer).startswith("**No: full fine-tuning")
    assert "QLoRA" in lead(answer) or "LoRA" in lead(answer)


def test_a_fit_answer_states_the_memory_in_totals_in_gib_and_gb(advisor) -> None:
    answer = ask(advisor, "is one 8x H100 server enough to serve Llama 3.1 405B?")
    where = next(b.text for b in answer.blocks if b.type == "paragraph" and "weights alone" in b.text)
    assert re.search(r"756 GiB \(812 GB\)", where), where
    assert "640 GB" in where


def test_owning_versus_renting_gives_the_break_even_utilisation(advisor) -> None:
    answer = ask(advisor, "at what point is owning GPUs cheaper than renting")
    assert answer.intent == "cloud_vs_onprem"
    assert re.search(r"Break-even at \d+% utili[sz]ation", answer.answer), answer.answer[:400]
