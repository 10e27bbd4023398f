"""The Slack bot: Events API (mentions, DMs), the /advisor command and interactive buttons.

`mount_slack(app, runtime)` adds the /slack routes when the bot token and signing secret are set
(slack-bolt is imported only then, so the REST service starts as fast without Slack);
`blockkit.render_answer` turns an answer's blocks into Block Kit; `fake.FakeSlackApi` is a local
stand-in for the Slack Web API used by the tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI


def mount_slack(app: FastAPI, runtime) -> bool:
    """Add POST /slack/events, /slack/commands, /slack/interactions; absent (404) unless both Slack secrets are set."""
    settings = runtime.settings
    if settings.slack_bot_token is None or settings.slack_signing_secret is None:
        return False
    from service.channels.slack.app import SlackBot

    SlackBot(runtime).mount(app)
    return True
