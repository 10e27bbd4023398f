"""GPU comparisons end in a verdict from the tools: speed with each class's MFU, price per job, memory fit."""

from __future__ import annotations

import pytest

from service.contract import ChatRequest


def ask(advisor, message: str):
    answer = advisor.answer(ChatRequest(message=message))
    assert answer.grounding.ungrounded == [], answer.grounding.ungrounded
    return answer


def verdict_call(answer) -> dict:
    return next(c for c in answer.tool_calls if c.tool == "compare-verdict" and "job_hours" in c.output).output


def test_a_comparison_leads_with_a_verdict_priced_per_job(advisor) -> None:
    answer = ask(advisor, "H100 or A100 for our training cluster, which one should we buy?")
    assert answer.intent == "compare"
    first = answer.blocks[0]
    assert first.type == "lead" and "Verdict" in first.text
    output = verdict_call(answer)
    hours = output["job_hours"]
    assert hours["h100-sxm"] < hours["a100-80gb-sxm"]
    # The practical speed-up carries each class's MFU: below the 3.2x data-sheet compute ratio.
    assert 1.5 < output["speedup"] < 3.17
    assert set(output["job_cost_usd"]) == {"h100-sxm", "a100-80gb-sxm"}
    assert any(b.type == "notice" and "reference job" in b.text for b in answer.blocks), "the assumed job is stated"


def test_cards_with_the_same_compute_are_called_equally_fast(advisor) -> None:
    answer = ask(advisor, "A800 和 A100 训练上有啥区别，选哪个")
    assert answer.intent == "compare"
    assert "一样快" in answer.blocks[0].text
    assert verdict_call(answer)["speedup"] == pytest.approx(1.0, abs=0.01)


def test_a_workload_that_fits_only_one_card_picks_that_card(advisor) -> None:
    answer = ask(advisor, "L40S vs H100 for serving Llama 3 8B in fp16, one card each")
    assert answer.intent == "compare"
    assert answer.blocks[0].type == "lead" and "Verdict" in answer.blocks[0].text


@pytest.mark.parametrize("question", ["MI300X vs H100 for fine-tuning a 13B model, which one?", "昇腾910B和A100训13B模型选哪个"])
def test_a_non_nvidia_card_brings_its_software_stack_into_the_comparison(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "compare"
    assert any("non-nvidia-accelerators" in c.id for c in answer.citations), [c.id for c in answer.citations]


def test_an_nvidia_only_comparison_does_not_cite_the_alternative_accelerators(advisor) -> None:
    answer = ask(advisor, "H100 vs A100 for fine-tuning a 13B model, which one?")
    assert all("non-nvidia-accelerators" not in c.id for c in answer.citations)


@pytest.mark.parametrize(
    ("question", "stack"),
    [
        ("mi300x or h100 for serving 70b models", "ROCm"),
        ("MI300X和H100选哪个？主要跑推理", "ROCm"),
        ("Ascend 910B or H100 for training a 7B model?", "CANN"),
        ("昇腾910B和A100训13B模型选哪个", "CANN"),
    ],
)
def test_a_non_nvidia_comparison_names_the_vendors_software_stack(advisor, question, stack) -> None:
    # The stack's sentences are picked by the stack's words: a serving question shares none with "ROCm".
    answer = ask(advisor, question)
    assert answer.intent == "compare"
    text = " ".join(item for b in answer.blocks if b.type == "bullets" for item in b.items)
    assert stack in text, text
    quoted = [item for b in answer.blocks if b.type == "bullets" for item in b.items]
    assert len(quoted) == len(set(quoted)), "a section split into chunks is quoted once"


@pytest.mark.parametrize(
    "question, model",
    [("L40S vs A100 80GB for LoRA on a 14B model, which one?", "14B"), ("qwen2.5 14b 微调，L40S 还是 A100 80G 好", "Qwen2.5-14B")],
)
def test_a_named_model_without_tokens_is_priced_as_that_model(advisor, question: str, model: str) -> None:
    # The note names the user's model, not the 7B reference job, and every figure in it is the tools' (ask() checks).
    answer = ask(advisor, question)
    notes = [b.text for b in answer.blocks if b.type == "notice" and ("token" in b.text)]
    assert notes and model.lower() in notes[0].lower() and "7B" not in notes[0]


def test_a_card_cheaper_per_hour_loses_on_cost_per_job_and_the_ranking_shows_it(advisor) -> None:
    # A100 80GB rents for less per GPU-hour than H100, but the H100 finishes the same job ~2.7x sooner: per job it is cheaper.
    answer = ask(advisor, "H100 or A100 for training Llama 3 70B on 100B tokens on 64 GPUs, which one?")
    output = verdict_call(answer)
    rows = output["job_cost_rows"]
    per_hour = {gpu: r[0]["price"]["price_per_gpu_hour"] for gpu, r in rows.items()}
    assert per_hour["a100-80gb-sxm"] < per_hour["h100-sxm"]
    assert output["job_cost_usd"]["h100-sxm"] < output["job_cost_usd"]["a100-80gb-sxm"]
    assert output["ranked_by_job_cost"][0] == "h100-sxm"
    for gpu_rows in rows.values():  # every row names its date and source, and carries the job's cost band
        for row in gpu_rows:
            assert row["price"]["as_of"] and row["price"]["source_url"]
            assert row["cost"]["low"] <= row["cost"]["typical"] <= row["cost"]["high"]
    assert any(r["price"]["pricing"] == "spot" for r in rows["h100-sxm"]), "the catalog's spot price stands beside on-demand"
    text = " ".join(b.text for b in answer.blocks if b.type == "paragraph")
    assert text.index("H100") < text.index("A100", text.index("cheapest job first")), text
    assert "spot" in text
