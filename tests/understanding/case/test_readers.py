"""Facts read from what was pasted, each with its line: launch commands, configs, errors and tool output."""

from __future__ import annotations

import pytest

from service.catalog import default_catalog
from service.understanding.case import read_case


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def facts(case) -> dict:
    out: dict = {}
    for f in case.facts:
        out.setdefault(f.name, f.value)
    return out


def test_a_deepspeed_launch_gives_the_job_with_the_line_of_each_flag(catalog) -> None:
    text = ("OOM again.\n"
            "deepspeed --num_gpus 8 --num_nodes 2 src/train.py --model_name_or_path /data/models/Llama-2-7b-hf \\\n"
            "  --deepspeed ds_zero3_offload.json --per_device_train_batch_size 2 --gradient_accumulation_steps 16 \\\n"
            "  --cutoff_len 4096 --fp16 --finetuning_type lora --lora_rank 64")
    case = read_case(text, catalog)
    got = facts(case)
    assert got["launcher"] == "deepspeed" and got["gpus_total"] == 16 and got["nodes_total"] == 2
    assert got["model_id"] == "llama-2-7b" and got["sharding"] == "zero3" and got["offload"] == "optimizer"
    assert (got["job_micro_batch"], got["grad_accum"], got["train_seq_len"]) == (2, 16, 4096)
    assert got["precision"] == "fp16" and got["method"] == "lora" and got["lora_rank"] == 64
    batch = case.fact("job_micro_batch")
    assert batch.line == 3 and "--per_device_train_batch_size 2" in batch.quote


def test_a_deepspeed_json_beats_the_file_name_and_auto_values_are_skipped(catalog) -> None:
    text = ('--deepspeed ds_z2.json\n{\n "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}},\n'
            ' "train_micro_batch_size_per_gpu": "auto",\n "bf16": {"enabled": true}\n}')
    got = facts(read_case(text, catalog))
    assert got["zero_stage"] == 3 and got["sharding"] == "zero3" and got["offload"] == "optimizer+params"
    assert "micro_batch" not in got and got["precision"] == "bf16"


def test_an_accelerate_fsdp_yaml_and_a_container_args_list(catalog) -> None:
    fsdp = read_case("compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nnum_processes: 4\nmixed_precision: bf16\n"
                     "fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_offload_params: true", catalog)
    got = facts(fsdp)
    assert (got["gpus_total"], got["sharding"], got["offload"], got["precision"]) == (4, "fsdp", "optimizer+params", "bf16")
    pod = read_case("args:\n```\n- --model\n- Qwen/Qwen2.5-7B-Instruct\n- --max-model-len\n- \"32768\"\n- --tensor-parallel-size\n- \"2\"\n```", catalog)
    got = facts(pod)
    assert (got["max_model_len"], got["tp"], got["model_id"]) == (32768, 2, "qwen2.5-7b")


def test_vllm_serve_reads_the_engine_and_its_memory_settings(catalog) -> None:
    got = facts(read_case("vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.85 --max-model-len 16384 --kv-cache-dtype fp8", catalog))
    assert got["engine"] == "vllm" and got["task"] == "inference" and got["gpu_memory_utilization"] == 0.85
    assert got["max_model_len"] == 16384 and got["kv_cache_dtype"] == "fp8"


def test_both_pytorch_oom_formats_give_their_figures_in_gib(catalog) -> None:
    old = facts(read_case("RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 1; 23.69 GiB total capacity; 21.10 GiB "
                          "already allocated; 305.56 MiB free; 22.45 GiB reserved in total by PyTorch)", catalog))
    assert (old["oom_tried_gib"], old["oom_total_gib"], old["oom_reserved_gib"], old["card_memory_gib"]) == (0.5, 23.69, 22.45, 24)
    new = facts(read_case("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.15 GiB "
                          "of which 902.56 MiB is free. Of the allocated memory 70.20 GiB is allocated by PyTorch, and 6.50 GiB is reserved "
                          "by PyTorch but unallocated.", catalog))
    assert (new["oom_total_gib"], new["oom_unallocated_gib"], new["card_memory_gib"]) == (79.15, 6.5, 80)


def test_a_wrapped_vllm_kv_error_is_one_signature_with_its_numbers(catalog) -> None:
    case = read_case("ValueError: The model's max seq len (65536) is larger than the maximum number of tokens that can be stored in KV cache (\n"
                     "21504). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.", catalog)
    assert case.signatures[0] == "kv_cache_too_small"
    assert (case.get("kv_error_max_len"), case.get("kv_error_capacity_tokens")) == (65536, 21504)


def test_an_ecc_error_outranks_and_excludes_the_oom_it_caused(catalog) -> None:
    case = read_case("RuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA out of memory while freeing", catalog)
    assert case.signatures == ["ecc_uncorrectable"]


def test_nvidia_smi_gives_driver_cuda_cards_and_memory(catalog) -> None:
    text = ("| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
            "|   0  Tesla V100-SXM2...  On   | 00000000:1A:00.0 Off |                    0 |\n"
            "| N/A   38C    P0    58W / 300W |  31200MiB / 32510MiB |     97%      Default |")
    got = facts(read_case(text, catalog))
    assert (got["driver_version"], got["driver_cuda_version"], got["smi_gpu_count"]) == ("470.82.01", "11.4", 1)
    assert got["gpu_memory_total_gib"] == pytest.approx(31.75, abs=0.01) and got["card_memory_gib"] == 32


def test_a_bad_config_gives_no_facts_and_no_error(catalog) -> None:
    case = read_case('{"zero_optimization": {"stage": 3,,,\n', catalog)
    assert case.get("zero_stage") is None


@pytest.mark.parametrize(("text", "sharding"), [
    ("8卡V100全量微调llama-7b，使用的是deepspeed zero stage2示例配置，batch size=1也OOM", "zero2"),
    ("Full fine-tune of llama-7b on 8 V100s with ZeRO stage 3 runs out of memory.", "zero3"),
    ("Full fine-tune of llama-7b on 8 V100s runs out of memory. Would ZeRO-3 fix it?", None),  # asked about, not run
    ("We run ZeRO-2 on 8 V100s and it OOMs; is ZeRO-3 better?", None),  # two stages named: not read from prose
])
def test_the_zero_stage_said_in_prose_is_the_jobs_unless_it_is_the_question(catalog, text, sharding) -> None:
    got = facts(read_case(text, catalog))
    assert got.get("sharding") == sharding


def test_a_python_snippet_that_builds_a_vllm_engine_gives_the_engine_model_and_settings(catalog) -> None:
    text = ("Memory is much higher than I expected:\n```python\nimport vllm\nengine = vllm.LLM(\n"
            "    \"mistralai/Mistral-7B-Instruct-v0.3\",\n    tensor_parallel_size=2,\n    max_model_len=16384,\n)\n```")
    case = read_case(text, catalog)
    got = facts(case)
    assert got["engine"] == "vllm" and got["max_model_len"] == 16384 and got["tp"] == 2
    model = next(f for f in case.facts if f.name == "model")  # the positional argument of the call, read by the Python parser
    assert model.value == "mistralai/Mistral-7B-Instruct-v0.3" and model.line == 5 and model.parser == "python"
    assert got["model_id"] == "mistral-7b-v0.3"
    keys = [(f.name, repr(f.value), f.line) for f in case.facts]
    assert len(keys) == len(set(keys))  # read as code and as words, each fact once


def test_python_that_does_not_parse_gives_no_python_facts(catalog) -> None:
    case = read_case("this fails:\n```python\nfrom vllm import (LLM\nllm = LLM(model=\n```", catalog)
    assert not [f for f in case.facts if f.parser == "python"]
