"""Rate limits over the `limits` library (moving window, in memory): a reusable limiter and the API's general limits.

`RateLimiter`: rules are named and written in `limits` notation ("30/minute", "1000 per hour"); a hit is
counted under a rule and any identifiers (a key digest, a client IP). The widget uses it per visitor
(widget key + IP) and per widget key; `RateLimitMiddleware` uses it for every /v1 and /slack request:

- a valid API or admin key: per key (a digest, never the key) and, as a second bound, per client IP;
- no key or an unknown one (the 401s, the widget's visitors, open local use): per client IP;
- Slack: a signed delivery per workspace (team id), Slack's retries (X-Slack-Retry-Num) included: the header is not
  signed, so anyone holding one signed delivery could add it to skip the limit (retries are still deduplicated, never
  answered twice); an unsigned request counts against its IP (Slack's signature check then refuses it, 401).

Probes (/healthz, /readyz), /metrics, the widget script and the docs are outside /v1 and never limited.
A refusal is 429 with Retry-After (seconds) and the API's error body in the request's language, counted
in `advisor_rate_limit_refusals_total{scope=<rule>}`.

Where the counts live (ADVISOR_RATE_LIMIT_STORAGE_URL): empty, in this process's memory, so behind `advisor serve
--workers N` each worker counts alone and a client can get up to N times a limit; a `limits` storage URI
(redis://host:6379/0, rediss://, redis+sentinel://, ...) makes every worker and host count in one place, so a limit is
a limit for the whole deployment. A shared storage is reached from a worker thread (never blocking the event loop), with
short socket timeouts. When it cannot be reached the request is let through (fail open: rate limiting protects the
service, it is not worth an outage), a warning is logged once per outage (the storage's scheme, never its URI: it can
hold a password), each such request is counted in `advisor_rate_limit_storage_failures_total`, and for a few seconds
requests skip the storage rather than each wait for a timeout. /readyz reports the storage as degraded meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qs, urlsplit

import anyio
from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import SCHEMES, MemoryStorage, RedisStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from prometheus_client import Counter
from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.auth import key_is_valid, presented_key
from service.api.middleware import language_of, read_body
from service.config import Settings
from service.observability import metrics

LIMITED_PREFIXES = ("/v1/", "/slack/")

log = logging.getLogger("advisor.ratelimit")

STORAGE_FAILURES = Counter(
    "advisor_rate_limit_storage_failures",
    "Requests let through without a rate-limit check because the shared storage could not be reached",
    registry=metrics.REGISTRY,
)
# A redis that is down refuses at once, but one behind a dead route would hold each request for redis-py's default (no
# timeout at all); a URI's own ?socket_timeout=... still wins (redis-py lets URL options override these).
REDIS_TIMEOUTS_S = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
# After a storage failure, requests skip the storage for this long (let through at once) instead of each paying a timeout.
STORAGE_RETRY_S = 2.0
# Threads for shared-storage round trips, apart from anyio's default pool: a limit check must not queue behind busy chats.
STORAGE_THREADS = 16

# Who the limit was for, and the window unit, per language: the refusal names both.
_WHO = {
    "api_key": {"en": "this API key", "zh": "该 API 密钥"},
    "ip": {"en": "this client address", "zh": "该客户端地址"},
    "slack_team": {"en": "this Slack workspace", "zh": "该 Slack 工作区"},
}
_UNITS = {"second": "秒", "minute": "分钟", "hour": "小时", "day": "天", "month": "月", "year": "年"}
_MESSAGE = {
    "en": "Too many requests from {who} (at most {amount} per {window}); retry after {s} seconds.",
    "zh": "{who}的请求过于频繁（每{window}最多 {amount} 次），请 {s} 秒后重试。",
}


@dataclass(frozen=True)
class Refusal:
    rule: str
    limit: str
    retry_after_s: int


def parse_rule(text: str) -> RateLimitItem:
    """The parsed limit; ValueError naming the text when it is not `limits` notation."""
    try:
        return parse(text)
    except ValueError as exc:
        raise ValueError(f"'{text}' is not a rate limit such as '30/minute' or '1000 per hour'") from exc


def storage_scheme(url: str | None) -> str:
    """What a storage is called in logs and probes: its URI scheme, never the URI (it can carry a password)."""
    return urlsplit(url).scheme if url else "memory"


def open_storage(url: str | None) -> Storage:
    """The counts' storage: this process's memory when url is empty, else `limits`' storage for the URI.

    Nothing connects here (redis-py connects on first use), so start-up never waits for the storage. Errors of the
    storage's client are raised as `limits.errors.StorageError`, the one exception `RateLimiter.hit` fails open on.
    """
    if not url:
        return MemoryStorage()
    options = dict(REDIS_TIMEOUTS_S) if SCHEMES.get(storage_scheme(url)) is RedisStorage else {}
    return storage_from_string(url, wrap_exceptions=True, **options)


@lru_cache(maxsize=4)
def _probe_storage(url: str) -> Storage:
    return open_storage(url)


def storage_reachable(url: str) -> bool:
    """Whether the shared storage answers a ping (blocking: /readyz runs it in its probe pool). One client per URI."""
    try:
        return bool(_probe_storage(url).check())
    except Exception:  # check() catches its own client's errors; anything else still means "not reachable"
        return False


class RateLimiter:
    def __init__(self, rules: Mapping[str, str], *, storage_url: str | None = None) -> None:
        self._rules = {name: parse_rule(text) for name, text in rules.items()}
        self._limiter = MovingWindowRateLimiter(open_storage(storage_url))
        self._scheme = storage_scheme(storage_url)
        # A shared storage is a network round trip: callers on the event loop run `hit` in a thread (see `hit_async`).
        self.shared = bool(storage_url)
        self._skip_until = 0.0
        self._failing = False
        self._threads: anyio.CapacityLimiter | None = None

    def rule(self, name: str) -> RateLimitItem:
        return self._rules[name]

    def hit(self, *checks: tuple[str, tuple[str, ...]]) -> Refusal | None:
        """Count one request under each (rule, identifiers); the first rule that is exhausted refuses it.

        Rules are tested before any is counted, so a refused request does not use up the others.
        Every refusal is counted in the metrics under its rule's name (here, so no caller can forget it).
        A storage that cannot be reached lets the request through (None), logged and counted.
        """
        if time.monotonic() < self._skip_until:
            STORAGE_FAILURES.inc()
            return None
        try:
            refusal = self._test_and_count(checks)
        except StorageError as exc:
            self._skip_until = time.monotonic() + STORAGE_RETRY_S
            STORAGE_FAILURES.inc()
            if not self._failing:
                self._failing = True
                # The exception's class only: its text names the host, and a driver's text could one day hold more.
                log.warning(
                    "rate-limit storage (%s) cannot be reached (%s): requests are let through without rate limits until it answers",
                    self._scheme,
                    type(exc.storage_error).__name__,
                )
            return None
        if self._failing:
            self._failing = False
            log.warning("rate-limit storage (%s) answers again: rate limits apply again", self._scheme)
        return refusal

    async def hit_async(self, *checks: tuple[str, tuple[str, ...]]) -> Refusal | None:
        """`hit` for callers on the event loop: in memory it is done inline; a shared storage's round trip (or its
        timeout) runs in a thread of this limiter's own, so neither probes nor streams wait for it."""
        if not self.shared:
            return self.hit(*checks)
        if self._threads is None:
            self._threads = anyio.CapacityLimiter(STORAGE_THREADS)
        return await anyio.to_thread.run_sync(lambda: self.hit(*checks), limiter=self._threads)

    def _test_and_count(self, checks: tuple[tuple[str, tuple[str, ...]], ...]) -> Refusal | None:
        for rule, identifiers in checks:
            item = self._rules[rule]
            if not self._limiter.test(item, rule, *identifiers):
                reset_at = self._limiter.get_window_stats(item, rule, *identifiers).reset_time
                metrics.count_rate_limit_refusal(rule)
                return Refusal(rule, str(item), max(1, math.ceil(reset_at - time.time())))
        for rule, identifiers in checks:
            self._limiter.hit(self._rules[rule], rule, *identifiers)
        return None

    def reset(self) -> None:
        self._limiter.storage.reset()


def key_digest(key: str) -> str:
    """What identifies a key in the limiter's storage: never the key itself."""
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def refusal_message(item: RateLimitItem, rule: str, retry_after_s: int, language: str) -> str:
    unit = item.GRANULARITY.name
    if language == "zh":
        window = _UNITS.get(unit, unit) if item.multiples == 1 else f" {item.multiples} {_UNITS.get(unit, unit)}"
    else:
        window = unit if item.multiples == 1 else f"{item.multiples} {unit}s"
    who = _WHO.get(rule, {"en": "this client", "zh": "该客户端"})[language]
    return _MESSAGE[language].format(who=who, amount=item.amount, window=window, s=retry_after_s)


def slack_team_id(body: bytes, content_type: str) -> str:
    """The workspace of a Slack delivery: team_id (Events API JSON, slash commands) or team.id (interactions)."""
    try:
        if content_type.startswith("application/json"):
            data = json.loads(body)
        else:
            form = parse_qs(body.decode("utf-8"))
            data = json.loads(form["payload"][0]) if "payload" in form else {k: v[0] for k, v in form.items()}
        team = data.get("team_id") or (data.get("team") or {}).get("id") or ""
    except (ValueError, KeyError, AttributeError, TypeError):
        return ""
    return str(team)[:32]


class RateLimitMiddleware:
    """Plain ASGI (SSE streams pass through untouched); installed outside the API-key check and inside CORS."""

    def __init__(self, app: ASGIApp, *, settings: Settings, limiter: RateLimiter | None = None) -> None:
        self.app = app
        self.keys = [*settings.api_key_values, *settings.admin_key_values]
        storage_url = settings.rate_limit_storage_url.get_secret_value() if settings.rate_limit_storage_url else None
        self.limiter = limiter or RateLimiter(
            {"api_key": settings.rate_limit_per_key, "slack_team": settings.rate_limit_per_key, "ip": settings.rate_limit_per_ip}, storage_url=storage_url
        )
        self.slack_signature = None
        if settings.slack_signing_secret is not None:
            from service.channels.slack.signing import SlackSignature  # slack_sdk only when Slack is configured

            self.slack_signature = SlackSignature(settings.slack_signing_secret.get_secret_value())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(LIMITED_PREFIXES):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        client_ip = (scope.get("client") or ("unknown", 0))[0]
        if scope["path"].startswith("/slack/"):
            checks, receive = await self._slack_checks(headers, client_ip, receive)
        else:
            presented = presented_key(headers)
            if self.keys and key_is_valid(presented, self.keys):
                checks = [("api_key", (key_digest(presented),)), ("ip", (client_ip,))]
            else:
                checks = [("ip", (client_ip,))]
        refusal = await self.limiter.hit_async(*checks)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        language = language_of(scope)
        message = refusal_message(self.limiter.rule(refusal.rule), refusal.rule, refusal.retry_after_s, language)
        body = json.dumps({"error": "rate_limited", "message": message, "retry_after_s": refusal.retry_after_s}, ensure_ascii=False).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", str(refusal.retry_after_s).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _slack_checks(self, headers: dict[str, str], client_ip: str, receive: Receive) -> tuple[list, Receive]:
        body, receive = await read_body(receive)
        # Never raises (a missing or non-numeric timestamp is simply unsigned): the 401 itself comes from the Slack layer.
        signed = self.slack_signature is not None and self.slack_signature.signed(body, headers)
        if not signed:
            return [("ip", (client_ip,))], receive
        team = slack_team_id(body, headers.get("content-type", ""))
        return ([("slack_team", (team,))] if team else [("ip", (client_ip,))]), receive
