"""The answer contract: what every channel sends in and gets back.

This package imports nothing from the pipeline, so a channel (or a client) can use the
types without loading understanding, retrieval or the sizing tools. The names below are
the public surface; `tests/contract/test_public_surface.py` pins them.
"""

from service.contract.answer import (
    Answer,
    CaseFact,
    Channel,
    ChatRequest,
    Citation,
    Clarification,
    Feedback,
    Grounding,
    Intent,
    Language,
    Neighbour,
    ToolCall,
    UnderstandingTrace,
)
from service.contract.blocks import (
    BLOCK_TYPES,
    Band,
    Block,
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
from service.contract.events import (
    BlockEvent,
    CitationsEvent,
    DeltaEvent,
    DoneEvent,
    ErrorEvent,
    MetaEvent,
    StreamEvent,
    ToolResultEvent,
)

__all__ = [
    "Answer", "BLOCK_TYPES", "Band", "Block", "BlockEvent", "BulletsBlock", "CaseFact", "Channel", "ChatRequest", "ChecklistBlock", "ChecklistStep",
    "Citation", "CitationsEvent", "Clarification", "DeltaEvent", "DoneEvent", "ErrorEvent", "Feedback", "Grounding", "Intent", "Language",
    "LeadBlock", "Link", "MetaEvent", "Neighbour", "NoticeBlock", "ParagraphBlock", "Recommendation", "RecommendationBlock",
    "RecommendedOption", "SourceItem", "SourcesBlock", "StreamEvent", "TableBlock", "TableCell", "TableColumn", "ToolCall",
    "ToolResultEvent", "UnderstandingTrace", "WorkBlock", "WorkFormula", "WorkInput",
]
