"""The tools' figures a diagnosis puts after its lead: vLLM's KV-cache start-up error and a checkpoint save that stalls
training (handlers/diagnosis_tools.py)."""

from __future__ import annotations

from service.assistant.answer import ChatRequest


def test_vllm_kv_cache_error_gets_the_kv_cache_per_token_and_the_gap(advisor) -> None:
    answer = advisor.answer(
        ChatRequest(
            message="vllm won't start: ValueError: The model's max seq len (131072) is larger than the maximum number of tokens "
            "that can be stored in KV cache (42000). Llama 3 8B on one L40S"
        )
    )
    assert answer.intent == "diagnostics"
    kv = next(c for c in answer.tool_calls if c.tool == "inference")
    assert kv.input["context_len"] == 131072
    assert "128 KiB" in answer.answer  # 2 × 32 layers × 8 KV heads × 128 × 2 bytes
    assert "32%" in answer.answer and "--max-model-len" in answer.answer
    assert answer.grounding.ungrounded == []


def test_a_checkpoint_save_that_stalls_training_gets_the_write_rate_and_async_saving(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="每次存 checkpoint 要 20 分钟，GPU 全在空等，70B 模型 256 张 H100"))
    assert answer.intent == "diagnostics"
    assert [c for c in answer.tool_calls if c.tool == "checkpoint"]
    rate = next(c for c in answer.tool_calls if c.tool == "checkpoint-write-rate")
    assert rate.input["save_seconds"] == 1200
    assert "async_save" in answer.answer and answer.grounding.ungrounded == []
    assert answer.language == "zh"
