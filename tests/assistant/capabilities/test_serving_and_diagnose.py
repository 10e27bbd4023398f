"""Serving-engine memory and error diagnoses from the case, through the real pipeline."""

from __future__ import annotations

from tests.assistant.asking import ask, lead


def test_a_kv_cache_error_gets_the_length_that_fits_and_the_fraction_it_would_need(advisor) -> None:
    answer = ask(advisor, "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 131072 --gpu-memory-utilization 0.9\n"
                          "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache "
                          "(112000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n"
                          "This is on one A100 80GB, what should I set?")
    assert answer.understanding.subject == "serving_memory"
    kv = next(c for c in answer.tool_calls if c.tool == "serving-kv")
    assert kv.input["max_model_len"] == 131072 and kv.input["gpu_memory_utilization"] == 0.9
    assert lead(answer).startswith("**No")
    text = answer.answer
    assert "--max-model-len" in text and "training" not in lead(answer).lower()
    assert f"{kv.output['max_model_len_that_fits']:,}" in text


def test_why_vllm_takes_most_of_the_card_is_answered_as_by_design(advisor) -> None:
    answer = ask(advisor, "Why does vllm serve meta-llama/Llama-3.1-8B-Instruct take 72 GB of my 80 GB A100 when the model is only 16 GB?\n"
                          "vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.9")
    assert answer.understanding.subject in ("serving_job_memory", "serving_fit")
    assert "by design" in lead(answer) and "gpu-memory-utilization" in answer.answer


def test_is_this_an_oom_about_an_ecc_error_says_no_and_never_relabels_it(advisor) -> None:
    answer = ask(advisor, "Training crashed with this, is this an OOM?\nRuntimeError: CUDA error: uncorrectable ECC error encountered")
    first = lead(answer)
    assert first.startswith("**No") and "ECC" in first
    assert "this is a cuda out-of-memory error" not in answer.answer.lower()  # one diagnosis: never "ECC error and OOM"
    assert not any(c.tool == "training-memory" for c in answer.tool_calls)
    assert answer.citations and "nvidia" in answer.citations[0].url


def test_bf16_on_a_v100_names_the_card_limit_and_the_fp16_switch(advisor) -> None:
    answer = ask(advisor, "Loading the model fails on our V100 box:\nValueError: Bfloat16 is only supported on GPUs with compute capability of at "
                          "least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0.")
    assert answer.understanding.signatures[0] == "bf16_unsupported"
    assert "fp16" in answer.answer and "--dtype half" in answer.answer
    assert lead(answer).startswith(("This GPU has no bf16", "这张 GPU"))


def test_a_host_oom_is_cpu_ram_not_gpu_memory(advisor) -> None:
    answer = ask(advisor, "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 1234) of binary: /usr/bin/python\n"
                          "why does it die? GPUs have plenty of memory")
    assert answer.understanding.signatures[0] == "host_oom"
    assert "CPU RAM" in lead(answer)


def test_a_lead_its_own_figures_contradict_is_not_sent() -> None:
    from service.assistant.capabilities.base import Finding
    from service.assistant.capabilities.compose import lead_agrees

    assert lead_agrees(Finding("size_training_memory", lead="**No — ...", verdict="no", basis={"need": 50.0, "capacity": 40.0}))
    assert not lead_agrees(Finding("size_training_memory", lead="**No — ...", verdict="no", basis={"need": 30.0, "capacity": 40.0}))
    assert not lead_agrees(Finding("size_training_memory", lead="**Yes — ...", verdict="yes", basis={"need": 50.0, "capacity": 40.0}))


def test_a_serving_oom_in_words_is_diagnosed_as_a_serving_oom_not_a_training_one(advisor) -> None:
    answer = ask(advisor, "Serving Qwen2.5-7B with SGLang, the server crashes with CUDA OOM when several long requests arrive at once.")
    assert answer.understanding.subject == "serving_memory"
    text = answer.answer
    assert "--mem-fraction-static" in text and "--max-prefill-tokens" in text
    assert "gradient checkpointing" not in text and "optimizer" not in lead(answer).lower()


def test_a_kv_error_with_an_unknown_model_is_diagnosed_not_called_by_design(advisor) -> None:
    answer = ask(advisor, "vLLM on our RTX 6000 Ada fails:\n```\nValueError: The model's max seq len (30000) is larger than the maximum number of "
                          "tokens that can be stored in KV cache (3984). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
                          "when initializing the engine.\n```\nHow could that be with enough VRAM?")
    assert "by design" not in lead(answer)
    assert "3984" in answer.answer and "--enable-chunked-prefill" in answer.answer


def test_a_pasted_python_engine_that_takes_most_of_the_card_is_answered_as_by_design(advisor) -> None:
    answer = ask(advisor, "Starting the engine like this:\n```python\nfrom vllm import LLM, SamplingParams\n"
                          "llm = LLM(\"Qwen/Qwen2.5-7B-Instruct\", max_model_len=8192)\n```\n"
                          "it takes about 60GB of VRAM on my A100 for a 7B model. Is the KV cache using all that? How can I turn it off?")
    assert answer.understanding.subject == "serving_job_memory"
    assert "KV cache" in lead(answer)
    assert "gpu-memory-utilization" in answer.answer


def test_an_engine_that_takes_far_more_than_the_weights_with_no_card_named_is_by_design_with_the_weights_as_evidence(advisor) -> None:
    answer = ask(advisor, "vllm 跑 Llama-3.1-8B，显存占到了 70 多 G，模型本身才 16G，怎么让它少占点？")
    assert "设计如此" in lead(answer)
    assert "--gpu-memory-utilization" in answer.answer
    assert "仅权重" in answer.answer  # the weights the model really needs, from the inference tool
