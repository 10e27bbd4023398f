"""The calculators as LangChain StructuredTools: same schemas, same numbers, errors as text."""

import pytest

from service.assistant.tools import sizing_tools
from service.catalog import default_catalog
from service.sizing import all_tools, get_tool


@pytest.fixture(scope="module")
def tools():
    return {t.name: t for t in sizing_tools(default_catalog())}


def test_one_tool_per_calculator_built_from_its_request_model(tools):
    assert set(tools) == {t.name for t in all_tools()}
    for tool in all_tools():
        assert tools[tool.name].args_schema is tool.request
        assert tools[tool.name].description


def test_a_tool_call_returns_what_the_calculator_returns(tools):
    args = {"model": "llama-3-70b", "tokens": 15e12, "gpu": "h100-sxm", "gpus": 512}
    via_langchain = tools["training-time"].invoke(args)
    direct = get_tool("training-time")(args, default_catalog()).model_dump(mode="json")
    assert via_langchain == direct
    assert 300 <= via_langchain["days"]["typical"] <= 450


def test_bad_arguments_come_back_as_field_named_text(tools):
    assert "gpus" in tools["training-time"].invoke({"model": "llama-3-70b", "tokens": 1e12, "gpu": "h100-sxm", "gpus": -1})
    refusal = tools["training-memory"].invoke({"model": "llama-3-8b", "gpu": "t4", "precision": "bf16"})
    assert "precision" in refusal and "bf16" in refusal
    unknown = tools["training-time"].invoke({"model": "llama-3-70b", "tokens": 1e12, "gpu": "h1000", "gpus": 8})
    assert "gpu" in unknown and "h100" in unknown
