"""Handler behaviours added together: a serving fit says what is left for the KV cache, PCIe cards doing a sharded full
fine-tune are told about the link, a quantised follow-up keeps the users' concurrency, serving plans cite serving
documents, cross-node busbw checks the fabric, a failed DCGM diagnostic is a symptom, a deadline that compute alone
would meet on less than one GPU plans for the memory, and a TTFT target without a prompt length is answered.

Questions written for these tests; every answer is checked for ungrounded numbers (tests/assistant/asking.py).
"""

from __future__ import annotations

import re

import pytest

from tests.assistant.asking import ask, lead

CJK = re.compile(r"[\u4e00-\u9fff]")


def _calls(answer, tool: str) -> list:
    return [c for c in answer.tool_calls if c.tool == tool]


def _body(answer) -> str:
    """The answer above its calculation appendix."""
    return answer.answer.split("### ")[0]


# -- serving fit: the KV cache room ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "can one L40S run Qwen2.5-32B in FP8 for inference?",
        "will Qwen2.5-32B fit on a single L40S with FP8 weights for serving?",
        "一张 L40S 用 FP8 放得下 Qwen2.5-32B 推理吗",
    ],
)
def test_a_serving_fit_says_how_many_sequences_the_kv_cache_holds(advisor, question: str) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None and answer.intent == "sizing"
    fp8 = [c.output for c in _calls(answer, "inference") if c.input.get("weights") == "fp8"]
    assert fp8 and fp8[0]["fit"] == "fits" and fp8[0]["max_concurrency"] > 0
    n = f"{fp8[0]['max_concurrency']:,}"
    kv_line = next((b.text for b in answer.blocks if getattr(b, "text", None) and "KV cache" in b.text and n in b.text), None)
    assert kv_line is not None, answer.answer
    assert re.search(r"sequences|条", kv_line) and f"{fp8[0]['context_len']:,}" in kv_line


def test_a_chinese_can_it_run_question_also_states_the_kv_room(advisor) -> None:
    answer = ask(advisor, "一张 L40S 能用 FP8 跑 Qwen2.5-32B 推理吗")
    assert re.search(r"KV cache.{0,20}(?:同时容纳|只够同时跑)", answer.answer), answer.answer


# -- multi-GPU full fine-tune on PCIe cards ----------------------------------------------------------------------


@pytest.mark.parametrize("question", ["will a full fine-tune of Llama 3 8B fit on 8x 4090?", "8 张 4090 全参微调 Llama 3 8B 放得下吗"])
def test_a_sharded_full_fine_tune_on_pcie_cards_names_the_link(advisor, question: str) -> None:
    answer = ask(advisor, question)
    body = _body(answer)
    assert "PCIe" in body and "NVLink" in body, body
    lookups = [c.output for c in _calls(answer, "catalog-lookup") if "pcie_gbps_per_direction" in c.output]
    assert lookups and lookups[0]["pcie_gen"] == 4
    if CJK.search(question):
        assert "没有 NVLink" in body
    else:
        assert "no NVLink" in body


def test_the_pcie_note_does_not_contradict_a_does_not_fit_lead(advisor) -> None:
    # (An 8B model fits 8 × 4090 under ZeRO-3 once every layer is checkpointed, about 16 GiB of states per card, and the
    # answer now says so; a 14B model does not fit even then.)
    answer = ask(advisor, "will a full fine-tune of Qwen2.5 14B fit on 8x 4090?")
    assert lead(answer).lstrip("*").startswith("No")
    assert "it fits" not in _body(answer)


# -- serving plans: users kept across a quantised follow-up, serving citations --------------------------------


def test_an_int4_follow_up_keeps_the_concurrency_derived_from_users(advisor) -> None:
    first = ask(advisor, "We need to serve Qwen2.5-32B to about 500 users, what do we need?")
    derived = _calls(first, "concurrency-from-users")
    assert derived and derived[0].input["users"] == 500
    concurrency = derived[0].output["concurrency"]
    second = ask(advisor, "We need to serve Qwen2.5-32B to about 500 users, what do we need?", "switch to AWQ int4")
    again = _calls(second, "concurrency-from-users")
    assert again and again[0].input["users"] == 500 and again[0].output["concurrency"] == concurrency
    int4 = [c for c in _calls(second, "inference") if c.input.get("weights") == "int4"]
    assert int4 and all(c.input["concurrency"] == concurrency for c in int4)
    assert any(b.type == "notice" and f"{concurrency:,}" in b.text for b in second.blocks)


SERVING_DOCS = ("inference-serving-basics", "inference-latency-tuning", "serving-engine-memory", "serving-tp-vs-replicas")


@pytest.mark.parametrize(
    "question",
    [
        "We want to serve Qwen2.5-7B on A100s for about 300 users. What do we need?",
        "Qwen2.5-7B 部署在 A100 上给 300 人用",
        "serve Qwen2.5-72B on H100s for 2000 users",
    ],
)
def test_a_serving_plan_cites_serving_documents(advisor, question: str) -> None:
    answer = ask(advisor, question)
    docs = [c.id.split(".")[0] for c in answer.citations]
    assert docs, answer.answer
    assert all(d.startswith(SERVING_DOCS) for d in docs), docs
    assert not any(d.startswith(("rl-post-training", "claim-")) for d in docs), docs


# -- cross-node busbw ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "两台节点跨机 busbw 只有 11GB/s，400G IB",
        "cross-node all_reduce busbw is only 12 GB/s on 2 nodes of 8xH100, is that normal?",
        "多机训练 nccl-tests 跨节点 busbw 才 20GB/s",
    ],
)
def test_low_cross_node_busbw_checks_the_fabric(advisor, question: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "diagnostics"
    expected = _calls(answer, "nccl-expected")
    assert expected and expected[0].input["gpus"] >= 16 and expected[0].output["verdict"] != "healthy"
    body = _body(answer)
    assert "ibstat" in body and ("NET/Socket" in body or "NET/IB" in body), body
    assert "nvidia-smi topo -m" not in body  # the intra-node link checklist is not the one for a fabric problem


def test_low_busbw_inside_one_node_still_checks_the_links(advisor) -> None:
    answer = ask(advisor, "8 张 H100 单机 busbw 只有 100 GB/s")
    body = _body(answer)
    assert "nvidia-smi topo -m" in body and "ibstat" not in body


def test_the_link_speed_is_not_read_as_the_measured_busbw(advisor) -> None:
    answer = ask(advisor, "all_reduce between our two nodes only gets 9 GB/s busbw over 400G InfiniBand, why?")
    expected = _calls(answer, "nccl-expected")
    assert expected and expected[0].input["measured_busbw_gbps"] == 9


# -- a failed DCGM diagnostic ----------------------------------------------------------------------------------


@pytest.mark.parametrize("question", ["dcgmi diag -r 3 failed on GPU 5 of our node, what now?", "dcgmi diag 跑完 3 号卡没通过，怎么办"])
def test_a_failed_dcgm_diag_is_diagnosed_with_memory_health(advisor, question: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "diagnostics" and answer.clarification is None
    assert _calls(answer, "error-signature")
    body = _body(answer)
    assert re.search(r"\bECC\b|row remap|行重映射", body, re.I), body
    assert "DCGM" in lead(answer)


# -- a deadline met by less compute than the training state needs -----------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "full fine-tune Qwen2.5-14B on 1B tokens within a week on H100s, how many GPUs?",
        "Qwen2.5-14B 全参微调，10亿 token，一周内训完，用 H100 要几张卡",
    ],
)
def test_a_deadline_met_on_less_than_one_gpu_leads_with_the_memory_count(advisor, question: str) -> None:
    answer = ask(advisor, question)
    deadline = _calls(answer, "gpus-for-deadline")
    assert deadline and deadline[0].output["gpus"]["typical"] < 1
    sharded = [c for c in _calls(answer, "training-memory") if c.input.get("sharding") == "zero3"]
    fitting = [c for c in sharded if c.output["fit"] in ("fits", "tight")]
    assert fitting and fitting[0].input["gpus"] >= 4
    first = lead(answer)
    assert re.search(r"ZeRO-3|FSDP", first) and f"{fitting[0].input['gpus']} " in first, first
    assert re.search(r"memory|显存", first, re.I)


# -- a TTFT target without a prompt length ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "target", "seconds"),
    [
        ("serve Llama 3 8B to 200 users on L40S", "p95 TTFT under 400ms?", 0.4),
        ("Qwen2.5-14B 推理服务，100 个用户，用 A100", "首 token 延迟要控制在 500ms 以内呢", 0.5),
    ],
)
def test_a_ttft_target_without_a_prompt_length_assumes_one(advisor, plan: str, target: str, seconds: float) -> None:
    answer = ask(advisor, plan, target)
    assert answer.clarification is None
    latency = _calls(answer, "latency-target")
    assert latency, [c.tool for c in answer.tool_calls]
    notice = next((b.text for b in answer.blocks if b.type == "notice"), "")
    assumed = re.search(r"(\d[\d,]*) ?-?token", notice)
    assert assumed and re.search(r"prompt|提示词", notice), notice
    assert assumed.group(1) in lead(answer)  # the lead's TTFT is for the assumed prompt
    assert first_says_yes_or_no(lead(answer)), lead(answer)
    assert f"{seconds:g}" in lead(answer)


def first_says_yes_or_no(text: str) -> bool:
    return bool(re.match(r"^\**\s*(?:Yes|No|能|不行)", text))
