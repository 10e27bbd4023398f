"""The answer contract, re-exported: it lives in `service.contract` so channels can use it without the pipeline."""

from service.contract import (  # noqa: F401 — re-exports for existing imports
    Answer,
    Channel,
    ChatRequest,
    Citation,
    Clarification,
    Feedback,
    Grounding,
    Intent,
    Language,
    ToolCall,
    UnderstandingTrace,
)

__all__ = ["Answer", "Channel", "ChatRequest", "Citation", "Clarification", "Feedback", "Grounding", "Intent", "Language", "ToolCall", "UnderstandingTrace"]
