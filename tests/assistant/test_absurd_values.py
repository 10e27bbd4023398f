"""Chat accepts no value that REST refuses (issue 11): "-8 H100" is not silently 8, a deadline of 1e-300 hours
does not give a 300-digit GPU count; the answer says which value is out of range, in the user's language."""

from __future__ import annotations

import re
import shutil

import pytest

from service.assistant.slots import extract_slots
from service.catalog import default_catalog
from service.config import Settings
from service.contract.answer import ChatRequest
from service.runtime import Runtime


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("Qwen-14B full fine-tune on 2B tokens with -8 H100", "gpus", -8),
    ("用-8张卡训练Qwen-14B", "gpus", -8),
    ("在 -3 天内完成 Qwen-14B 微调", "deadline_hours", -72.0),
    ("within 1e-300 hours on 8 H100", "deadline_hours", 1e-300),
    # not negatives: names, ranges and plain counts keep their meaning
    ("We have 8 H100 and an A100-8 box", "gpus", 8),
    ("within 1-2 days on 8 H100", "gpus", 8),
    ("64台8卡H100服务器10天", "gpus", 512),
])
def test_slots_keep_the_sign_and_size_the_user_wrote(text, slot, value) -> None:
    assert extract_slots(text, default_catalog()).stated()[slot] == value


@pytest.fixture(scope="module")
def runtime(tmp_path_factory, indexed_data_dir):
    data_dir = tmp_path_factory.mktemp("absurd") / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    runtime = Runtime(Settings(data_dir=data_dir, environment="test", llm_provider="none"))
    runtime.open_index()
    yield runtime
    runtime.close()


@pytest.mark.parametrize(("question", "field", "fragment"), [
    ("Qwen-14B full fine-tune on 2B tokens, we have -8 H100. How long will it take?", "gpus", "at least 1"),
    ("We want to fully fine-tune Qwen-14B on 2B tokens within 1e-300 hours. How many H100 do we need?", "deadline_hours", "at least 0.01"),
    ("Train llama-3-70b on 15T tokens within 1e-300 hours on H100, how many GPUs?", "deadline_hours", "at least 0.01"),
    ("用-8张H100全参微调Qwen-14B，20亿token要多久？", "gpus", "不小于 1"),
])
def test_chat_refuses_absurd_values_in_a_clear_sentence(runtime, question, field, fragment) -> None:
    answer = runtime.advisor.answer(ChatRequest(message=question))
    assert f"{field}: " in answer.answer and fragment in answer.answer, answer.answer
    assert not re.search(r"\d{16,}", answer.answer), "no absurd figure reaches the answer"
    refused = [c for c in answer.tool_calls if "error" in c.output]
    assert refused and field in refused[0].output["error"]
