"""Renting is in the domain only when GPUs or compute are rented: a flat, a car or an office lease is out of scope,
while renting GPUs stays a cloud-versus-on-prem question (questions written for these tests)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "text",
    [
        "房租合同里写了违约金三个月，这样合法吗",
        "is it better to lease or finance a new car",
        "租个一室一厅要注意啥，中介费该谁出",
        "my office landlord wants a 5 year lease, good idea?",
    ],
)
def test_leases_of_homes_cars_and_offices_are_out_of_scope(understander, text):
    und = understander.understand(text)
    assert und.intent == "out_of_scope", und.trace


@pytest.mark.parametrize(
    "text",
    ["租 GPU 服务器还是自己买划算", "should we lease H100 servers or rent them by the hour", "包年租 8 卡机器和按小时租哪个省钱"],
)
def test_renting_gpus_is_still_in_the_domain(understander, text):
    und = understander.understand(text)
    assert und.intent == "cloud_vs_onprem", und.trace
