"""Symptoms without an error line are recognised and answered from the knowledge about them, with the first commands:
throttled clocks, 100% GPU-Util yet slow, slower per GPU across nodes, dropped throughput, low or swinging utilisation,
a NaN loss, an Xid, and a job that is healthy on another machine."""

from __future__ import annotations

import pytest

from service.assistant.handlers.diagnostics import recognise
from service.contract import ChatRequest


@pytest.mark.parametrize(
    ("text", "signature"),
    [
        ("samples per second fell 25% overnight and the SM clocks sit well below boost", "throttling"),
        ("GPU 温度很高，频率掉下来了", "throttling"),
        ("gpu-util reads 100% the whole time yet the job is sluggish", "busy_but_slow"),
        ("利用率一直100%，可是吞吐很低", "busy_but_slow"),
        ("on 2 nodes each gpu is much slower than on one node", "multinode_scaling"),
        ("跨节点训练每卡吞吐掉了一半", "multinode_scaling"),
        ("step time went up 40% after the data migration", "throughput_drop"),
        ("utilization is erratic, jumping between 10 and 90", "low_utilization"),
        ("利用率忽高忽低", "low_utilization"),
        ("our loss hit nan at step 2k", "loss_nan"),
        ("one gpu logs Xid 94 every few hours", "xid"),
        ("the same training script runs fine on a different node", "node_specific"),
        ("换了一台服务器就正常了", "node_specific"),
    ],
)
def test_each_symptom_is_recognised(text, signature):
    found = [s.name for s, _ in recognise(text)]
    assert found and found[0] == signature, found


def test_util_at_100_percent_is_not_called_low_utilisation():
    assert "low_utilization" not in [s.name for s, _ in recognise("利用率显示 100% 但训练很慢")]


def _commands(answer) -> list[str]:
    return [c for b in answer.blocks if b.type == "checklist" for step in b.steps for c in step.commands]


def test_throttled_clocks_get_the_throttle_reasons_to_read(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="our training got 20% slower this week and the GPU clocks look throttled"))
    assert answer.intent == "diagnostics"
    assert any("PERFORMANCE" in c for c in _commands(answer)), _commands(answer)
    assert any("clocks_throttle_reasons" in c for c in _commands(answer))
    assert answer.citations and answer.grounding.ungrounded == []


def test_slower_across_nodes_points_at_the_inter_node_network(advisor) -> None:
    answer = advisor.answer(ChatRequest(message="多机训练时每张卡的吞吐比单机低了快一半，怎么回事"))
    assert answer.intent == "diagnostics" and answer.language == "zh"
    assert any("NCCL_DEBUG" in c for c in _commands(answer)) and any("all_reduce_perf" in c for c in _commands(answer))
    assert answer.citations and answer.grounding.ungrounded == []


def test_a_follow_up_saying_another_machine_works_is_answered_as_a_node_problem(advisor) -> None:
    first = advisor.answer(ChatRequest(message="one of our servers trains at half speed and gpu util sits around 50%"))
    assert first.intent == "diagnostics"
    second = advisor.answer(
        ChatRequest(message="moved the job to another server and it runs fine there, what does that tell us?", conversation_id=first.conversation_id)
    )
    assert second.intent == "diagnostics", second.understanding
    assert any("dcgmi diag" in c for c in _commands(second)), _commands(second)
