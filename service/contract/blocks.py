"""Typed answer blocks: the structure of an answer, before any channel renders it.

Every block carries `type` (its discriminator) and `version` (bumped when its fields change
incompatibly). Text fields hold *inline text*: plain prose that may contain only
`**bold**`, `` `code` ``, `[n]` citation markers (1-based into `Answer.citations`) and
`[label](https://url)` links. Renderers translate exactly that subset; nothing else in
a block is markup, and no channel parses the Markdown rendering.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

BLOCK_VERSION = 1


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = BLOCK_VERSION


class LeadBlock(_Block):
    """The direct answer to the question, first in every answer."""

    type: Literal["lead"] = "lead"
    text: str


class ParagraphBlock(_Block):
    type: Literal["paragraph"] = "paragraph"
    title: str | None = None
    text: str


class BulletsBlock(_Block):
    type: Literal["bullets"] = "bullets"
    title: str | None = None
    ordered: bool = False
    items: list[str]


class TableColumn(BaseModel):
    key: str
    label: str
    unit: str | None = None
    align: Literal["left", "right"] = "left"


class TableCell(BaseModel):
    text: str = Field(description="the cell as shown, formatted in the answer's language")
    value: float | None = Field(default=None, description="the number behind the text, in the column's unit")


class TableBlock(_Block):
    type: Literal["table"] = "table"
    title: str | None = None
    columns: list[TableColumn]
    rows: list[list[TableCell]]


class ChecklistStep(BaseModel):
    text: str
    detail: str | None = None
    commands: list[str] = Field(default_factory=list, description="shell commands, one per entry, shown copyable")


class ChecklistBlock(_Block):
    type: Literal["checklist"] = "checklist"
    title: str | None = None
    steps: list[ChecklistStep]


class Band(BaseModel):
    """A value with its low–high range (MFU band, price band)."""

    low: float
    typical: float
    high: float


class RecommendedOption(BaseModel):
    label: Literal["recommended", "fastest", "cheapest", "fewest-gpus", "other-gpu"]
    label_text: str = Field(description="the label in the answer's language")
    tier: Literal["entry", "mid", "production"]
    gpu: str = Field(description="catalog id")
    gpu_name: str
    gpus: int
    nodes: int
    gpus_per_node: int
    instance: str | None = None
    hours: Band | None = None
    cost: Band | None = None
    cost_per_hour: float | None = None
    meets_deadline: bool | None = None
    within_budget: bool | None = None


class Recommendation(BaseModel):
    """A tier recommendation as typed data (the recommend tool's output, reduced to what a reader needs)."""

    tier: Literal["entry", "mid", "production"]
    tier_name: str
    task: Literal["pretrain", "fine-tune", "inference"]
    method: str
    model: str
    model_name: str
    gpu: str
    gpu_name: str
    gpus: int
    nodes: int
    gpus_per_node: int
    instance: str | None = None
    per_gpu_memory_gib: float
    gpu_memory_gib: float
    precision: str
    sharding: str
    hours: Band | None = None
    cost: Band | None = None
    currency: Literal["USD", "CNY"]
    deployment: Literal["cloud", "on-prem", "hybrid"]
    deployment_reason: str
    cpu: str
    ram_gb_per_node: float
    storage: str
    network: str
    alternatives: list[RecommendedOption] = Field(default_factory=list)
    # Added after version 1 shipped; optional so older payloads still validate.
    instance_provider: str | None = Field(default=None, description="cloud provider of `instance`")
    interconnect: str | None = Field(default=None, description="GPU-to-GPU link inside a node (NVLink, PCIe)")
    recompute: str | None = Field(default=None, description="activation recomputation: none / selective / full")
    strategy: str | None = Field(default=None, description="precision, sharding and recomputation, in the answer's language")


class RecommendationBlock(_Block):
    type: Literal["recommendation"] = "recommendation"
    recommendation: Recommendation


class WorkInput(BaseModel):
    name: str
    value: str
    unit: str | None = None
    provenance: Literal["user", "catalog", "default", "derived"]
    provenance_text: str = Field(description="the provenance in the answer's language")
    source: str | None = None


class WorkFormula(BaseModel):
    name: str
    formula: str
    value: str
    unit: str | None = None


class Link(BaseModel):
    title: str
    url: str


class WorkBlock(_Block):
    """How a tool computed its result: inputs with provenance, formulas, assumptions. Folded by default."""

    type: Literal["work"] = "work"
    title: str
    tool: str
    inputs: list[WorkInput] = Field(default_factory=list)
    formulas: list[WorkFormula] = Field(default_factory=list)
    more_formulas: int = Field(default=0, description="steps left out here; the tool output has them all")
    assumptions: list[str] = Field(default_factory=list)
    sources: list[Link] = Field(default_factory=list)


class NoticeBlock(_Block):
    type: Literal["notice"] = "notice"
    kind: Literal["assumption", "info", "warning", "error"]
    text: str


class SourceItem(BaseModel):
    n: int = Field(description="the [n] marker used in the text")
    citation_id: str
    title: str
    source: str
    url: str


class SourcesBlock(_Block):
    type: Literal["sources"] = "sources"
    title: str
    items: list[SourceItem]


Block = Annotated[
    LeadBlock | ParagraphBlock | BulletsBlock | TableBlock | ChecklistBlock | RecommendationBlock | WorkBlock | NoticeBlock | SourcesBlock,
    Field(discriminator="type"),
]
BLOCK_TYPES = ("lead", "paragraph", "bullets", "table", "checklist", "recommendation", "work", "notice", "sources")
