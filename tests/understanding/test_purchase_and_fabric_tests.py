"""Routing fixes (issue 7), on questions written for these tests, zh and en:

- which GPUs to buy, or a purchase list to draw up, is a purchase recommendation; weighing owning against renting
  stays cloud_vs_onprem;
- measuring the fabric before a run (which tool tests RDMA/IB bandwidth) is a pre-flight step, while choosing the
  fabric is knowledge.
"""

from __future__ import annotations

import pytest




PURCHASES = [
    "which gpus should we buy for our new research group",
    "I have to write up a shopping list of GPUs for the department, what goes on it",
    "课题组要写个采购清单做大模型方向，买什么卡",
    "实验室准备采购一批GPU，该买哪些",
]
RENT_OR_BUY = [
    "should we buy our own GPUs or keep renting them from the cloud?",
    "we rent H100s all year long, would buying them be cheaper?",
    "一年到头都在用卡，自建机房还是继续租云划算",
]
FABRIC_TESTS = [
    "before the big run I want to check the RDMA bandwidth between nodes, which tool do I use",
    "what command tests IB bandwidth between two hosts",
    "大任务开跑之前想先测一下IB带宽，用什么命令",
    "节点间RDMA带宽怎么测，用啥工具",
]
FABRIC_CHOICES = ["InfiniBand or RoCE for a 16-node training cluster?", "多机训练网络用IB还是RoCE好"]


@pytest.mark.parametrize("text", PURCHASES)
def test_a_purchase_list_is_a_recommendation(understander, text):
    assert understander.understand(text).intent == "recommend"


@pytest.mark.parametrize("text", RENT_OR_BUY)
def test_owning_against_renting_stays_a_break_even(understander, text):
    assert understander.understand(text).intent == "cloud_vs_onprem"


@pytest.mark.parametrize("text", FABRIC_TESTS)
def test_measuring_the_fabric_is_preflight(understander, text):
    assert understander.understand(text).intent == "preflight"


@pytest.mark.parametrize("text", FABRIC_CHOICES)
def test_choosing_the_fabric_stays_knowledge(understander, text):
    assert understander.understand(text).intent == "faq"


CLOUD_STORAGE = [
    "our checkpoints go to one EBS volume on AWS and saving takes ages, what's better?",
    "在阿里云上训练，checkpoint 存哪里比较快，云盘还是对象存储",
]


@pytest.mark.parametrize("text", CLOUD_STORAGE)
def test_storage_on_a_cloud_is_knowledge_not_a_provider_choice(understander, text):
    assert understander.understand(text).intent == "faq"


def test_a_sanity_check_that_asks_for_a_number_is_sizing(understander):
    assert understander.understand("quick sanity check on compute: a 3B model on 60B tokens, how many H100 hours?").intent == "sizing"
    assert understander.understand("sanity check before launching a 64-node run: what should we verify?").intent == "preflight"
