"""Questions on deployment topics (RoCE or InfiniBand, LoRA or QLoRA, what NCCL is, FP8 stability, checkpoint save time,
server power, spot for long runs, monthly GPU rental in China, Slurm health checks, H100 SXM or PCIe, embedding jobs)
with the facts their answers must state, and the single sentences that state them in each language.

Questions are our own wording, not the section questions of the documents; DEPLOYMENT_CASES run in
test_answers_state_key_facts.py, DEPLOYMENT_KEY_SENTENCES in test_operations_topics.py.
"""

DEPLOYMENT_CASES = [
    ("RoCE vs InfiniBand for our new 256 GPU cluster, which one and why?", [r"operations|tuning", r"InfiniBand"]),
    ("准备上一百多张卡训练，交换网络选IB还是RoCE，各有什么坑", [r"运维", r"PFC"]),
    ("LoRA vs QLoRA: is QLoRA worth the speed hit?", [r"39%", r"matched 16-bit LoRA"]),
    ("QLoRA跟LoRA比，到底省了多少显存，效果掉不掉", [r"3\.5–4 GB|四分之一", r"持平"]),
    ("what does NCCL do?", [r"NVIDIA Collective Communications Library"]),
    ("NCCL是啥", [r"NVIDIA 集合通信库"]),
    ("Why is it always an NCCL error when my multi-node job dies?", [r"all ranks wait"]),
    ("FP8 on H100: how does delayed scaling work and which layers stay in bf16?", [r"amax", r"embedding"]),
    ("FP8训练到底稳不稳定，哪些层不能用FP8", [r"E4M3|缩放", r"embedding|输出头"]),
    ("How much power and cooling does one 8-GPU H100 server need?", [r"10\.2 kW"]),
    ("一台8卡H100服务器要多大功率，散热怎么准备", [r"10\.2 kW"]),
    ("Is it smart to run a multi-week pretraining job on preemptible VMs?", [r"reserved or on-demand", r"stops every rank"]),
    ("预训练要跑三周、64张卡，用竞价实例省钱靠谱吗", [r"预留或按需", r"所有 rank 都停"]),
    ("Renting A800 nodes in China for two months: monthly plan or hourly billing?", [r"subscription|monthly", r"RDMA"]),
    ("在国内云上租H800跑两个月训练，包年包月和按量付费怎么选", [r"包年包月", r"RDMA"]),
    ("How do I wire NHC and DCGM into Slurm so bad GPU nodes get drained?", [r"NHC", r"dcgmi diag"]),
    ("Slurm 作业开始前怎么自动检查 GPU 节点，坏了自动下线", [r"prolog", r"drain"]),
    ("How many documents per second can one L4 embed with a BERT-size encoder?", [r"2 × N"]),
    ("一张L4一秒能做多少条文本的向量化", [r"2 × N"]),
    ("How long does writing a full 70B checkpoint with Adam state take?", [r"980 GB"]),
    ("70B模型连优化器一起存checkpoint要写多久", [r"980 GB"]),
    ("What separates the H100 PCIe card from the SXM module?", [r"NVSwitch", r"350 W"]),
    ("H100 PCIe卡和SXM模组差在哪", [r"NVSwitch", r"350 W"]),
]

# (document id, {language: section heading}, {language: [patterns that must all match ONE sentence of the section]})
DEPLOYMENT_KEY_SENTENCES = [
    (
        "interconnect-topologies",
        {"en": "RoCE or InfiniBand for a new training cluster: tuning, operations and cost", "zh": "新建训练集群选 RoCE 还是 InfiniBand：调优、运维与成本"},
        {"en": [r"RDMA over Ethernet", r"PFC", r"DCQCN"], "zh": [r"以太网上的 RDMA", r"PFC", r"DCQCN"]},
    ),
    (
        "interconnect-topologies",
        {"en": "RoCE or InfiniBand for a new training cluster: tuning, operations and cost", "zh": "新建训练集群选 RoCE 还是 InfiniBand：调优、运维与成本"},
        {"en": [r"lossless by design", r"subnet manager"], "zh": [r"天生无损", r"子网管理器"]},
    ),
    (
        "interconnect-topologies",
        {"en": "H100 SXM versus H100 PCIe: NVLink, power and memory", "zh": "H100 SXM 与 H100 PCIe 的区别：NVLink、功耗与显存"},
        {"en": [r"NVSwitch", r"700 W", r"HBM3", r"3\.35 TB/s"], "zh": [r"NVSwitch", r"700 W", r"HBM3", r"3\.35 TB/s"]},
    ),
    (
        "interconnect-topologies",
        {"en": "H100 SXM versus H100 PCIe: NVLink, power and memory", "zh": "H100 SXM 与 H100 PCIe 的区别：NVLink、功耗与显存"},
        {"en": [r"350 W", r"HBM2e", r"2\.0 TB/s", r"600 GB/s"], "zh": [r"350 W", r"HBM2e", r"2\.0 TB/s", r"600 GB/s"]},
    ),
    (
        "lora-qlora",
        {"en": "LoRA versus QLoRA: what differs and how much memory QLoRA saves", "zh": "LoRA 与 QLoRA 的区别，以及 QLoRA 省多少显存"},
        {"en": [r"4-bit NF4", r"double quantization", r"0\.5–0\.56 bytes"], "zh": [r"NF4", r"双重量化", r"0\.5–0\.56 字节"]},
    ),
    (
        "lora-qlora",
        {"en": "LoRA versus QLoRA: what differs and how much memory QLoRA saves", "zh": "LoRA 与 QLoRA 的区别，以及 QLoRA 省多少显存"},
        {"en": [r"7B", r"14 GB", r"3\.5–4 GB"], "zh": [r"7B", r"14 GB", r"3\.5–4 GB"]},
    ),
    (
        "lora-qlora",
        {"en": "QLoRA against LoRA: quality and training speed", "zh": "QLoRA 与 LoRA 对比：效果和训练速度"},
        {"en": [r"matched 16-bit LoRA", r"full fine-tuning", r"MMLU"], "zh": [r"16 位 LoRA", r"全参数微调", r"MMLU", r"持平"]},
    ),
    (
        "lora-qlora",
        {"en": "QLoRA against LoRA: quality and training speed", "zh": "QLoRA 与 LoRA 对比：效果和训练速度"},
        {"en": [r"33%", r"39%"], "zh": [r"33%", r"39%"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "What NCCL is and what it does", "zh": "NCCL 是什么、做什么"},
        {"en": [r"NVIDIA Collective Communications Library", r"between GPUs"], "zh": [r"NVIDIA 集合通信库", r"GPU 之间"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "Why distributed training failures show up as NCCL errors", "zh": "为什么分布式训练出错总显示为 NCCL 报错"},
        {"en": [r"all ranks wait", r"all-reduce"], "zh": [r"所有 rank 互相等待", r"all-reduce"]},
    ),
    (
        "distributed-training-debugging",
        {"en": "Why distributed training failures show up as NCCL errors", "zh": "为什么分布式训练出错总显示为 NCCL 报错"},
        {"en": [r"symptom, not the cause"], "zh": [r"症状而不是病因"]},
    ),
    (
        "mixed-precision-fp8",
        {"en": "Is FP8 training stable? E4M3, E5M2, delayed scaling and what stays in BF16", "zh": "FP8 训练稳不稳：E4M3、E5M2、延迟缩放与哪些层保留 BF16"},
        {"en": [r"E4M3", r"448", r"E5M2", r"57,344", r"gradients"], "zh": [r"E4M3", r"448", r"E5M2", r"57,344", r"梯度"]},
    ),
    (
        "mixed-precision-fp8",
        {"en": "Is FP8 training stable? E4M3, E5M2, delayed scaling and what stays in BF16", "zh": "FP8 训练稳不稳：E4M3、E5M2、延迟缩放与哪些层保留 BF16"},
        {"en": [r"delayed scaling", r"amax"], "zh": [r"延迟缩放", r"amax"]},
    ),
    (
        "mixed-precision-fp8",
        {"en": "Is FP8 training stable? E4M3, E5M2, delayed scaling and what stays in BF16", "zh": "FP8 训练稳不稳：E4M3、E5M2、延迟缩放与哪些层保留 BF16"},
        {"en": [r"SwiGLU", r"late"], "zh": [r"SwiGLU", r"后期"]},
    ),
    (
        "onprem-gpu-tco",
        {"en": "Power and cooling for one 8-GPU server, and what the rack and room need", "zh": "一台 8 卡服务器的供电与散热，以及机柜和机房要准备什么"},
        {"en": [r"DGX H100", r"10\.2 kW", r"6\.5 kW", r"14\.3 kW"], "zh": [r"DGX H100", r"10\.2 kW", r"6\.5 kW", r"14\.3 kW"]},
    ),
    (
        "onprem-gpu-tco",
        {"en": "Power and cooling for one 8-GPU server, and what the rack and room need", "zh": "一台 8 卡服务器的供电与散热，以及机柜和机房要准备什么"},
        {"en": [r"41 kW"], "zh": [r"41 kW"]},
    ),
    (
        "spot-preemptible",
        {"en": "Spot or on-demand for a multi-week, multi-node pre-training run", "zh": "持续数周的多机预训练：用竞价实例还是按需实例"},
        {"en": [r"reserved or on-demand", r"Capacity Blocks", r"spot or preemptible"], "zh": [r"预留或按需", r"Capacity Blocks", r"竞价或抢占式"]},
    ),
    (
        "gpu-cloud-providers-billing",
        {"en": "Monthly or pay-as-you-go rental of H800 and A800 nodes from Chinese GPU clouds", "zh": "国内云租 H800、A800：包年包月还是按量付费"},
        {"en": [r"subscription", r"pay-as-you-go"], "zh": [r"包年包月", r"按量付费"]},
    ),
    (
        "gpu-cloud-providers-billing",
        {"en": "Monthly or pay-as-you-go rental of H800 and A800 nodes from Chinese GPU clouds", "zh": "国内云租 H800、A800：包年包月还是按量付费"},
        {"en": [r"RDMA", r"HCC"], "zh": [r"RDMA", r"HCC"]},
    ),
    (
        "kubernetes-slurm-scheduling",
        {"en": "Setting up Slurm prolog, epilog and NHC health checks", "zh": "配置 Slurm 的 prolog、epilog 和 NHC 健康检查"},
        {"en": [r"non-zero", r"drains the node", r"requeues"], "zh": [r"非零", r"drain", r"重新排队"]},
    ),
    (
        "inference-serving-basics",
        {"en": "GPUs for batch embedding and encoder inference jobs", "zh": "批量 embedding 与编码器推理任务该用什么 GPU"},
        {"en": [r"2 × N", r"Kaplan"], "zh": [r"2 × N", r"Kaplan"]},
    ),
    (
        "inference-serving-basics",
        {"en": "GPUs for batch embedding and encoder inference jobs", "zh": "批量 embedding 与编码器推理任务该用什么 GPU"},
        {"en": [r"L4", r"210", r"13 hours"], "zh": [r"L4", r"210", r"13 小时"]},
    ),
    (
        "checkpoint-resume",
        {"en": "How long a checkpoint save takes, and staging it on local NVMe", "zh": "保存一次 checkpoint 要多久，以及先写本地 NVMe"},
        {"en": [r"14 bytes per parameter"], "zh": [r"每参数 14 字节"]},
    ),
    (
        "checkpoint-resume",
        {"en": "How long a checkpoint save takes, and staging it on local NVMe", "zh": "保存一次 checkpoint 要多久，以及先写本地 NVMe"},
        {"en": [r"980 GB", r"490 seconds", r"49 seconds"], "zh": [r"980 GB", r"490 秒", r"49 秒"]},
    ),
]
