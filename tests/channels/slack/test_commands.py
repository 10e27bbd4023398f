"""/advisor and the buttons: ephemeral answers, "share in channel", feedback; a replayed delivery is acted on once."""

from __future__ import annotations

import json
import time

import pytest

from service.channels.slack.blockkit import FEEDBACK_UP, SHARE
from service.channels.slack.fake import block_kit_problem
from service.channels.slack.strings import STRINGS
from tests.channels.slack.conftest import FORM, TEAM, wait_calls

pytestmark = pytest.mark.slow  # a real uvicorn server and the real index

SIZING_EN = "How long does it take to train llama-3-70b on 15T tokens with 512 H100 SXM GPUs?"


def test_help_is_ephemeral_and_in_the_language_asked(slack, fake_slack):
    assert slack.command("help").status_code == 200
    assert slack.command("帮助", user="U0ZH").status_code == 200
    by_user = {c.args["user"]: c for c in wait_calls(fake_slack, "chat.postEphemeral", 2)}
    assert by_user["U0ASKER"].args["channel"] == "C0GENERAL" and "/advisor" in by_user["U0ASKER"].args["text"]
    assert by_user["U0ZH"].args["text"] == STRINGS["zh"]["help"]
    assert fake_slack.calls_of("chat.postMessage") == []


def test_a_question_is_answered_privately_and_can_be_shared_in_the_channel(slack, fake_slack):
    assert slack.command(SIZING_EN).status_code == 200
    [private] = wait_calls(fake_slack, "chat.postEphemeral")
    assert private.args["user"] == "U0ASKER" and block_kit_problem(private.blocks) is None
    buttons = {e["action_id"]: e for e in private.blocks[-1]["elements"]}
    assert set(buttons) >= {SHARE, FEEDBACK_UP}
    assert fake_slack.calls_of("chat.postMessage") == []

    assert slack.click({"action_id": SHARE, "value": buttons[SHARE]["value"], "text": buttons[SHARE]["text"]}).status_code == 200
    [shared] = wait_calls(fake_slack, "chat.postMessage")
    assert shared.args["channel"] == "C0GENERAL" and "thread_ts" not in shared.args
    assert "<@U0ASKER>" in shared.blocks[0]["elements"][0]["text"]
    assert shared.blocks[1:-1] == private.blocks[:-1]  # the same answer, without the private buttons
    assert SHARE not in json.dumps(shared.blocks[-1])


def test_a_forged_share_button_posts_nothing_in_the_channel(slack, fake_slack):
    value = json.dumps({"k": f"slack:{TEAM}:C0GENERAL:cmd-U0SOMEONE", "m": "msg_doesnotexist"})
    slack.click({"action_id": SHARE, "value": value, "text": {"type": "plain_text", "text": "Share in channel"}})
    [notice] = wait_calls(fake_slack, "chat.postEphemeral")
    assert notice.args["text"] == STRINGS["en"]["share_gone"]
    assert fake_slack.calls_of("chat.postMessage") == []


def test_thumbs_up_is_recorded_in_the_feedback_store(slack, fake_slack):
    slack.command(SIZING_EN, user="U0RATER")
    [private] = wait_calls(fake_slack, "chat.postEphemeral")
    up = next(e for e in private.blocks[-1]["elements"] if e["action_id"] == FEEDBACK_UP)
    fake_slack.clear()
    slack.click({"action_id": FEEDBACK_UP, "value": up["value"], "text": up["text"]}, user="U0RATER")
    [thanks] = wait_calls(fake_slack, "chat.postEphemeral")
    assert thanks.args["text"] == STRINGS["en"]["feedback_thanks"] and thanks.args["user"] == "U0RATER"
    # The same id again through the front door: known to this workspace only.
    from service.contract import Feedback

    assert slack.runtime.advisor.feedback(Feedback(message_id=up["value"], rating="down"), owner=f"slack:{TEAM}") is not None
    assert slack.runtime.advisor.feedback(Feedback(message_id=up["value"], rating="down"), owner="slack:T0OTHER") is None


# -- replays: a signed request resent unchanged (same timestamp, body, so signature) within Slack's five minutes ------


def _sent_twice(slack, path: str, body: str) -> list[int]:
    timestamp = int(time.time())
    return [slack.post(path, body, FORM, timestamp=timestamp).status_code for _ in range(2)]


def _nothing_more(fake_slack, method: str, count: int, within_s: float) -> None:
    """No call of `method` beyond the first `count` arrives within `within_s`."""
    with pytest.raises(AssertionError, match="never received"):
        fake_slack.wait_for(lambda calls: sum(1 for c in calls if c.ok and c.method == method) > count, timeout=within_s)


def test_a_replayed_command_is_acknowledged_and_answered_once(slack, fake_slack):
    started = time.monotonic()
    assert _sent_twice(slack, "/slack/commands", slack.command_body(SIZING_EN, user="U0REPLAY")) == [200, 200]
    wait_calls(fake_slack, "chat.postEphemeral")
    # Both arrived together: an answer to the replay would come about as soon after the first as the first took.
    _nothing_more(fake_slack, "chat.postEphemeral", 1, within_s=max(2.0, time.monotonic() - started))
    conversation = slack.runtime.advisor.conversation(conversation_key=f"slack:{TEAM}:C0GENERAL:cmd-U0REPLAY", owner=f"slack:{TEAM}")
    assert len(conversation.messages) == 2  # one question, one answer: the pipeline ran once


def test_a_replayed_share_click_posts_in_the_channel_once(slack, fake_slack):
    slack.command(SIZING_EN, user="U0SHARER")
    [private] = wait_calls(fake_slack, "chat.postEphemeral")
    share = next(e for e in private.blocks[-1]["elements"] if e["action_id"] == SHARE)
    click = slack.click_body({"action_id": SHARE, "value": share["value"], "text": share["text"]}, user="U0SHARER")
    started = time.monotonic()
    assert _sent_twice(slack, "/slack/interactions", click) == [200, 200]
    wait_calls(fake_slack, "chat.postMessage")
    _nothing_more(fake_slack, "chat.postMessage", 1, within_s=max(2.0, time.monotonic() - started))
