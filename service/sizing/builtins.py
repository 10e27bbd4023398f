"""Registers the built-in calculators."""

from service.sizing import (
                    commitment,
                    compute,
                    compute_optimal,
                    cost,
                    inference,
                    kv_capacity,
                    interconnect,
                    memory,
                    recommend,
                    step_time,
                    storage,
)
from service.sizing.registry import SizingTool, register

register(SizingTool("training-memory", memory.TrainingMemoryRequest, memory.TrainingMemoryResult, memory.estimate_training_memory,
                    "Training memory per GPU (full, LoRA, QLoRA; ZeRO/FSDP, TP/PP; activations).",
                    "训练时每张 GPU 的显存（全参、LoRA、QLoRA；ZeRO/FSDP、张量/流水线并行；激活值）。"))
register(SizingTool("inference", inference.InferenceRequest, inference.InferenceResult, inference.estimate_inference,
                    "Inference memory (weights + KV cache) and decode/prefill speed.",
                    "推理显存（权重 + KV 缓存）与解码/预填充速度。"))
register(SizingTool("kv-capacity", kv_capacity.KvCapacityRequest, kv_capacity.KvCapacityResult, kv_capacity.kv_capacity,
                    "KV-cache capacity as vLLM counts it: tokens and blocks from the engine's arguments.",
                    "按 vLLM 的算法计算 KV 缓存容量：根据引擎参数得出可容纳的 token 数与块数。"))
register(SizingTool("training-compute", compute.ComputeRequest, compute.ComputeResult, compute.training_compute,
                    "Training FLOPs: 6·N·D plus attention.", "训练计算量：6·N·D 加注意力项。"))
register(SizingTool("training-time", compute.TrainingTimeRequest, compute.TrainingTimeResult, compute.training_time,
                    "Wall-clock time and GPU-hours on N GPUs with an MFU band.", "在 N 张 GPU 上的训练时长与 GPU 小时数（含 MFU 区间）。"))
register(SizingTool("step-time", step_time.StepTimeRequest, step_time.StepTimeResult, step_time.step_time,
                    "Step time for a stated layout (TP, PP, DP, CP, micro-batch, recomputation, ZeRO, links): every term shown.",
                    "给定并行布局（TP、PP、DP、CP、micro-batch、重计算、ZeRO、互联）下的单步训练时间，逐项列出。"))
register(SizingTool("gpus-for-deadline", compute.DeadlineRequest, compute.DeadlineResult, compute.gpus_for_deadline,
                    "GPUs needed to finish by a deadline.", "在截止时间前完成所需的 GPU 数量。"))
register(SizingTool("tokens-in-budget", compute.TokenBudgetRequest, compute.TokenBudgetResult, compute.tokens_in_budget,
                    "Tokens that fit in a time budget.", "给定时间内能训练的 token 数。"))
register(SizingTool("compute-optimal", compute_optimal.ComputeOptimalRequest, compute_optimal.ComputeOptimalResult,
                    compute_optimal.compute_optimal,
                    "Compute-optimal (Chinchilla) model size and tokens for GPUs × time.",
                    "给定 GPU 数量与时间，按计算最优（Chinchilla）应训练的模型规模与 token 数。"))
register(SizingTool("allreduce", interconnect.AllReduceRequest, interconnect.AllReduceResult, interconnect.allreduce_time,
                    "Ring all-reduce time (α-β) over NVLink, PCIe, InfiniBand, RoCE.", "ring all-reduce 耗时（α-β 模型），覆盖 NVLink、PCIe、InfiniBand、RoCE。"))
register(SizingTool("nccl-expected", interconnect.NcclCheckRequest, interconnect.NcclCheckResult, interconnect.nccl_expected,
                    "Expected nccl-tests bus bandwidth, and a verdict on a measured one.", "nccl-tests 总线带宽的预期值，以及对实测值的判断。"))
register(SizingTool("data-loader", storage.DataLoaderRequest, storage.DataLoaderResult, storage.data_loader,
                    "Read throughput and file rate needed to keep GPUs fed.", "保证 GPU 不空等所需的读取吞吐与文件打开速率。"))
register(SizingTool("checkpoint", storage.CheckpointRequest, storage.CheckpointResult, storage.checkpoint,
                    "Checkpoint size, write time and optimal interval.", "检查点大小、写入时间与最优保存间隔。"))
register(SizingTool("cost", cost.CostRequest, cost.CostResult, cost.estimate_cost,
                    "GPU-hours × price across catalog instances; the cheapest fitting one.", "按目录实例计算 GPU 小时 × 单价，并找出最便宜的可用实例。"))
register(SizingTool("break-even", cost.BreakEvenRequest, cost.BreakEvenResult, cost.break_even,
                    "Cloud vs on-prem break-even (capex, power, PUE, operations, utilization).", "云上与自建的盈亏平衡（资本支出、电力、PUE、运维、利用率）。"))
register(SizingTool("reserved-vs-on-demand", commitment.ReservedRequest, commitment.ReservedResult, commitment.reserved_vs_on_demand,
                    "Reserved / committed-use vs on-demand at a utilization: break-even utilization, yearly cost each way.",
                    "预留（包年包月）与按需在给定利用率下的对比：盈亏平衡利用率、两种方式的年费用。"))
register(SizingTool("recommend", recommend.Workload, recommend.Recommendation, recommend.recommend,
                    "Tier recommendation: configuration, time, cost, memory fit, warnings, alternatives.",
                    "分档推荐：配置、时间、费用、显存是否够用、瓶颈提示与备选方案。"))
