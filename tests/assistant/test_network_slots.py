"""The network the user states reaches the link tools (slot_readers.network_ports, network.stated_network).

A real thread gave "8 * 100 Gbps NICs ... RoCE ... reaches 600Gbps" and was judged against 400 Gb/s InfiniBand."""

from __future__ import annotations

import pytest

from service.assistant.slot_readers import network_ports
from tests.assistant.asking import ask, lead


@pytest.mark.parametrize(("text", "expected"), [
    ("two nodes, each with 8 * 200 Gbps RoCE NICs", {"nics_per_node": 8, "nic_gbps": 200.0, "fabric": "roce"}),
    ("每台 8 张 400G IB 网卡", {"nic_gbps": 400.0, "fabric": "infiniband"}),
    ("our NIC is a 1000 Mbit/s ethernet port", {"nic_gbps": 1.0, "fabric": "ethernet"}),
    ("两台机器之间只有万兆网卡", {"nic_gbps": 10.0, "fabric": "ethernet"}),
    ("busbw is 9 GB/s on our network", {}),  # bytes measured, not a port's bits
    ("H100 has 900 GB/s NVLink", {}),
])
def test_ports_speeds_and_fabrics_are_read(text: str, expected: dict) -> None:
    got = network_ports(text)
    assert {k: v for k, v in got.items() if k != "measured_busbw_gbps"} == expected


def test_a_rate_measured_in_bits_is_busbw_in_bytes() -> None:
    assert network_ports("8 * 100 Gbps NICs, and the bandwidth reaches 600Gbps")["measured_busbw_gbps"] == 75


def test_the_expected_busbw_is_for_the_stated_fabric_and_the_reading_is_judged(advisor) -> None:
    answer = ask(advisor, "nccl-tests between two H100 nodes, each node has 8 x 200 Gbps RoCE NICs, all_reduce reaches 1200Gbps. Is that what we should expect?")
    call = next(c for c in answer.tool_calls if c.tool == "nccl-expected")
    assert call.input["inter_fabric"] == "roce-200" and call.input["measured_busbw_gbps"] == 150
    assert "RoCE" in lead(answer) and "150 GB/s" in lead(answer)
