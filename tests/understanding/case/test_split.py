"""Splitting a message into the user's prose and what they pasted: fences, commands, logs, JSON, YAML, tool output."""

from __future__ import annotations

from service.understanding.case.split import is_command, split_message


def kinds(text: str) -> list[str]:
    return [a.kind for a in split_message(text)[1]]


def test_a_fenced_block_is_one_artefact_and_its_kind_is_read_from_its_lines() -> None:
    text = "my run dies:\n```\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: boom\n```\nany idea?"
    prose, artefacts = split_message(text)
    assert [line for _, line in prose] == ["my run dies:", "any idea?"]
    assert [(a.kind, a.first_line, a.fenced) for a in artefacts] == [("log", 3, True)]


def test_a_launch_command_with_continuation_lines_is_one_command() -> None:
    text = "I launch it with\ntorchrun --nproc_per_node 8 train.py \\\n  --bf16 True \\\n  --per_device_train_batch_size 2\nand it hangs"
    prose, artefacts = split_message(text)
    assert [a.kind for a in artefacts] == ["command"]
    assert artefacts[0].text.count("\n") == 2
    assert [line for _, line in prose] == ["I launch it with", "and it hangs"]


def test_a_json_object_is_read_until_its_braces_close() -> None:
    text = 'config:\n{\n  "zero_optimization": {"stage": 3},\n  "bf16": {"enabled": true}\n}\nthanks'
    _, artefacts = split_message(text)
    assert [(a.kind, a.first_line) for a in artefacts] == [("json", 2)]


def test_yaml_needs_two_key_lines_and_prose_with_a_colon_stays_prose() -> None:
    assert kinds("model_name_or_path: Qwen/Qwen2-7B\nfinetuning_type: lora\nper_device_train_batch_size: 2") == ["yaml"]
    assert kinds("Note: this worked yesterday") == []


def test_an_error_after_the_users_own_chinese_words_is_cut_from_the_prose() -> None:
    prose, artefacts = split_message("训练时报错 torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert [line for _, line in prose] == ["训练时报错"]
    assert artefacts[0].kind == "log" and artefacts[0].text.startswith("torch.cuda.OutOfMemoryError")


def test_nvidia_smi_output_is_tool_output() -> None:
    text = ("+-----------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
            "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |")
    assert kinds(text) == ["tool_output"]


def test_a_pip_list_line_is_not_a_command_but_a_launch_is() -> None:
    assert not is_command("vllm                          0.2.7")
    assert is_command("CUDA_VISIBLE_DEVICES=0,1 python -m vllm.entrypoints.openai.api_server --model x")
    assert not is_command("我用 vllm serve 启动")
