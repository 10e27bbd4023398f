"""The tool table: one registry that REST, the CLI and the assistant all read."""

from __future__ import annotations

import re
import typing

import pytest

from service.errors import InputError
from service.sizing import SizingTool, all_tools, get_tool, register
from tests.sizing.payloads import BASE_PAYLOADS

EXPECTED = {"training-memory", "inference", "training-compute", "training-time", "gpus-for-deadline", "tokens-in-budget", "compute-optimal", "allreduce",
            "nccl-expected", "data-loader", "checkpoint", "cost", "break-even", "reserved-vs-on-demand", "recommend", "step-time", "kv-capacity"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_builtin_is_registered_once() -> None:
    names = [t.name for t in all_tools()]
    assert set(names) == EXPECTED and len(names) == len(set(names))
    assert set(BASE_PAYLOADS) == set(names), "every tool needs a base payload in tests/sizing/payloads.py"


def test_lookup_and_duplicates() -> None:
    assert get_tool("training-time").name == "training-time"
    with pytest.raises(KeyError):
        get_tool("training-tme")
    existing = get_tool("cost")
    with pytest.raises(ValueError, match="already registered"):
        register(SizingTool("cost", existing.request, existing.result, existing.run, "dup", "重复"))
    assert get_tool("cost") is existing


@pytest.mark.parametrize("tool", all_tools(), ids=lambda t: t.name)
def test_tool_contract(tool, catalog) -> None:
    # the result declares its own name, requests reject unknown fields and non-finite numbers
    literal = tool.result.model_fields["tool"].annotation
    assert typing.get_args(literal) == (tool.name,)
    assert tool.request.model_config.get("extra") == "forbid" and tool.request.model_config.get("allow_inf_nan") is False
    assert tool.summary_en and CJK.search(tool.summary_zh)
    payload = BASE_PAYLOADS[tool.name]
    from_dict = tool(payload, catalog)
    from_model = tool(tool.request.model_validate(payload), catalog)
    assert from_dict == from_model and from_dict.tool == tool.name
    with pytest.raises(InputError):
        tool({**payload, "no_such_field": 1}, catalog)
