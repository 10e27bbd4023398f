"""Published sources the calculators' formulas and defaults come from."""

from __future__ import annotations

from service.sizing.work import Citation

ZERO = Citation(title="Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", url="https://arxiv.org/abs/1910.02054")
KORTHIKANTI = Citation(title="Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models", url="https://arxiv.org/abs/2205.05198")
TRANSFORMER_MATH = Citation(title="EleutherAI, Transformer Math 101 (2023)", url="https://blog.eleuther.ai/transformer-math/")
MEGATRON_MEMORY = Citation(title="NVIDIA Megatron-LM, theoretical_memory_usage.py", url="https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/training/theoretical_memory_usage.py")
DEEPSPEED_MEMORY = Citation(title="DeepSpeed documentation, Memory Requirements", url="https://deepspeed.readthedocs.io/en/latest/memory.html")
LORA = Citation(title="Hu et al. 2021, LoRA: Low-Rank Adaptation of Large Language Models", url="https://arxiv.org/abs/2106.09685")
QLORA = Citation(title="Dettmers et al. 2023, QLoRA: Efficient Finetuning of Quantized LLMs", url="https://arxiv.org/abs/2305.14314")
ADAM_8BIT = Citation(title="Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization", url="https://arxiv.org/abs/2110.02861")
ADAFACTOR = Citation(title="Shazeer & Stern 2018, Adafactor: Adaptive Learning Rates with Sublinear Memory Cost", url="https://arxiv.org/abs/1804.04235")
FLASH_ATTENTION = Citation(title="Dao et al. 2022, FlashAttention", url="https://arxiv.org/abs/2205.14135")
PAGED_ATTENTION = Citation(title="Kwon et al. 2023, Efficient Memory Management for LLM Serving with PagedAttention", url="https://arxiv.org/abs/2309.06180")
KAPLAN = Citation(title="Kaplan et al. 2020, Scaling Laws for Neural Language Models", url="https://arxiv.org/abs/2001.08361")
PALM = Citation(title="Chowdhery et al. 2022, PaLM (Appendix B: model FLOPs utilization)", url="https://arxiv.org/abs/2204.02311")
NARAYANAN = Citation(title="Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", url="https://arxiv.org/abs/2104.04473")
LLAMA3 = Citation(title="Llama Team 2024, The Llama 3 Herd of Models", url="https://arxiv.org/abs/2407.21783")
MEGASCALE = Citation(title="Jiang et al. 2024, MegaScale: Scaling LLM Training to More Than 10,000 GPUs", url="https://arxiv.org/abs/2402.15627")
NCCL_TESTS = Citation(title="NVIDIA nccl-tests, PERFORMANCE.md (algbw and busbw)", url="https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md")
CALCULON = Citation(title="Isaev et al. 2023, Calculon: a methodology and tool for high-level co-design of systems and LLMs", url="https://github.com/calculon-ai/calculon")
DALY = Citation(title="Daly 2006, A higher order estimate of the optimum checkpoint interval for restart dumps", url="https://doi.org/10.1016/j.future.2004.11.016")
SKYPILOT = Citation(title="SkyPilot optimizer: cost = price per hour x runtime x nodes", url="https://github.com/skypilot-org/skypilot/blob/master/sky/optimizer.py")
DGX_H100 = Citation(title="NVIDIA DGX H100 datasheet (10.2 kW max system power)", url="https://resources.nvidia.com/en-us-dgx-systems/ai-enterprise-dgx")
UPTIME_PUE = Citation(title="Uptime Institute Global Data Center Survey 2023 (average PUE 1.58)", url="https://uptimeinstitute.com/resources/research-and-reports/uptime-institute-global-data-center-survey-results-2023")
ROOFLINE_DECODE = Citation(title="llm-analysis (cli99): memory-bound decode latency model", url="https://github.com/cli99/llm-analysis")
LLM_D_PLANNER = Citation(title="llm-d-planner accuracy campaign: vLLM 0.19 start-up memory on H100 80GB (57 runs)", url="https://github.com/llm-d-incubation/llm-d-planner/tree/main/accuracy")
