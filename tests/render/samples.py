"""One block of every type, with figures, links and citation markers to look for in each rendering."""

from __future__ import annotations

from service.contract import (
    BLOCK_TYPES,
    Band,
    BulletsBlock,
    ChecklistBlock,
    ChecklistStep,
    LeadBlock,
    Link,
    NoticeBlock,
    ParagraphBlock,
    Recommendation,
    RecommendationBlock,
    RecommendedOption,
    SourceItem,
    SourcesBlock,
    TableBlock,
    TableCell,
    TableColumn,
    WorkBlock,
    WorkFormula,
    WorkInput,
)

RECOMMENDATION = Recommendation(
    tier="mid", tier_name="mid-scale training (one node)", task="fine-tune", method="full", model="qwen-14b", model_name="Qwen-14B",
    gpu="h100-sxm", gpu_name="NVIDIA H100 SXM5 80GB", gpus=8, nodes=1, gpus_per_node=8, instance="p5.48xlarge", instance_provider="aws",
    per_gpu_memory_gib=61.3, gpu_memory_gib=80.0, precision="bf16", sharding="zero3", hours=Band(low=13.1, typical=17.4, high=26.2),
    cost=Band(low=1234.0, typical=1645.0, high=2468.0), currency="USD", deployment="cloud", deployment_reason="renting avoids capex",
    cpu="192 vCPU", ram_gb_per_node=2048.0, storage="NVMe RAID0", network="EFA 3200 Gb/s", recompute="selective",
    strategy="bf16, ZeRO-3 / FSDP, activation recomputation: selective", interconnect="NVLink 4, 900 GB/s",
    alternatives=[RecommendedOption(label="cheapest", label_text="cheapest", tier="mid", gpu="a100-80gb-sxm", gpu_name="NVIDIA A100 80GB SXM4",
                                    gpus=8, nodes=1, gpus_per_node=8, hours=Band(low=30.5, typical=41.2, high=61.0),
                                    cost=Band(low=900.0, typical=1210.0, high=1800.0))],
)

BLOCKS = {
    "lead": LeadBlock(text="**About 17.4 hours** on 8 × H100 [1], see [the model card](https://example.org/card)."),
    "paragraph": ParagraphBlock(title="Why", text="MFU of 38% is typical for `bf16` [2]."),
    "bullets": BulletsBlock(title="Points", items=["Checkpoint every 42 minutes [1]", "Keep 3 copies off the cluster"]),
    "table": TableBlock(title="Specs", columns=[TableColumn(key="gpu", label="GPU"), TableColumn(key="mem", label="memory", unit="GB", align="right")],
                        rows=[[TableCell(text="H100"), TableCell(text="80 GB", value=80.0)], [TableCell(text="H200"), TableCell(text="141 GB", value=141.0)]]),
    "checklist": ChecklistBlock(title="Before you start", steps=[
        ChecklistStep(text="**GPU-to-GPU bandwidth** should reach 45 GB/s", commands=["nvidia-smi topo -m", "./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8"])]),
    "recommendation": RecommendationBlock(recommendation=RECOMMENDATION),
    "work": WorkBlock(title="How this was computed", tool="training-time",
                      inputs=[WorkInput(name="tokens", value="2,000,000,000", unit="tokens", provenance="user", provenance_text="you"),
                              WorkInput(name="mfu", value="0.38", provenance="default", provenance_text="default", source="typical fine-tune MFU")],
                      formulas=[WorkFormula(name="flops.model", formula="6·N·D", value="1.704e+20", unit="FLOP")], more_formulas=3,
                      assumptions=["goodput 0.95 below 8,192 GPUs"], sources=[Link(title="PaLM appendix B", url="https://arxiv.org/abs/2204.02311")]),
    "notice": NoticeBlock(kind="warning", text="Only 61.3 GiB of 80 GiB is free"),
    "sources": SourcesBlock(title="Sources", items=[
        SourceItem(n=1, citation_id="c1", title="Llama 3 card", source="Meta", url="https://github.com/meta-llama/llama3"),
        SourceItem(n=2, citation_id="c2", title="MFU", source="PaLM", url="https://arxiv.org/abs/2204.02311")]),
}
assert tuple(BLOCKS) == BLOCK_TYPES

# What each block's rendering must show in every format (figures as formatted, links' addresses, markers).
EXPECTED = {
    "lead": ["17.4 hours", "[1]", "https://example.org/card"],
    "paragraph": ["Why", "38%", "bf16", "[2]"],
    "bullets": ["Points", "42 minutes", "[1]", "3 copies"],
    "table": ["Specs", "memory", "80 GB", "141 GB", "H200"],
    "checklist": ["Before you start", "45 GB/s", "nvidia-smi topo -m", "all_reduce_perf -b 8 -e 8G -f 2 -g 8"],
    "recommendation": ["8 × NVIDIA H100 SXM5 80GB", "1 node", "2,048 GB RAM", "61.3 GiB / 80 GiB", "17.4 hours", "$1,645", "$1,234", "$2,468",
                       "NVLink 4, 900 GB/s", "ZeRO-3", "NVIDIA A100 80GB SXM4", "41.2 hours", "$1,210", "renting avoids capex", "cheapest"],
    "work": ["How this was computed", "2,000,000,000 tokens", "typical fine-tune MFU", "6·N·D", "1.704e+20 FLOP", "3 more steps", "8,192 GPUs",
             "https://arxiv.org/abs/2204.02311"],
    "notice": ["61.3 GiB", "80 GiB"],
    "sources": ["[1]", "[2]", "Llama 3 card", "https://github.com/meta-llama/llama3", "https://arxiv.org/abs/2204.02311"],
}
