"""A scripted stand-in for an OpenAI-compatible model server, shipped beside the real writer for tests.

Like pydantic-ai's TestModel, but over the wire: it serves the real chat-completions
protocol on HTTP, so the production path (LangChain's ChatOpenAI -> HTTP -> parsing
-> grounding re-check -> fallback) runs unchanged against it. It only ever binds a
loopback address.

    llm = ScriptedLLM("echo")
    with LoopbackServer(create_app(llm)) as server:
        settings = Settings(llm_provider="openai", llm_base_url=f"{server.url}/v1", llm_model="double", environment="test")
        ...
        llm.behaviour = "add_number"   # switch per test
        llm.calls[-1].max_completion_tokens

Behaviours (what POST /v1/chat/completions answers):
    echo          the last user message unchanged
    add_number    the user message plus a sentence with a made-up figure ("about 987.6 GPUs")
    bad_citation  the user message plus a citation marker no source backs ("[9]")
    drop_sources  the user message without its citation markers and source links
    echo_prompt   the system prompt followed by the user message (a small model's favourite mistake)
    truncated     the first half of the user message with finish_reason "length" (hit the token limit)
    slow          holds the reply until `release()` is called, the client disconnects or `hold_s`
                  passes, then echoes (a client with a shorter timeout never sees the reply)
    trickle       the echo reply, sent one byte every `trickle_s` (a model server that keeps the
                  connection alive without answering: each read succeeds, so a read timeout never
                  fires); a client that hangs up is counted in `abandoned`
    error         HTTP 500 with an OpenAI-style error body
    empty         an empty message

Run it by hand:  python -m service.assistant.llm_double --behaviour echo --port 8081
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

LOOPBACK = "127.0.0.1"
BEHAVIOURS = ("echo", "add_number", "bad_citation", "drop_sources", "echo_prompt", "truncated", "slow", "trickle", "error", "empty")


@dataclass(frozen=True)
class ChatCall:
    """One chat-completions request as the double received it."""

    body: dict[str, Any]
    received_at: float = field(default_factory=time.monotonic)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    def _content(self, role: str) -> str | None:
        found = [m for m in self.messages if m.get("role") == role]
        return _text(found[-1].get("content")) if found else None

    @property
    def system(self) -> str | None:
        return self._content("system")

    @property
    def user(self) -> str | None:
        return self._content("user")

    @property
    def max_completion_tokens(self) -> int | None:
        return self.body.get("max_completion_tokens")


def _text(content: Any) -> str:
    """Message content as text: a string, or a list of {"type": "text", "text": ...} parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


class ScriptedLLM:
    """The double's state: the scripted behaviour, every request received, and the hold of `slow`."""

    def __init__(self, behaviour: str = "echo", *, made_up_figure: str = "987.6", hold_s: float = 60.0, trickle_s: float = 0.2) -> None:
        self.behaviour = behaviour
        self.made_up_figure = made_up_figure
        self.hold_s = hold_s
        self.trickle_s = trickle_s
        self.abandoned = 0  # trickled replies whose client hung up before the last byte
        self._calls: list[ChatCall] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._ids = itertools.count(1)
        self.replies = 0  # completed 200 replies (a `slow` reply abandoned by its client does not count)

    @property
    def behaviour(self) -> str:
        return self._behaviour

    @behaviour.setter
    def behaviour(self, value: str) -> None:
        if value not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {value!r}; one of {', '.join(BEHAVIOURS)}")
        self._behaviour = value

    @property
    def calls(self) -> list[ChatCall]:
        with self._lock:
            return list(self._calls)

    def reset(self, behaviour: str | None = None) -> None:
        """Forget the requests received (and optionally switch behaviour); re-arms the `slow` hold."""
        with self._lock:
            self._calls.clear()
            self.replies = 0
            self.abandoned = 0
        self._released.clear()
        if behaviour is not None:
            self.behaviour = behaviour

    def release(self) -> None:
        """Let held `slow` replies go."""
        self._released.set()

    @property
    def released(self) -> bool:
        return self._released.is_set()

    def record(self, body: dict[str, Any]) -> ChatCall:
        call = ChatCall(body=body)
        with self._lock:
            self._calls.append(call)
        return call

    def content_for(self, call: ChatCall, behaviour: str) -> str:
        user = call.user or ""
        if behaviour == "add_number":
            return user.rstrip("\n") + f"\n\nIn practice this takes about {self.made_up_figure} GPUs.\n"
        if behaviour == "bad_citation":
            return user.rstrip("\n") + "\n\nThis is well documented [9].\n"
        if behaviour == "drop_sources":
            return re.sub(r"\s*<https?://[^>\s]+>|\s?\[\d+\]", "", user)
        if behaviour == "echo_prompt":
            return f"{call.system or ''}\n\n{user}"
        if behaviour == "truncated":
            return user[: len(user) // 2]
        if behaviour == "empty":
            return ""
        return user  # echo, slow

    def completion(self, call: ChatCall, content: str, finish_reason: str = "stop", *, count: bool = True) -> dict[str, Any]:
        if count:
            self.count_reply()
        prompt_tokens = sum(len(_text(m.get("content")).split()) for m in call.messages)
        completion_tokens = len(content.split())
        return {
            "id": f"chatcmpl-double-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": call.body.get("model") or "double",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason, "logprobs": None}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
        }


    def count_reply(self, *, abandoned: bool = False) -> None:
        with self._lock:
            if abandoned:
                self.abandoned += 1
            else:
                self.replies += 1


def _trickle(llm: ScriptedLLM, call: ChatCall) -> StreamingResponse:
    """The echo reply one byte at a time: status and headers at once, then a byte every `trickle_s`."""
    payload = json.dumps(llm.completion(call, llm.content_for(call, "echo"), count=False)).encode()

    async def drip() -> AsyncIterator[bytes]:
        sent = 0
        try:
            for sent in range(1, len(payload) + 1):
                yield payload[sent - 1 : sent]
                await asyncio.sleep(llm.trickle_s)
        finally:  # cancelled when the client hangs up
            llm.count_reply(abandoned=sent < len(payload))

    return StreamingResponse(drip(), media_type="application/json")


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": {"message": message, "type": kind, "param": None, "code": None}})


def create_app(llm: ScriptedLLM) -> FastAPI:
    app = FastAPI(title="Scripted LLM double", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.llm = llm

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "double", "object": "model", "created": 0, "owned_by": "tests"}]}

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "the body is not JSON", "invalid_request_error")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "messages: a list is required", "invalid_request_error")
        call = llm.record(body)
        behaviour = llm.behaviour  # read once: a test may switch it while this request is held
        if body.get("stream"):
            return _error(400, "the double does not stream", "invalid_request_error")
        if behaviour == "error":
            return _error(500, "scripted failure", "server_error")
        if behaviour == "trickle":
            return _trickle(llm, call)
        if behaviour == "slow":
            deadline = time.monotonic() + llm.hold_s
            while not llm.released and time.monotonic() < deadline:
                if await request.is_disconnected():
                    return _error(499, "client went away", "client_closed_request")
                await asyncio.sleep(0.02)
        finish_reason = "length" if behaviour == "truncated" else "stop"
        return JSONResponse(llm.completion(call, llm.content_for(call, behaviour), finish_reason))

    return app


class LoopbackServer:
    """A real uvicorn server in a background thread on 127.0.0.1 and a free port; a context manager.

    The socket is bound here (port 0: the OS picks a free one) and handed to uvicorn, so there is
    no window in which another process can take the port. Leaving the block shuts the server down
    (held requests get `grace_s` to finish, then are cancelled) and joins the thread.
    """

    def __init__(self, app: Any, *, port: int = 0, grace_s: float = 2.0, start_timeout_s: float = 60.0) -> None:
        self.app = app
        self.port = port
        self.grace_s = grace_s
        self.start_timeout_s = start_timeout_s
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> LoopbackServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_config=None, access_log=False, lifespan="on",
                                timeout_graceful_shutdown=self.grace_s, host=LOOPBACK, port=self.port)
        self._server = uvicorn.Server(config)

        def run() -> None:
            try:
                self._server.run(sockets=[sock])
            except BaseException as exc:  # noqa: BLE001 - reported by start()
                self._error = exc
            finally:
                sock.close()

        self._thread = threading.Thread(target=run, name=f"loopback-uvicorn-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout_s
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the server on {self.url} did not start: {self._error!r}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server on {self.url} did not start within {self.start_timeout_s:g} s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=self.grace_s + 10)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def main() -> None:  # pragma: no cover - a manual tool
    import argparse

    parser = argparse.ArgumentParser(description="Serve the scripted LLM double on 127.0.0.1.")
    parser.add_argument("--behaviour", choices=BEHAVIOURS, default="echo")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with LoopbackServer(create_app(ScriptedLLM(args.behaviour)), port=args.port) as server:
        print(f"scripted LLM ({args.behaviour}) at {server.url}/v1 — Ctrl-C to stop", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    main()
