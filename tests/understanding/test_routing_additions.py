"""Routing added together (service/understanding cues, exemplars and the weaker default against another intent's cues),
on questions written for these tests, zh and en:

- a health check of a new or soon-to-be-used node is a pre-flight step;
- a low MFU of one's own run, asked where to look, is a diagnosis, while asking what MFU is or what is typical is not;
- a boss's or manager's claim followed by "sanity check?" is a claim check.
"""

from __future__ import annotations

import pytest

NODE_HEALTH_CHECKS = [
    "we just racked a fresh 8-GPU H100 server, what quick health check should I run on it?",
    "a new node arrived today, how do I make sure none of its GPUs are bad before we put it in the pool?",
    "what should a healthy nvidia-smi topo -m look like on an 8x H100 box before we start using it",
    "any fast way to screen a new machine for faulty GPUs before the big run?",
    "just got delivered: two new HGX H100 boxes. what's the go-to health check script?",
    "新到的8卡H100服务器，上线前要做哪些健康检查？",
    "刚到一台新机器，怎么快速体检一下有没有坏卡",
    "新节点交付了，跑大任务前怎么检查GPU和网络是否正常",
    "新集群刚交付，节点体检清单有哪些",
]
OWN_LOW_MFU = [
    "our run's MFU is only about 28% on 64 H100s, where do I look?",
    "my own pretraining job sits at MFU of just 20%, where should I start looking?",
    "MFU is only 35% on our 16-node H100 run, where do I look first?",
    "我们自己的训练 MFU 只有 25%，该从哪里查起？",
    "我们这次训练利用率只有 30%，从哪开始排查",
]
MFU_KNOWLEDGE = ["what is MFU?", "is 30% MFU typical for training on H100?"]
BOSS_CLAIMS = [
    "my boss says 8 H100s can pretrain a 70B model in a month. sanity check?",
    "our manager claims a single A100 can serve Llama 3 70B to 100 users — sanity check?",
    "老板说4张4090就能全参微调70B，帮我sanity check一下？",
    "领导认为两台H100一周能训完13B预训练，这个说法靠谱吗？",
]


@pytest.mark.parametrize("text", NODE_HEALTH_CHECKS)
def test_a_node_health_check_is_preflight(understander, text: str) -> None:
    assert understander.understand(text).intent == "preflight"


@pytest.mark.parametrize("text", OWN_LOW_MFU)
def test_a_low_mfu_of_ones_own_run_is_diagnostics(understander, text: str) -> None:
    assert understander.understand(text).intent == "diagnostics"


@pytest.mark.parametrize("text", MFU_KNOWLEDGE)
def test_asking_about_mfu_in_general_is_not_a_diagnosis(understander, text: str) -> None:
    assert understander.understand(text).intent != "diagnostics"


@pytest.mark.parametrize("text", BOSS_CLAIMS)
def test_a_bosss_claim_with_sanity_check_is_a_claim_check(understander, text: str) -> None:
    assert understander.understand(text).intent == "claim_check"


def test_a_sanity_checklist_before_training_without_a_claim_stays_preflight(understander) -> None:
    # "sanity check" is also a pre-flight word: without anyone's claim it is a checklist question.
    assert understander.understand("before we start training, give me a sanity checklist for the cluster").intent == "preflight"


def test_a_new_server_to_buy_is_not_a_health_check(understander) -> None:
    assert understander.understand("for a new server should we buy H100 or H200?").intent != "preflight"


def test_a_node_from_the_vendor_is_still_a_health_check(understander) -> None:
    text = "got a new 8xA100 node from the vendor, quick sanity pass before I hand it to users?"
    assert understander.understand(text).intent == "preflight"


def test_a_team_leads_two_gpu_claim_is_a_claim_check(understander) -> None:
    text = "my team lead said H20 is faster than H100 for training, sanity check?"
    assert understander.understand(text).intent == "claim_check"
