"""The Slack bot over HTTP: a sync slack-bolt App behind three FastAPI routes.

    POST /slack/events        Events API: url_verification, app_mention, message.im
    POST /slack/commands      /advisor <question>, /advisor help
    POST /slack/interactions  block_actions: feedback buttons, "share in channel"

Every request's signature (v0, five-minute window) is checked before Bolt sees it (`signing`: 401 otherwise, never a
500 for a malformed timestamp) and again by Bolt, which answers
url_verification and acknowledges at once; the answer is produced afterwards on Bolt's listener
threads, through the one pipeline (`runtime.advisor`), and posted in the question's thread.
Message text is never logged: only event types, ids and error class names.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from slack_bolt import App
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_bolt.request import BoltRequest
from slack_bolt.request.payload_utils import is_event
from slack_bolt.response import BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from starlette.concurrency import run_in_threadpool

from service.channels.slack.blockkit import FEEDBACK_DOWN, FEEDBACK_UP, SHARE, SlackMessage, plain_message, render_answer
from service.channels.slack.dedupe import EventDeduper
from service.channels.slack.mrkdwn import escape
from service.channels.slack.signing import SlackSignatureMiddleware
from service.channels.slack.strings import guess_language
from service.channels.slack.strings import text as say
from service.contract import Answer, ChatRequest, Feedback
from service.errors import InputError

log = logging.getLogger("advisor.slack")
MAX_BODY_BYTES = 256 * 1024  # Slack's payloads are a few KB; anything far larger is not Slack
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_LABELLED = re.compile(r"<(?:#[A-Z0-9]+|https?://[^>|]+|mailto:[^>|]+)\|([^>]+)>")
_BARE_LINK = re.compile(r"<((?:https?|mailto):[^>|]+)>")
_SLACK_ID = re.compile(r"^[A-Z0-9]{2,32}$")


def question_text(raw: str) -> str:
    """Slack's message markup -> the question: mentions dropped, links to their labels, entities decoded."""
    text = _MENTION.sub(" ", raw or "")
    text = _LABELLED.sub(r"\1", text)
    text = _BARE_LINK.sub(r"\1", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(text.split())


class SlackBot:
    def __init__(self, runtime) -> None:
        settings = runtime.settings
        self.runtime = runtime
        self.more_url = settings.slack_more_url
        # Rate limits (429 + Retry-After) are retried after the wait Slack asks for; so are dropped connections.
        self.client = WebClient(
            token=settings.slack_bot_token.get_secret_value(),
            base_url=settings.slack_api_base_url.rstrip("/") + "/",  # slack_sdk joins method names onto it
            timeout=30,
            retry_handlers=[ConnectionErrorRetryHandler(max_retry_count=2), RateLimitErrorRetryHandler(max_retry_count=3)],
            logger=_quiet_logger("advisor.slack.web"),
        )
        self.dedupe = EventDeduper(settings.data_dir / "slack-events.sqlite3")
        # token_verification_enabled=False: nothing is sent to Slack at start-up (auth.test happens on the first request).
        self.bolt = App(
            client=self.client,
            signing_secret=settings.slack_signing_secret.get_secret_value(),
            token_verification_enabled=False,
            logger=_quiet_logger("advisor.slack.bolt"),
            name="gpu-advisor",
        )
        # Which events get an answer is decided in a matcher, i.e. synchronously while Slack waits for the ack: a
        # duplicate or an ignored event never reaches a listener thread. Bolt runs the first matching listener;
        # the catch-all acknowledges the rest (an unhandled event would be a 404, and Slack would retry it).
        # A command or a click resent unchanged is dropped in a middleware, after Bolt has checked its signature.
        self.bolt.use(self._first_delivery)
        self.bolt.event("app_mention", matchers=[self._wanted])(self._on_question)
        self.bolt.event("message", matchers=[self._wanted])(self._on_question)
        self.bolt.event(re.compile(r".*"))(_ignore)
        self.bolt.command(re.compile(r"^/"))(self._on_command)  # the app has one command: /advisor, or whatever a workspace renamed it to
        self.bolt.action(FEEDBACK_UP)(self._on_feedback)
        self.bolt.action(FEEDBACK_DOWN)(self._on_feedback)
        self.bolt.action(SHARE)(self._on_share)

    def mount(self, app: FastAPI) -> None:
        router = APIRouter(prefix="/slack", include_in_schema=False)
        for path in ("/events", "/commands", "/interactions"):
            router.add_api_route(path, self.handle, methods=["POST"])
        app.include_router(router)
        # Added before the app's own middleware, so it is the innermost: the rate limiter counts a refusal first.
        app.add_middleware(SlackSignatureMiddleware, signing_secret=self.runtime.settings.slack_signing_secret.get_secret_value())
        app.state.slack = self

    # -- HTTP: a thin adapter; Bolt's dispatch blocks, so it runs off the event loop --------------
    async def handle(self, request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return JSONResponse(status_code=413, content={"error": "payload_too_large"})
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return JSONResponse(status_code=400, content={"error": "invalid_body", "message": "the body is not UTF-8"})
        bolt_response = await run_in_threadpool(self.bolt.dispatch, to_bolt_request(request, body))
        return to_starlette_response(bolt_response)

    # -- replays ------------------------------------------------------------------------
    def _first_delivery(self, body: dict[str, Any], request: BoltRequest, next_) -> BoltResponse:
        """A slash command or an interaction whose signature was seen before is acknowledged (200) and nothing more.

        The signature covers the timestamp and the body, so it repeats only when a delivery is resent unchanged, as
        anyone who saw one could do within Slack's five-minute window; Slack's own deliveries each carry a new one.
        Events are left to `_wanted`: Slack re-signs an event's retry, and there the event id is what repeats.
        """
        if is_event(body):
            return next_()
        signature = (request.headers.get("x-slack-signature") or [""])[0]
        if self.dedupe.claim(f"signature:{signature}"):
            return next_()
        log.info("slack replayed delivery acknowledged, not answered")
        return BoltResponse(status=200, body="")

    # -- events --------------------------------------------------------------------------
    def _wanted(self, body: dict[str, Any], context) -> bool:
        """Mentions and plain DMs from people, once each: not bots, not the bot itself, no edits, joins or other subtypes."""
        event = body.get("event") or {}
        if event.get("subtype") or event.get("bot_id") or not event.get("user") or event.get("user") == context.bot_user_id:
            return False
        if event.get("type") == "message" and event.get("channel_type") != "im":
            return False
        team, channel, ts = body.get("team_id") or event.get("team") or "T", event.get("channel"), event.get("ts")
        if not channel or not ts:
            return False
        # A retry, a repeated event id, or the same message arriving as both app_mention and message.im: answer once.
        event_key = f"event:{body['event_id']}" if body.get("event_id") else ""
        if not self.dedupe.claim(event_key, f"message:{team}:{channel}:{ts}"):
            log.info("slack duplicate ignored event_id=%s", body.get("event_id"))
            return False
        return True

    def _on_question(self, body: dict[str, Any], event: dict[str, Any]) -> None:
        """Runs after the ack, on Bolt's listener threads: 👀, the answer in the question's thread, 👀 removed."""
        team, channel, ts = body.get("team_id") or event.get("team") or "T", event["channel"], event["ts"]
        thread_ts = event.get("thread_ts") or ts
        question = question_text(event.get("text", ""))
        language = guess_language(question)
        log.info("slack question event_id=%s type=%s", body.get("event_id"), event.get("type"))
        self._react("reactions_add", channel, ts)
        try:
            if not question:
                message = plain_message(say(language, "empty_question"))
            else:
                key = f"slack:{team}:{channel}:{thread_ts}"
                message = self._answer(question, key, team, language)
            self._post(channel=channel, thread_ts=thread_ts, message=message, language=language)
        finally:
            self._react("reactions_remove", channel, ts)

    # -- the slash command ------------------------------------------------------------------
    def _on_command(self, ack, body: dict[str, Any]) -> None:
        ack()  # within Slack's 3 s; the answer follows as an ephemeral message
        team, channel, user = body.get("team_id") or "T", body.get("channel_id"), body.get("user_id")
        question = question_text(body.get("text", ""))
        language = guess_language(question)
        if not channel or not user:
            return
        if question.lower() in ("", "help", "帮助"):
            self._ephemeral(channel, user, plain_message(say(language, "help")), language)
            return
        key = f"slack:{team}:{channel}:cmd-{user}"
        try:
            answer = self._pipeline(question, key, team)
            share = json.dumps({"k": key, "m": answer.message_id}, separators=(",", ":"))
            message = render_answer(
                answer.blocks, answer.language, message_id=answer.message_id, more_url=self._more(answer), share_value=share
            )
        except Exception as exc:  # noqa: BLE001 (any failure becomes an apology, never silence)
            message = self._failure(exc, language)
        self._ephemeral(channel, user, message, language)

    # -- buttons ----------------------------------------------------------------------------
    def _on_feedback(self, ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        team, user, channel = _team(body), (body.get("user") or {}).get("id"), (body.get("channel") or {}).get("id")
        language = guess_language((action.get("text") or {}).get("text", ""))
        rating = "up" if action.get("action_id") == FEEDBACK_UP else "down"
        try:
            recorded = self.runtime.advisor.feedback(Feedback(message_id=action.get("value", ""), rating=rating), owner=f"slack:{team}")
        except Exception as exc:  # noqa: BLE001
            log.warning("slack feedback failed: %s", type(exc).__name__)
            recorded = None
        log.info("slack feedback rating=%s recorded=%s", rating, recorded is not None)
        if recorded is not None and channel and user:
            self._ephemeral(channel, user, plain_message(say(language, "feedback_thanks")), language, thread_ts=_thread_of(body))

    def _on_share(self, ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        """Post an ephemeral answer for everyone: looked up again through the front door, rendered without the share button."""
        ack()
        team, user, channel = _team(body), (body.get("user") or {}).get("id"), (body.get("channel") or {}).get("id")
        language = guess_language((action.get("text") or {}).get("text", ""))
        if not channel or not user:
            return
        answer = self._stored_answer(action.get("value", ""), team)
        if answer is None:
            self._ephemeral(channel, user, plain_message(say(language, "share_gone")), language)
            return
        message = render_answer(answer.blocks, answer.language, message_id=answer.message_id, more_url=self._more(answer))
        if _SLACK_ID.match(user):
            message.blocks.insert(
                0, {"type": "context", "elements": [{"type": "mrkdwn", "text": say(answer.language, "shared_by", user=user)}]}
            )
        self._post(channel=channel, thread_ts=None, message=message, language=answer.language)

    def _stored_answer(self, value: str, team: str) -> Answer | None:
        try:
            ref = json.loads(value)
            conversation = self.runtime.advisor.conversation(conversation_key=ref["k"], owner=f"slack:{team}")
        except Exception as exc:  # noqa: BLE001 (a forged or stale button is not an error worth more than a notice)
            log.info("slack share lookup failed: %s", type(exc).__name__)
            return None
        for stored in conversation.messages if conversation else []:
            if stored.id == ref.get("m") and stored.answer:
                return Answer.model_validate(stored.answer)
        return None

    # -- helpers -----------------------------------------------------------------------------
    def _pipeline(self, question: str, key: str, team: str) -> Answer:
        request = ChatRequest(message=question, conversation_key=key)
        return self.runtime.advisor.answer(request, channel="slack", owner=f"slack:{team}")

    def _answer(self, question: str, key: str, team: str, language: str) -> SlackMessage:
        try:
            answer = self._pipeline(question, key, team)
            return render_answer(answer.blocks, answer.language, message_id=answer.message_id, more_url=self._more(answer))
        except Exception as exc:  # noqa: BLE001 (any failure becomes an apology, never silence)
            return self._failure(exc, language)

    def _failure(self, exc: Exception, language: str) -> SlackMessage:
        """Bad input says what is wrong (in the user's language); anything else gets a short apology."""
        if isinstance(exc, InputError):
            return plain_message(escape(exc.message(language)))
        log.warning("slack answer failed: %s", type(exc).__name__)
        return plain_message(say(language, "apology"))

    def _more(self, answer: Answer) -> str | None:
        return self.more_url.replace("{conversation_id}", answer.conversation_id) if self.more_url else None

    def _post(self, *, channel: str, thread_ts: str | None, message: SlackMessage, language: str) -> None:
        """Post the message; if Slack refuses it, post the apology instead so the thread is never left silent."""
        try:
            self.client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=message.text, blocks=message.blocks, unfurl_links=False, unfurl_media=False
            )
            return
        except Exception as exc:  # noqa: BLE001 (refused, or unreachable after the retries)
            log.warning("slack chat.postMessage failed: %s", _reason(exc))
        apology = say(language, "apology")
        try:
            self.client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=apology)
        except Exception as exc:  # noqa: BLE001
            log.warning("slack apology failed: %s", _reason(exc))

    def _ephemeral(self, channel: str, user: str, message: SlackMessage, language: str, thread_ts: str | None = None) -> None:
        try:
            self.client.chat_postEphemeral(channel=channel, user=user, text=message.text, blocks=message.blocks, thread_ts=thread_ts)
            return
        except Exception as exc:  # noqa: BLE001
            log.warning("slack chat.postEphemeral failed: %s", _reason(exc))
        try:
            self.client.chat_postEphemeral(channel=channel, user=user, text=say(language, "apology"), thread_ts=thread_ts)
        except Exception as exc:  # noqa: BLE001
            log.warning("slack apology failed: %s", _reason(exc))

    def _react(self, method: str, channel: str, ts: str) -> None:
        """The 👀 while working; a failed reaction never stops the answer."""
        try:
            getattr(self.client, method)(channel=channel, timestamp=ts, name="eyes")
        except Exception as exc:  # noqa: BLE001
            log.info("slack %s failed: %s", method, _reason(exc))

    def close(self) -> None:
        self.dedupe.close()


def _quiet_logger(name: str) -> logging.Logger:
    """slack_sdk and Bolt log request and response bodies at DEBUG, and bodies hold message text: never below INFO."""
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO)
    return logger


def _reason(exc: Exception) -> str:
    """Slack's error code, or the exception's class: never the request (it holds message text)."""
    return str(exc.response.get("error")) if isinstance(exc, SlackApiError) else type(exc).__name__


def _ignore() -> None:
    """Acknowledged, nothing else."""


def _team(body: dict[str, Any]) -> str:
    return (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id") or "T"


def _thread_of(body: dict[str, Any]) -> str | None:
    container = body.get("container") or {}
    return container.get("thread_ts") or (body.get("message") or {}).get("thread_ts")
