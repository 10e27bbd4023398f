"""A local stand-in for the Slack Web API, for tests and for trying the bot without a workspace.

It speaks Slack's protocol over HTTP on 127.0.0.1 (form or JSON bodies, `Authorization: Bearer`,
`{"ok": ...}` answers, 429 with Retry-After) and records every call. Point the app at it with
SLACK_API_BASE_URL=<fake.base_url>. It enforces the Block Kit limits Slack enforces, answering
`invalid_blocks` like Slack does, so a message that passes here is not rejected for its size there.

    with FakeSlackApi(token="xoxb-test") as slack:
        ...
        slack.wait_for(lambda calls: any(c.method == "chat.postMessage" for c in calls))
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qsl

BOT_USER_ID = "UADVISORBOT"
BOT_ID = "BADVISORBOT"


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    status: int = 200
    response: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == 200 and bool(self.response.get("ok"))

    @property
    def blocks(self) -> list[dict[str, Any]]:
        blocks = self.args.get("blocks") or []
        return json.loads(blocks) if isinstance(blocks, str) else blocks


class FakeSlackApi:
    def __init__(self, *, token: str = "xoxb-test", team_id: str = "T0FAKE") -> None:
        self.token, self.team_id = token, team_id
        self.calls: list[Call] = []
        self._failures: dict[str, list[tuple[int, dict[str, Any], dict[str, str]]]] = {}
        self._ts = itertools.count(1)
        self._changed = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-slack", daemon=True)

    # -- lifecycle -----------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/api/"

    def start(self) -> FakeSlackApi:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeSlackApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- steering and inspection ------------------------------------------------------
    def rate_limit_next(self, method: str, retry_after: int = 1) -> None:
        """The next call of `method` gets 429 with Retry-After, as Slack's rate limiter answers."""
        self._failures.setdefault(method, []).append((429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)}))

    def fail_next(self, method: str, error: str = "internal_error") -> None:
        """The next call of `method` gets `{"ok": false, "error": error}` (HTTP 200, as Slack does)."""
        self._failures.setdefault(method, []).append((200, {"ok": False, "error": error}, {}))

    def calls_of(self, method: str, *, ok_only: bool = True) -> list[Call]:
        with self._changed:
            return [c for c in self.calls if c.method == method and (c.ok or not ok_only)]

    def clear(self) -> None:
        with self._changed:
            self.calls.clear()

    def wait_for(self, predicate: Callable[[list[Call]], bool], timeout: float = 60.0) -> list[Call]:
        """Block until predicate(calls) holds; AssertionError with the calls seen when it does not in time."""
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(list(self.calls)), timeout=timeout):
                raise AssertionError(f"Slack never received the expected calls; got {[c.method for c in self.calls]}")
            return list(self.calls)

    # -- the protocol -------------------------------------------------------------------
    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://fake.slack.test/",
                "team": "Fake",
                "user": "advisor",
                "team_id": self.team_id,
                "user_id": BOT_USER_ID,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method in ("chat.postMessage", "chat.postEphemeral", "chat.update"):
            if not args.get("channel") or not (args.get("text") or args.get("blocks")):
                return {"ok": False, "error": "no_text" if args.get("channel") else "channel_not_found"}
            problem = block_kit_problem(Call(method, args).blocks)
            if problem:
                return {"ok": False, "error": "invalid_blocks", "response_metadata": {"messages": [problem]}}
            if method == "chat.postEphemeral":
                return {"ok": True, "message_ts": self._next_ts()}
            return {
                "ok": True,
                "channel": args["channel"],
                "ts": args.get("ts") or self._next_ts(),
                "message": {"text": args.get("text"), "user": BOT_USER_ID, "bot_id": BOT_ID},
            }
        if method in ("reactions.add", "reactions.remove"):
            return {"ok": True} if args.get("name") and args.get("timestamp") else {"ok": False, "error": "invalid_arguments"}
        return {"ok": False, "error": "unknown_method"}

    def _next_ts(self) -> str:
        return f"1700000000.{next(self._ts):06d}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                method = self.path.rsplit("/", 1)[-1].split("?", 1)[0]
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8") if length else ""
                if self.headers.get("Content-Type", "").startswith("application/json"):
                    args = json.loads(raw or "{}")
                else:
                    args = dict(parse_qsl(raw, keep_blank_values=True))
                headers: dict[str, str] = {}
                if self.headers.get("Authorization") != f"Bearer {fake.token}":
                    status, body = 200, {"ok": False, "error": "invalid_auth"}
                elif fake._failures.get(method):
                    status, body, headers = fake._failures[method].pop(0)
                else:
                    status, body = 200, fake._answer(method, args)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                with fake._changed:
                    fake.calls.append(Call(method, args, status, body))
                    fake._changed.notify_all()

            def log_message(self, format: str, *args: object) -> None:  # quiet: message text must not be logged
                return

        return Handler


def block_kit_problem(blocks: list[dict[str, Any]]) -> str | None:
    """The first Block Kit limit a message breaks, in Slack's words, or None."""
    if len(blocks) > 50:
        return "[ERROR] no more than 50 items allowed [json-pointer:/blocks]"
    if len(json.dumps(blocks, ensure_ascii=False)) > 13_000:
        return "[ERROR] the blocks are too large"
    for i, block in enumerate(blocks):
        if block.get("type") == "section":
            if len((block.get("text") or {}).get("text", "")) > 3000:
                return f"[ERROR] must be less than 3001 characters [json-pointer:/blocks/{i}/text/text]"
            fields = block.get("fields") or []
            if len(fields) > 10:
                return f"[ERROR] no more than 10 items allowed [json-pointer:/blocks/{i}/fields]"
            if any(len(f.get("text", "")) > 2000 for f in fields):
                return f"[ERROR] must be less than 2001 characters [json-pointer:/blocks/{i}/fields]"
            if not block.get("text") and not fields:
                return f"[ERROR] must provide text or fields [json-pointer:/blocks/{i}]"
        if block.get("type") == "context" and not 1 <= len(block.get("elements") or []) <= 10:
            return f"[ERROR] context needs 1 to 10 elements [json-pointer:/blocks/{i}/elements]"
        if block.get("type") == "actions" and not 1 <= len(block.get("elements") or []) <= 25:
            return f"[ERROR] actions need 1 to 25 elements [json-pointer:/blocks/{i}/elements]"
    return None
