"""The deterministic sizing core: pure functions over pydantic models, no I/O.

Every result carries `work`: its inputs with provenance, the formulas applied with
intermediate values, assumptions, warnings and sources.
"""

from service.sizing.registry import SizingTool, all_tools, get_tool, register
from service.sizing.work import Citation, InputValue, Note, Step, Work

__all__ = ["Citation", "InputValue", "Note", "SizingTool", "Step", "Work", "all_tools", "get_tool", "register"]
