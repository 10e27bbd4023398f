"""Two GPUs the user measured as about equally fast: why, from both data sheets (handlers/observed_speed.py).

Real threads ("our H100 is no faster than the A100 on vLLM", "A100 infers as fast as a 3090, why?") got a purchase
verdict or a vendor-claim verdict ("false: training is compute-bound"). The user's own measurement is a finding to
explain: generation follows memory bandwidth, training compute, plain FP32 the CUDA cores."""

from __future__ import annotations

from tests.assistant.asking import ask, lead


def _lookup(answer) -> dict:
    return next(c.output for c in answer.tool_calls if c.tool == "catalog-lookup" and "bandwidth_ratio" in c.output)


def test_equal_generation_speed_is_explained_by_bandwidth_and_the_variant_to_check(advisor) -> None:
    answer = ask(advisor, "We serve Llama with vLLM on an H100 and on an A100 and both take 21 seconds for 600 tokens. Why is the H100 not faster?")
    looked = _lookup(answer)
    assert looked["bandwidth_ratio"] == 1.64 and looked["compute_ratio"] > 3
    assert "bandwidth" in lead(answer) and "1.64" in lead(answer)
    assert "H100 PCIe" in answer.answer  # the variant whose bandwidth is the A100's
    assert "Verdict" not in answer.answer and answer.intent in ("compare", "claim_check", "faq", "diagnostics")


def test_fp32_work_where_the_consumer_card_has_more_cuda_core_throughput_says_so_in_chinese(advisor) -> None:
    answer = ask(advisor, "同一个语音合成模型，A100 上推理一条要 3.1 秒，3090 上 3.0 秒，为什么 A100 反而没快？")
    assert "带宽" in lead(answer)
    assert "35.6" in answer.answer and "19.5" in answer.answer  # CUDA-core FP32 of the 3090 and the A100, from the catalog


def test_someone_elses_parity_claim_is_still_checked_as_a_claim(advisor) -> None:
    answer = ask(advisor, "A vendor says the L40S trains as fast as the H100 at 30% less cost. True?")
    assert not [c for c in answer.tool_calls if c.tool == "catalog-lookup" and "bandwidth_ratio" in c.output]
