"""Routing fixes (issue 7, stop 19), on questions written for these tests, zh and en:

- an out-of-memory or a serving engine's start-up error that happened is diagnostics, with the workload stated; whether a
  plan *would* run out of memory stays a fit question;
- how a technique works or whether it is stable (FP8 training, ZeRO-3, tensor parallelism) and a hyperparameter's usual
  value are knowledge, even with a GPU named;
- a sweeping or blanket assertion (every workload, any 7B, N GPUs = N× speed) and a vendor's or a blog's speed-up claim
  are claim checks with no doubt word;
- checking every NVLink or testing the fabric before a job is pre-flight; DCGM diagnostics levels too;
- an idle wait on checkpoint saves and slowdowns when other teams launch are symptoms of one's own run.
"""

from __future__ import annotations

import pytest

CASES = [
    ("my llama 3 8b lora run OOMs on a 4090 at seq 4096, what now", "diagnostics"),
    ("qwen2.5 7b 全参微调 8卡A100 一跑就oom", "diagnostics"),
    ("vLLM refuses to start: ValueError ... larger than the maximum number of tokens that can be stored in KV cache", "diagnostics"),
    ("can a 3090 fine-tune mistral 7b with qlora without running OOM?", "sizing"),
    ("A10上全参微调8B会不会爆显存", "sizing"),
    ("how does FP8 training work on Hopper, and is it stable?", "faq"),
    ("ZeRO-3 的原理是什么", "faq"),
    ("how does tensor parallelism split a layer across gpus", "faq"),
    ("what learning rate is typical for a 7b full fine-tune", "faq"),
    ("what is the 6ND rule", "faq"),
    ("AMD's MI300X beats the H100 on every workload, right?", "claim_check"),
    ("you need 80GB to run any 13B model", "claim_check"),
    ("4 张卡的训练速度就是单卡的 4 倍吧", "claim_check"),
    ("a blog post saying B200 is 3x faster than H100 for training", "claim_check"),
    ("Nvidia says B200 is 4x faster than H100", "claim_check"),
    ("how do I make sure all the nvlinks are working on our new box", "preflight"),
    ("开训前怎么测 IB 网络有没有问题", "preflight"),
    ("dcgmi diag: which level should I run before a big job", "preflight"),
    ("our checkpoint saves take 10 minutes and the GPUs sit idle meanwhile", "diagnostics"),
    ("同一个集群，别人一上任务我这边就慢了一大截", "diagnostics"),
    ("spot vs on-demand for a 2 week run on 16 A100s", "cloud_vs_onprem"),
    ("what gpu for an offline embedding job over 10M documents", "recommend"),
    ("spot or on-demand for a 10-day 13B pretraining run on 32 H100s?", "cloud_vs_onprem"),
    ("on-demand versus spot for 5,000 A100 GPU-hours, rough cost?", "sizing"),
    ("what busbw should an 8x A100 node reach on all_reduce_perf?", "sizing"),
    ("nccl-tests 里 algbw 和 busbw 有什么区别", "faq"),
    ("租一张 A100 现在一般多少钱一小时", "cloud_vs_onprem"),
    ("what's the 6ND formula and where does it come from", "faq"),
    ("一台 8 卡 A100 服务器要多少电", "spec"),
    ("按月还是按小时租 H800 和 A800 划算", "cloud_vs_onprem"),
]


@pytest.mark.parametrize(("text", "intent"), CASES)
def test_routing(understander, text, intent):
    assert understander.understand(text).intent == intent
