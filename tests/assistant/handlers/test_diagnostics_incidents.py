"""Four incidents users describe, each answered as diagnostics with what it means and what to run first: an InfiniBand /
RoCE completion error (error 12, transport retry counter exceeded), a node running hot, one slow node dragging a
multi-node job, and a user's own CUDA OOM on a card where the job "should" fit. Phrasings in both languages, with and
without pasted log lines."""

from __future__ import annotations

import pytest

from service.assistant.handlers.diagnostics import recognise
from service.catalog.loader import default_catalog
from service.contract import ChatRequest


@pytest.mark.parametrize(
    ("text", "signature"),
    [
        ("NET/IB : Got completion from peer 10.1.4.7<40122> with error 12, opcode 1, len 32768, vendor err 129 (Send)", "ib_completion"),
        ("mlx5_2: transport retry counter exceeded, then the whole job aborted", "ib_completion"),
        ("status IBV_WC_RETRY_EXC_ERR on the roce side after two hours", "ib_completion"),
        ("IB 网卡报错 error 12，任务挂了", "ib_completion"),
        ("rdma 报 error 12 然后 NCCL 超时", "ib_completion"),
        ("the fans on node 7 roar and its gpus run very hot", "overheating"),
        ("our gpus hit 89c during the run", "overheating"),
        ("机房空调不行，GPU 温度 90 度", "overheating"),
        ("服务器散热不好，风扇一直全速", "overheating"),
        ("a single node holds back all the other ranks every step", "straggler"),
        ("how do we find the straggler in a 128 gpu run", "straggler"),
        ("集群里有一台机器特别慢，拖累了整个训练", "straggler"),
        ("总有一个慢节点拖后腿", "straggler"),
        ("我 24G 的卡微调 7B 爆显存了，按理说放得下吗", "cuda_oom"),
    ],
)
def test_each_incident_is_recognised(text, signature):
    found = [s.name for s, _ in recognise(text)]
    assert found and found[0] == signature, found


@pytest.mark.parametrize(
    ("text", "signature"),
    [
        ("ProcessGroupNCCL unhandled system error on node 4", "nccl_error"),  # not every NCCL error is an IB completion error
        ("多机训练时每张卡的吞吐比单机低了快一半", "multinode_scaling"),  # the network, not one slow machine
        ("clocks are held at the power cap on all eight gpus", "throttling"),  # power, not heat
    ],
)
def test_the_neighbouring_readings_keep_their_own_signature(text, signature):
    found = [s.name for s, _ in recognise(text)]
    assert found and found[0] == signature, found


@pytest.mark.parametrize("text", ["GPU 温度 85 度还降频", "node 3 is overheating and its gpus show thermal slowdown"])
def test_a_hot_gpu_with_lowered_clocks_names_both_and_explains_the_heat(text):
    found = [s.name for s, _ in recognise(text)]
    assert found[:2] == ["throttling", "overheating"], found


def test_the_completion_status_is_the_code_quoted_back():
    (sig, code), *_ = recognise("NCCL WARN NET/IB : Got completion from peer 10.0.0.3<1234> with error 12, opcode 0, len 0, vendor err 129")
    assert sig.name == "ib_completion" and code == "12"
    assert "nccl_error" not in [s.name for s, _ in recognise("NCCL WARN NET/IB : Got completion with error 12")]


def _commands(answer) -> list[str]:
    return [c for b in answer.blocks if b.type == "checklist" for step in b.steps for c in step.commands]


def _grounded(answer) -> None:
    assert answer.intent == "diagnostics", answer.understanding
    assert answer.citations and answer.grounding.ungrounded == []


@pytest.mark.parametrize(
    "message",
    [
        "NCCL WARN NET/IB : Got completion from peer 10.0.3.21<44021> with error 12, opcode 0, len 0, vendor err 129 (Recv), any idea?",
        "our 16-node job keeps dying with 'transport retry counter exceeded'",
    ],
)
def test_an_ib_completion_error_says_what_it_means_and_what_to_run(advisor, message) -> None:
    answer = advisor.answer(ChatRequest(message=message))
    _grounded(answer)
    text = answer.answer
    assert "gave up" in text and "cable" in text  # the HCA stopped retransmitting; the link is the suspect
    assert "NCCL_IB_TIMEOUT" in text and "NCCL_IB_RETRY_CNT" in text and "only after the link" in text
    commands = " ".join(_commands(answer))
    assert "ibstat" in commands and "ibv_devinfo" in commands and "perfquery" in commands and "all_reduce_perf" in commands
    assert "NCCL_DEBUG_SUBSYS=NET" in commands


def test_an_ib_error_reported_in_chinese_is_diagnosed_in_chinese(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="IB 报错 error 12，训练跑一半就挂了，先查什么"))
    _grounded(answer)
    assert answer.language == "zh"
    assert "重传" in answer.answer and "NCCL_IB_TIMEOUT" in answer.answer and "ibdiagnet" in answer.answer


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("one of our nodes runs hot, the fans are at full speed and the GPUs clock down", ["inlet", "blanking panels", "power capping", "DCGM"]),
        ("GPU 温度 85 度还降频，风扇也很吵", ["进风", "盲板", "功耗封顶", "DCGM"]),
    ],
)
def test_a_hot_node_is_answered_with_cooling(advisor, message, words) -> None:
    answer = advisor.answer(ChatRequest(message=message))
    _grounded(answer)
    missing = [w for w in words if w not in answer.answer]
    assert not missing, missing
    commands = " ".join(_commands(answer))
    assert "PERFORMANCE,TEMPERATURE" in commands and "POWER" in commands and "ipmitool sdr type Temperature" in commands, commands


@pytest.mark.parametrize(
    "message",
    ["one slow node is dragging our 32-node training run, how do I find it?", "多机训练里有一台机器特别慢，拖慢了整个任务，怎么找出来"],
)
def test_a_straggler_is_found_then_isolated(advisor, message) -> None:
    answer = advisor.answer(ChatRequest(message=message))
    _grounded(answer)
    assert "kubectl cordon" in answer.answer and "scontrol update" in answer.answer
    commands = " ".join(_commands(answer))
    assert all(c in commands for c in ("all_reduce_perf", "dcgmi diag", "lspci -vv", "ibstat", "State=DRAIN")), commands


def test_an_oom_that_should_fit_leads_with_the_jobs_figure_then_how_to_see_it(advisor) -> None:
    # Issue 25: the job's memory need against the card leads; the generic explanation of what takes memory follows it.
    answer = advisor.answer(ChatRequest(message="我 24G 的卡微调 7B 爆显存了，按理说放得下吗"))
    assert answer.intent == "diagnostics" and answer.grounding.ungrounded == []
    text = answer.answer
    assert "memory_summary" in text and "expandable_segments" in text and "优化器状态" in text
    assert any(c.tool == "training-memory" for c in answer.tool_calls)
    assert text.index("GiB") < text.index("memory_summary")  # the tool's figure first, then how to see what holds the memory


def test_the_newer_pytorch_oom_message_gives_the_card(advisor) -> None:
    # PyTorch 2.x says "GPU 0 has a total capacity of 23.65 GiB": that is a 24 GB card, so the tool runs on one.
    answer = advisor.answer(ChatRequest(
        message="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.65 GiB "
                "of which 1.02 GiB is free. LoRA on Mistral 7B, should this fit?"))
    assert answer.intent == "diagnostics"
    memory = next(c for c in answer.tool_calls if c.tool == "training-memory")
    assert 22 <= default_catalog().gpus[memory.input["gpu"]].memory_gb <= 26, memory.input
    assert memory.input["method"] == "lora" and answer.grounding.ungrounded == []
