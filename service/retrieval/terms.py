"""Chinese technical terms added to jieba's dictionary.

jieba's general-purpose dictionary splits many infrastructure terms into
pieces (优化器 -> 优化 / 器) or glues them to neighbours; listing them keeps
a term whole in both documents and questions, so BM25 matches it as one word.
cut_for_search still emits the shorter dictionary words inside each term.
"""

TERMS_ZH = (
    # memory and precision
    "显存", "显存带宽", "显存容量", "显存占用", "显存溢出", "爆显存", "内存带宽", "优化器", "优化器状态",
    "激活值", "激活重计算", "梯度检查点", "梯度累积", "混合精度", "半精度", "单精度", "量化", "低精度",
    "主权重", "损失缩放",
    # parallelism and scale
    "数据并行", "张量并行", "流水线并行", "序列并行", "上下文并行", "专家并行", "模型并行", "全分片",
    "分片", "多机多卡", "单机多卡", "集合通信", "全归约", "通信开销", "扩展效率",
    # fine-tuning and models
    "全参微调", "全量微调", "参数高效微调", "低秩适配", "微调", "预训练", "大模型", "推理", "吞吐量",
    "批大小", "全局批大小", "上下文长度", "词表",
    # hardware and networking
    "算力", "稠密算力", "稀疏算力", "结构化稀疏", "功耗", "整卡功耗", "液冷", "风冷", "机柜", "机架",
    "互联", "卡间互联", "带宽", "网卡", "交换机", "无损网络", "拥塞控制", "存储带宽", "并行文件系统",
    "对象存储", "本地盘", "固态硬盘",
    # reliability and operations
    "检查点", "断点续训", "断点", "续训", "断电", "故障", "容错", "自动重启", "健康检查", "掉卡",
    "利用率", "多租户", "资源隔离", "配额", "调度器", "作业调度", "竞价实例", "抢占式实例", "按需实例",
    "预留实例", "包年包月", "云上", "本地部署", "私有化部署", "混合云", "盈亏平衡", "总拥有成本",
    "压测", "烧机", "验收", "监控", "告警", "驱动版本", "容器镜像",
)  # fmt: skip
