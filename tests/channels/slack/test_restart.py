"""Across a restart: a retry of an answered event is still a duplicate, and the thread is still the same conversation."""

from __future__ import annotations

import shutil
import time

import pytest

from service.channels.slack.fake import BOT_USER_ID
from tests.channels.slack.conftest import TEAM, SlackServer, message_event, wait_calls

pytestmark = pytest.mark.slow  # a real uvicorn server and the real index

RECOMMEND_ZH = "Qwen-14B 全参微调，50万条样本，24小时内完成，需要什么配置？"


def test_dedupe_and_thread_conversations_survive_a_restart(tmp_path, indexed_data_dir, knowledge_copy, fake_slack):
    data_dir = tmp_path / "data"
    shutil.copytree(indexed_data_dir, data_dir)
    ts = f"{int(time.time())}.100001"
    question = message_event(f"<@{BOT_USER_ID}> {RECOMMEND_ZH}", ts=ts)
    with SlackServer(data_dir, fake_slack, knowledge_copy) as first:
        first.event(question, event_id="EvBeforeRestart")
        wait_calls(fake_slack, "reactions.remove")
    assert len(fake_slack.calls_of("chat.postMessage")) == 1
    fake_slack.clear()

    with SlackServer(data_dir, fake_slack, knowledge_copy) as second:
        assert second.event(question, event_id="EvBeforeRestart", retry_num=1).status_code == 200
        follow_up = message_event(f"<@{BOT_USER_ID}> 如果时间放宽到48小时呢？", ts=f"{int(time.time())}.100002", thread_ts=ts)
        second.event(follow_up)
        [reply] = wait_calls(fake_slack, "chat.postMessage")
        assert reply.args["thread_ts"] == ts
        assert "Qwen-14B" in str(reply.blocks)  # the workload came from before the restart
        conversation = second.runtime.advisor.conversation(conversation_key=f"slack:{TEAM}:C0GENERAL:{ts}", owner=f"slack:{TEAM}")
        assert conversation is not None and len(conversation.messages) == 4
        assert conversation.messages[-1].answer["slots"]["model"] == "qwen-14b"
    assert len(fake_slack.calls_of("chat.postMessage")) == 1  # the retry was never answered
