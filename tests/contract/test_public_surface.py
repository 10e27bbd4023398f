"""The contract's public surface is pinned, and importing it loads nothing of the pipeline."""

from __future__ import annotations

import json
import subprocess
import sys
import typing

import service.contract as contract

PUBLIC = [
    "Answer", "BLOCK_TYPES", "Band", "Block", "BlockEvent", "BulletsBlock", "CaseFact", "Channel", "ChatRequest", "ChecklistBlock", "ChecklistStep",
    "Citation", "CitationsEvent", "Clarification", "DeltaEvent", "DoneEvent", "ErrorEvent", "Feedback", "Grounding", "Intent", "Language",
    "LeadBlock", "Link", "MetaEvent", "Neighbour", "NoticeBlock", "ParagraphBlock", "Recommendation", "RecommendationBlock",
    "RecommendedOption", "SourceItem", "SourcesBlock", "StreamEvent", "TableBlock", "TableCell", "TableColumn", "ToolCall",
    "ToolResultEvent", "UnderstandingTrace", "WorkBlock", "WorkFormula", "WorkInput",
]


def test_the_public_names_are_pinned() -> None:
    # Renaming or removing a name breaks the widget and Slack channels: change this list only on purpose.
    assert sorted(contract.__all__) == PUBLIC
    assert all(hasattr(contract, name) for name in PUBLIC)


def test_block_types_lists_every_member_of_the_block_union() -> None:
    union = typing.get_args(typing.get_args(contract.Block)[0])
    assert tuple(m.model_fields["type"].default for m in union) == contract.BLOCK_TYPES


def test_importing_the_contract_loads_no_pipeline_module() -> None:
    code = "import json, sys, service.contract; print(json.dumps(sorted(m for m in sys.modules if m.startswith('service'))))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = json.loads(result.stdout)
    assert "service.contract" in loaded
    assert [m for m in loaded if not m.startswith("service.contract") and m != "service"] == [], loaded


def test_the_old_import_path_is_the_same_contract() -> None:
    from service.assistant import answer

    assert answer.Answer is contract.Answer and answer.ChatRequest is contract.ChatRequest and answer.Feedback is contract.Feedback
