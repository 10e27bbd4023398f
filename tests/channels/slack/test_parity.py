"""The same question through REST, SSE and Slack gets the same figures and the same sources.

Slack folds the work and reformats markup, so the check is one-directional where it must be:
every number Slack shows is in the REST answer, the lead's numbers are all in Slack, and the
cited URLs are the same set.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from service.channels.slack.fake import BOT_USER_ID
from tests.channels.slack.conftest import message_event, wait_calls

pytestmark = pytest.mark.slow  # a real uvicorn server and the real index

GOLDEN = [
    "训练到一半断电了怎么办？",
    "What should we do when a training run stops halfway because of a power outage?",
    "How long does it take to train llama-3-70b on 15T tokens with 512 H100 SXM GPUs?",
    "用 512 张 H100 训练 Llama-3-70B，15T token 需要多久？",
    "We want to fully fine-tune Qwen-14B on 500k samples within 24 hours. What do we need?",
    "Qwen-14B 全参微调，50万条样本，24小时内完成，需要什么配置？",
]
URL = re.compile(r"https?://[^\s|>)\]]+")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")


def numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in NUMBER.findall(URL.sub(" ", text))}


def slack_text(blocks: list[dict]) -> str:
    parts = []
    for block in blocks:
        if block["type"] == "actions":
            continue  # button values are message ids, not figures
        parts.append((block.get("text") or {}).get("text", ""))
        parts += [f["text"] for f in block.get("fields", [])]
        parts += [e.get("text", "") for e in block.get("elements", []) if isinstance(e.get("text"), str)]
    return "\n".join(parts)


def slack_urls(blocks: list[dict]) -> set[str]:
    return {m.group(1) for m in re.finditer(r"<(https?://[^|>]+)\|", json.dumps(blocks, ensure_ascii=False))}


def rest_answer(slack, question: str) -> dict:
    response = slack.http.post("/v1/chat", json={"message": question})
    assert response.status_code == 200
    return response.json()


def sse_answer(slack, question: str) -> dict:
    """The `done` event's answer of /v1/chat/stream."""
    with slack.http.stream("POST", "/v1/chat/stream", json={"message": question}) as response:
        assert response.status_code == 200
        event, done = None, None
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:") and event == "done":
                done = json.loads(line.removeprefix("data:").strip())
        assert done is not None, "the stream ended without a done event"
        return done.get("answer", done)


@pytest.mark.parametrize("question", GOLDEN)
def test_rest_sse_and_slack_agree_on_numbers_and_sources(slack, fake_slack, question):
    rest = rest_answer(slack, question)
    ts = f"{int(time.time())}.{GOLDEN.index(question) + 500:06d}"
    slack.event(message_event(f"<@{BOT_USER_ID}> {question}", ts=ts))
    [reply] = wait_calls(fake_slack, "chat.postMessage")
    shown = slack_text(reply.blocks)

    assert slack_urls(reply.blocks) == {c["url"] for c in rest["citations"]}
    assert numbers(shown) <= numbers(rest["answer"]), "Slack shows a figure the REST answer does not"
    lead = next(b["text"] for b in rest["blocks"] if b["type"] == "lead")
    assert numbers(lead) <= numbers(shown), "a figure of the direct answer is missing in Slack"
    assert bool(re.search(r"[\u4e00-\u9fff]", reply.args["text"])) == (rest["language"] == "zh")

    streamed = sse_answer(slack, question)
    assert {c["url"] for c in streamed["citations"]} == {c["url"] for c in rest["citations"]}
    assert numbers(streamed["answer"]) == numbers(rest["answer"])
