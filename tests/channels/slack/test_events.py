"""The Events API end to end: signed requests to the real app, replies read from the fake Slack Web API."""

from __future__ import annotations

import json
import logging
import re
import time

import pytest

from service.channels.slack.fake import BOT_ID, BOT_USER_ID, Call, block_kit_problem
from service.channels.slack.strings import STRINGS
from tests.channels.slack.conftest import TEAM, message_event

pytestmark = pytest.mark.slow  # a real uvicorn server and the real index

FAQ_EN = "What should we do when a training run stops halfway because of a power outage?"
FAQ_ZH = "训练到一半断电了怎么办？"
RECOMMEND_EN = "We want to fully fine-tune Qwen-14B on 500k samples within 24 hours. What do we need?"
CJK = re.compile(r"[\u4e00-\u9fff]")
_ts = iter(range(1, 10_000))


def new_ts() -> str:
    return f"{int(time.time())}.{next(_ts):06d}"


def replies(fake, thread_ts: str | None = None) -> list[Call]:
    return [c for c in fake.calls_of("chat.postMessage") if thread_ts is None or c.args.get("thread_ts") == thread_ts]


def wait_reply(fake, thread_ts: str, count: int = 1) -> list[Call]:
    """The replies in a thread once `count` have arrived and the 👀 of the last question is gone."""
    fake.wait_for(
        lambda calls: sum(1 for c in calls if c.ok and c.method == "chat.postMessage" and c.args.get("thread_ts") == thread_ts) >= count
        and any(c.method == "reactions.remove" for c in calls)
    )
    return replies(fake, thread_ts)


def shown(call: Call) -> str:
    return json.dumps(call.blocks, ensure_ascii=False) + call.args.get("text", "")


def test_url_verification_echoes_the_challenge(slack):
    body = json.dumps({"token": "unused", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "type": "url_verification"})
    response = slack.post("/slack/events", body, "application/json")
    assert response.status_code == 200
    assert "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in response.text


def test_bad_stale_and_missing_signatures_are_rejected_with_401(slack, fake_slack):
    event = {"type": "event_callback", "team_id": TEAM, "event_id": "EvForged", "event": message_event(FAQ_EN, ts=new_ts())}
    body = json.dumps(event)
    assert slack.post("/slack/events", body, "application/json", secret="not-the-secret").status_code == 401
    assert slack.post("/slack/events", body, "application/json", timestamp=int(time.time()) - 6 * 60).status_code == 401
    assert slack.http.post("/slack/events", content=body, headers={"Content-Type": "application/json"}).status_code == 401
    assert (
        slack.post(
            "/slack/commands", "command=%2Fadvisor&text=help", "application/x-www-form-urlencoded", secret="not-the-secret"
        ).status_code
        == 401
    )
    # Inside the five-minute window a correct signature passes (so the rejections above are about the signature).
    assert (
        slack.post(
            "/slack/events",
            json.dumps({"type": "url_verification", "challenge": "c"}),
            "application/json",
            timestamp=int(time.time()) - 4 * 60,
        ).status_code
        == 200
    )
    assert fake_slack.calls == []


def test_a_mention_is_answered_in_its_thread_with_sources(slack, fake_slack):
    ts = new_ts()
    response = slack.event(message_event(f"<@{BOT_USER_ID}> {FAQ_EN}", ts=ts))
    assert response.status_code == 200
    [reply] = wait_reply(fake_slack, ts)
    assert reply.args["channel"] == "C0GENERAL" and reply.args["thread_ts"] == ts
    assert reply.args["text"] and not CJK.search(reply.args["text"])
    assert block_kit_problem(reply.blocks) is None
    sources = [b for b in reply.blocks if b["type"] == "context" and re.search(r"\[1\] <https://", b["elements"][0]["text"])]
    assert sources, "the sources are listed as numbered links"
    assert reply.blocks[-1]["type"] == "actions" and reply.blocks[-1]["elements"][0]["value"].startswith("msg_")
    methods = [c.method for c in fake_slack.calls if c.method != "auth.test"]
    assert methods == ["reactions.add", "chat.postMessage", "reactions.remove"]
    assert fake_slack.calls_of("reactions.add")[0].args == {"channel": "C0GENERAL", "timestamp": ts, "name": "eyes"}


def test_a_chinese_direct_message_is_answered_in_chinese(slack, fake_slack):
    ts = new_ts()
    assert slack.event(message_event(FAQ_ZH, ts=ts, channel="D0DIRECT", kind="message")).status_code == 200
    [reply] = wait_reply(fake_slack, ts)
    assert reply.args["channel"] == "D0DIRECT" and reply.args["thread_ts"] == ts
    assert CJK.search(reply.args["text"])


def test_retries_and_a_mention_also_sent_as_a_message_get_exactly_one_reply(slack, fake_slack):
    ts = new_ts()
    mention = message_event(f"<@{BOT_USER_ID}> {FAQ_EN}", ts=ts, channel="D0DIRECT")
    assert slack.event(mention, event_id="EvRetried01").status_code == 200
    assert slack.event(mention, event_id="EvRetried01", retry_num=1).status_code == 200
    assert slack.event(mention, event_id="EvRetried01", retry_num=2).status_code == 200
    as_message = message_event(f"<@{BOT_USER_ID}> {FAQ_EN}", ts=ts, channel="D0DIRECT", kind="message")
    assert slack.event(as_message, event_id="EvRetried02").status_code == 200
    # Duplicates are refused before the ack, so once a later question is answered nothing else can follow.
    sentinel = new_ts()
    slack.event(message_event(FAQ_ZH, ts=sentinel, channel="D0DIRECT", kind="message"))
    fake_slack.wait_for(lambda calls: len([c for c in calls if c.ok and c.method == "chat.postMessage"]) >= 2)
    assert len(replies(fake_slack, ts)) == 1 and len(replies(fake_slack, sentinel)) == 1


def test_bots_edits_joins_channel_chatter_and_the_bot_itself_are_ignored(slack, fake_slack):
    ignored = [
        message_event(FAQ_EN, ts=new_ts(), kind="message", bot_id="B0OTHER"),
        message_event(FAQ_EN, ts=new_ts(), kind="message", user=BOT_USER_ID, bot_id=BOT_ID),
        message_event(f"<@{BOT_USER_ID}> {FAQ_EN}", ts=new_ts(), user=BOT_USER_ID),
        message_event(FAQ_EN, ts=new_ts(), kind="message", subtype="message_changed"),
        message_event("<@U0NEW> has joined the channel", ts=new_ts(), kind="message", subtype="channel_join"),
        message_event(FAQ_EN, ts=new_ts(), kind="message", channel_type="channel"),
        {"type": "reaction_added", "user": "U0ASKER", "reaction": "eyes", "item": {"type": "message", "channel": "C0GENERAL", "ts": "1.0"}},
    ]
    for event in ignored:
        assert slack.event(event).status_code == 200
    sentinel = new_ts()
    slack.event(message_event(FAQ_EN, ts=sentinel, channel="D0DIRECT", kind="message"))
    wait_reply(fake_slack, sentinel)
    assert len(replies(fake_slack)) == 1
    assert len(fake_slack.calls_of("reactions.add")) == 1


def test_a_thread_is_one_conversation_and_follow_ups_reuse_its_workload(slack, fake_slack):
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> {RECOMMEND_EN}", ts=ts))
    wait_reply(fake_slack, ts)
    fake_slack.clear()
    follow_up = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> And with LoRA?", ts=follow_up, thread_ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    assert "Qwen-14B" in shown(reply)  # the model was named only in the thread's first question
    conversation = slack.runtime.advisor.conversation(conversation_key=f"slack:{TEAM}:C0GENERAL:{ts}", owner=f"slack:{TEAM}")
    assert conversation is not None and len(conversation.messages) == 4
    assert conversation.messages[-1].answer["slots"]["model"] == "qwen-14b"
    assert slack.runtime.advisor.conversation(conversation_key=f"slack:{TEAM}:C0GENERAL:{ts}", owner="slack:T0OTHER") is None


def test_a_rate_limited_post_is_retried_after_the_wait_slack_asks_for(slack, fake_slack):
    fake_slack.rate_limit_next("chat.postMessage", retry_after=1)
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> {FAQ_EN}", ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    posts = [c for c in fake_slack.calls if c.method == "chat.postMessage"]
    assert [c.status for c in posts] == [429, 200]
    assert posts[0].args["thread_ts"] == posts[1].args["thread_ts"] == ts


def test_an_answer_slack_refuses_becomes_an_apology_in_the_thread(slack, fake_slack):
    fake_slack.fail_next("chat.postMessage", "invalid_blocks")
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> {FAQ_ZH}", ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    assert reply.args["text"] == STRINGS["zh"]["apology"]


def test_pings_in_a_question_never_come_back_as_pings(slack, fake_slack):
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> <!channel> <!here> what is MFU for <@U0VICTIM>? & <b>", ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    payload = shown(reply)
    assert "<!channel>" not in payload and "<!here>" not in payload and "<@U0VICTIM>" not in payload


def test_an_empty_mention_gets_a_hint_not_silence(slack, fake_slack):
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}>", ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    assert reply.args["text"] == STRINGS["en"]["empty_question"]


def test_a_question_over_the_length_limit_gets_the_field_named_problem_in_chinese(slack, fake_slack):
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> " + "训练需要多少张卡？" * 600, ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    assert "message" in reply.args["text"] and "太长" in reply.args["text"]


def test_message_text_is_never_logged(slack, fake_slack, caplog):
    caplog.set_level(logging.DEBUG)
    marker = "zebra-quartz-7731"
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> What is MFU? {marker}", ts=ts))
    wait_reply(fake_slack, ts)
    assert caplog.records, "the log was captured"
    assert marker not in caplog.text


def test_a_long_real_answer_stays_inside_block_kit_limits(slack, fake_slack):
    ts = new_ts()
    slack.event(message_event(f"<@{BOT_USER_ID}> 新到了两台8卡H100，上线前要做哪些检查？", ts=ts))
    [reply] = wait_reply(fake_slack, ts)
    assert block_kit_problem(reply.blocks) is None
    assert len(reply.blocks) <= 50 and len(json.dumps(reply.blocks, ensure_ascii=False)) <= 13_000
    assert "```" in json.dumps(reply.blocks, ensure_ascii=False)  # the checklist's commands, as code
