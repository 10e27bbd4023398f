"""KV capacity as vLLM counts it, against a start-up log and the error vLLM raises."""

from __future__ import annotations


def test_a_logged_h100_start_up_is_reproduced_within_a_percent(size) -> None:
    # llm-d-planner's vLLM 0.19 run: Llama-3.1-8B-Instruct, H100 80GB, 0.95 -> 'GPU KV cache size: 476,016 tokens'.
    result = size("kv-capacity", model="llama-3.1-8b", gpu="h100-sxm", gpu_memory_utilization=0.95, max_model_len=8192)
    assert abs(result.kv_cache_tokens / 476_016 - 1) < 0.01
    assert result.kv_cache_tokens % 16 == 0 and result.fits_max_model_len


def test_fp8_kv_doubles_the_tokens_and_tp_shards_the_weights(size) -> None:
    base = size("kv-capacity", model="qwen2.5-7b", gpu="h100-sxm", gpu_memory_utilization=0.95)
    fp8 = size("kv-capacity", model="qwen2.5-7b", gpu="h100-sxm", gpu_memory_utilization=0.95, kv_cache_dtype="fp8")
    tp2 = size("kv-capacity", model="qwen2.5-7b", gpu="h100-sxm", gpu_memory_utilization=0.95, tp=2)
    assert abs(fp8.kv_cache_tokens - 2 * base.kv_cache_tokens) <= 16
    assert abs(tp2.weights_gib - base.weights_gib / 2) < 0.01 and tp2.kv_cache_tokens > 2 * base.kv_cache_tokens


def test_a_context_longer_than_the_cache_is_the_error_vllm_raises(size) -> None:
    # vllm#13061: 2x RTX 4090, a 14B model at its 131,072 default context does not start.
    result = size("kv-capacity", model="qwen2.5-14b", gpu="rtx-4090", tp=2, gpu_memory_utilization=0.98, engine="vllm-v0", max_num_batched_tokens=2048)
    assert not result.fits_max_model_len
    assert any(w.code == "max_len_too_long" for w in result.work.warnings)
