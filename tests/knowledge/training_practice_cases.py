"""Training and serving practice topics (torch.compile, RL post-training, FlashAttention, FSDP MFU, team GPU sharing,
latency targets): the facts an expert states, per section in both languages (SECTION_FACTS, run in test_key_facts.py),
and questions whose FAQ answers built from the real index must state them (ANSWER_CASES, run in
test_answers_state_key_facts.py).

The questions are our own colloquial wording, not section questions and not any evaluation set's.
"""

# (document id, {language: section heading}, {language: [fact patterns]})
SECTION_FACTS = [
    (
        "torch-compile",
        {
            "en": "What torch.compile does: TorchDynamo graph capture and TorchInductor kernels",
            "zh": "torch.compile 做了什么：TorchDynamo 抓图与 TorchInductor 生成算子",
        },
        {
            "en": [r"TorchDynamo", r"TorchInductor", r"fusion", r"43% faster", r"163"],
            "zh": [r"TorchDynamo", r"TorchInductor", r"算子融合", r"快 43%", r"163"],
        },
    ),
    (
        "torch-compile",
        {
            "en": "Compile time, graph breaks and recompiles with dynamic shapes",
            "zh": "编译耗时、图中断与动态 shape 导致的重新编译",
        },
        {
            "en": [r"graph break", r"recompile", r"TORCH_LOGS", r"mark_dynamic", r"regional compilation"],
            "zh": [r"图中断", r"重新编译", r"TORCH_LOGS", r"mark_dynamic", r"区域编译"],
        },
    ),
    (
        "torch-compile",
        {
            "en": "torch.compile modes: default, reduce-overhead and max-autotune",
            "zh": "torch.compile 的模式：default、reduce-overhead 与 max-autotune",
        },
        {"en": [r"CUDA graphs", r"max-autotune"], "zh": [r"CUDA Graph", r"max-autotune"]},
    ),
    (
        "rl-post-training",
        {
            "en": "Where the time goes in RL post-training: rollout generation",
            "zh": "强化学习后训练的时间花在哪：rollout 生成",
        },
        {"en": [r"Rollout usually dominates", r"vLLM", r"SGLang"], "zh": [r"rollout 占了一步的大部分时间", r"vLLM", r"SGLang"]},
    ),
    (
        "rl-post-training",
        {"en": "Which models sit in GPU memory: PPO versus GRPO", "zh": "显存里要放哪些模型：PPO 与 GRPO 的区别"},
        {
            "en": [r"GRPO needs no value model", r"reference", r"reward model", r"DeepSeekMath"],
            "zh": [r"GRPO 不需要价值模型", r"参考模型", r"奖励模型", r"DeepSeekMath"],
        },
    ),
    (
        "rl-post-training",
        {
            "en": "Colocated or separate rollout and training GPUs, and the frameworks",
            "zh": "rollout 与训练同卡还是分卡，以及常用框架",
        },
        {"en": [r"verl", r"OpenRLHF", r"TRL", r"colocated"], "zh": [r"verl", r"OpenRLHF", r"TRL", r"同卡"]},
    ),
    (
        "flash-attention",
        {
            "en": "Why FlashAttention is faster: fewer memory reads and writes, not fewer FLOPs",
            "zh": "FlashAttention 为什么更快：减少的是显存读写，不是计算量",
        },
        {
            "en": [r"does not reduce the arithmetic", r"recomputes", r"HBM", r"75\.2 GFLOPs", r"4\.4 GB"],
            "zh": [r"并没有减少注意力的计算量", r"重新计算", r"HBM", r"75\.2 GFLOPs", r"4\.4 GB"],
        },
    ),
    (
        "flash-attention",
        {
            "en": "FlashAttention-2 and FlashAttention-3: reported speed-ups on A100 and H100",
            "zh": "FlashAttention-2 与 FlashAttention-3：A100 和 H100 上报告的加速",
        },
        {
            "en": [r"225 TFLOPs/s", r"1\.5–2\.0×", r"740 TFLOPs/s", r"1\.2 PFLOPs/s"],
            "zh": [r"225 TFLOPs/s", r"1\.5–2\.0 倍", r"740 TFLOPs/s", r"1\.2 PFLOPs/s"],
        },
    ),
    (
        "fsdp-performance",
        {
            "en": "Fixes for low FSDP throughput: batch, wrapping, prefetch, offload and HSDP",
            "zh": "FSDP 吞吐低的修复：batch、包装粒度、预取、卸载与 HSDP",
        },
        {
            "en": [r"backward_prefetch", r"limit_all_gathers", r"HYBRID_SHARD", r"HSDP"],
            "zh": [r"backward_prefetch", r"limit_all_gathers", r"HYBRID_SHARD", r"HSDP"],
        },
    ),
    (
        "team-gpu-sharing",
        {
            "en": "Why a shared GPU server needs a scheduler, not a spreadsheet",
            "zh": "共用 GPU 服务器为什么需要调度器，而不是一张表格",
        },
        {"en": [r"job scheduler", r"idle and contended", r"fair share"], "zh": [r"作业调度器", r"既闲置又被争抢", r"公平共享"]},
    ),
    (
        "inference-latency-tuning",
        {
            "en": "From a latency target to tokens per second per user and per GPU",
            "zh": "从延迟目标换算每用户和每卡的每秒 token 数",
        },
        {"en": [r"1/R", r"goodput", r"vllm bench serve"], "zh": [r"1/R", r"goodput", r"vllm bench serve"]},
    ),
]

# (question, facts the answer must state: each a regular expression that must match the lead or a point)
ANSWER_CASES = [
    ("Is it worth putting torch.compile on my training script, what speedup is typical?", [r"43%"]),
    ("torch.compile 之后前面几个 step 巨慢，还老是 recompile，咋回事", [r"重新编译|编译"]),
    ("Is FlashAttention fast because it skips some of the attention math?", [r"does not reduce|HBM"]),
    ("FlashAttention 是不是减少了计算量才变快的", [r"显存读写|HBM"]),
    ("GRPO 和 PPO 在显存上差在哪？", [r"价值模型"]),
    ("what's the main time sink in a PPO RLHF loop and which framework should we use", [r"(?i)rollout|generation"]),
    ("We are 15 people about to share one 8-GPU box, how do we avoid fights over cards?", [r"scheduler"]),
    ("实验室二十来个人共用几台 GPU 服务器，老有人占着卡不用，怎么管", [r"调度器"]),
]
