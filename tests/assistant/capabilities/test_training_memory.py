"""Sizing the user's own training job from what they pasted or wrote, through the real pipeline (index, SQLite, tools)."""

from __future__ import annotations

import re

from tests.assistant.asking import ask, lead

OOM_CASE = """Full fine-tune keeps running out of memory on our 4 A100 40GB, launched like this:
```
torchrun --nproc_per_node 4 finetune.py --model_name_or_path meta-llama/Llama-2-13b-hf --deepspeed configs/ds_zero2.json \\
  --per_device_train_batch_size 4 --gradient_accumulation_steps 8 --max_seq_length 2048 --bf16 True
```
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB (GPU 0; 39.39 GiB total capacity; 36.12 GiB already allocated; 1.02 GiB free; 37.01 GiB reserved in total by PyTorch)"""


def figures(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"(\d[\d,]*(?:\.\d+)?) GiB", text)]


def test_an_oom_with_its_command_leads_with_this_jobs_need_against_the_card(advisor) -> None:
    answer = ask(advisor, OOM_CASE)
    first = lead(answer)
    assert first.startswith("**No"), first
    need, capacity = figures(first)[:2]
    memory = next(c for c in answer.tool_calls if c.tool == "training-memory")
    assert memory.input["sharding"] == "zero2" and memory.input["gpus"] == 4 and memory.input["micro_batch"] == 4
    assert need == round(memory.output["per_gpu"]["total_gib"]) or abs(need - memory.output["per_gpu"]["total_gib"]) < 1
    assert capacity == 39.4  # the capacity the error reported, not the catalog's 40
    read = next(c for c in answer.tool_calls if c.tool == "read-case")
    assert read.output["sharding.line"] == 3 and "ds_zero2.json" in read.input["sharding"]
    assert answer.understanding.subject == "training_oom" and answer.intent == "diagnostics"
    assert any(f.name == "job_micro_batch" and f.line == 4 for f in answer.understanding.facts)


def test_asking_whether_zero3_fixes_it_answers_for_zero3_with_the_tool(advisor) -> None:
    answer = ask(advisor, OOM_CASE + "\nWould switching to ZeRO-3 fix it?")
    first = lead(answer)
    assert "ZeRO-3" in first and first.startswith(("**No", "**Yes"))
    zero3 = [c for c in answer.tool_calls if c.tool == "training-memory" and c.input.get("sharding") == "zero3"]
    assert zero3, "the change asked about is run through the memory tool"


def test_asking_for_a_way_to_fix_it_leads_with_the_cheapest_fix_that_fits(advisor) -> None:
    answer = ask(advisor, OOM_CASE + "\nIs there any way to fix it?")
    first = lead(answer)
    assert first.startswith("**Yes: with") and "as launched" in first, first
    after, capacity, need = figures(first)[:3]
    assert after <= capacity < need


def test_a_fit_question_in_words_is_sized_on_the_card_variant_it_names(advisor) -> None:
    # "A100 ... (40GB)": the memory the user wrote picks the 40 GB card, which the name alone defaults away from.
    answer = ask(advisor, "Can we full fine-tune Llama 2 13B on 8 A100 GPUs (40GB each)?")
    memory = next(c for c in answer.tool_calls if c.tool in ("training-memory", "recommend") and c.input.get("gpu"))
    assert memory.input["gpu"] == "a100-40gb-sxm"


def test_chinese_question_with_an_english_log_is_answered_in_chinese(advisor) -> None:
    answer = ask(advisor, "用 LLaMA-Factory 微调 Qwen2.5-7B 报错，怎么办？\n"
                          "llamafactory-cli train --model_name_or_path Qwen/Qwen2.5-7B-Instruct --finetuning_type full --per_device_train_batch_size 8 "
                          "--cutoff_len 4096 --bf16\n"
                          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which "
                          "1.20 GiB is free.")
    assert answer.language == "zh"
    assert re.search(r"[\u4e00-\u9fff]", lead(answer))
    memory = next(c for c in answer.tool_calls if c.tool == "training-memory")
    assert memory.input["micro_batch"] == 8 and memory.input["seq_len"] == 4096 and memory.input["method"] == "full"


def test_data_parallel_without_sharding_says_cards_do_not_pool_memory(advisor) -> None:
    answer = ask(advisor, "torchrun --nproc_per_node 4 train.py --model_name_or_path meta-llama/Llama-2-7b-hf --bf16 True "
                          "--per_device_train_batch_size 1\nIs the memory of 4x RTX 3090 enough for this full fine-tune?")
    assert lead(answer).startswith("**No")
    assert any("DDP" in item for b in answer.blocks if b.type == "bullets" for item in b.items)


def test_how_many_cards_a_named_full_fine_tune_needs_is_counted_on_the_stated_variant(advisor) -> None:
    answer = ask(advisor, "How many A100 40GB GPUs do I need to full fine-tune Llama 2 13B?")
    first = lead(answer)
    assert first.startswith("**About") and "40GB" in first, first
    runs = [c for c in answer.tool_calls if c.tool == "training-memory"]
    assert all(c.input["gpu"] == "a100-40gb-sxm" for c in runs)
    counted = max(c.input["gpus"] for c in runs if c.input["method"] == "full")
    assert f"{counted} ×" in first


def test_an_oom_of_ones_own_model_in_words_leads_with_its_figure(advisor) -> None:
    answer = ask(advisor, "我 24G 的卡全参微调 7B 爆显存了，按理说放得下吗")
    assert answer.intent == "diagnostics" and answer.language == "zh"
    assert lead(answer).startswith("**不行") and "GiB" in lead(answer)
    assert "memory_summary" in answer.answer  # how to see what holds the memory, since no error line was pasted


def test_a_named_tool_keeps_a_question_in_scope(advisor) -> None:
    answer = ask(advisor, "With llama.cpp server and -np 4, does each slot get the full context?")
    assert answer.intent != "out_of_scope"
