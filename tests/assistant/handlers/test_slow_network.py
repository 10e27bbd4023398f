"""A slow link between training machines gets a verdict from the all-reduce tool at the user's speed (handlers/slow_network.py)."""

from __future__ import annotations

from service.assistant.slot_readers import network_ports
from tests.assistant.asking import ask, lead


def _allreduce_speeds(answer) -> list[float]:
    return [c.input["nic_gbps_per_gpu"] for c in answer.tool_calls if c.tool == "allreduce"]


def test_a_gigabit_link_between_machines_is_called_the_bottleneck_with_the_all_reduce_time(advisor) -> None:
    answer = ask(advisor, "Training across two machines is very slow and most of each step is communication. Our network card is "
                          "gigabit ethernet (1000 Mbps). Is upgrading the network worth it?")
    assert _allreduce_speeds(answer)[0] == 1.0 and set(_allreduce_speeds(answer)[1:]) == {100.0, 400.0}
    assert lead(answer).startswith("**Yes") and "1 Gbit/s" in lead(answer)


def test_in_chinese_too(advisor) -> None:
    answer = ask(advisor, "两台机器多机训练特别慢，机器之间只有千兆网卡，有必要升级网络吗？")
    assert lead(answer).startswith("**有必要") and _allreduce_speeds(answer)[0] == 1.0


def test_the_speed_one_considers_moving_to_is_not_the_link_one_has() -> None:
    assert network_ports("My NIC is a GB NIC, around 1000 Mbit/s. Is it necessary to upgrade to a 40G or 100G NIC?")["nic_gbps"] == 1.0
