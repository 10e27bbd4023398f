"""The one place that reads the environment.

Every option comes from an environment variable (prefix ``ADVISOR_``) or from
``.env`` in the working directory. Nothing else in the code base reads
``os.environ``; components receive a ``Settings`` instance instead.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PLACEHOLDER_SECRETS = {"changethis", "change-me", "changeme", "secret", "placeholder", "xxx", "password", "apikey", "api-key", "api_key",
                       "test", "example", "dummy", "key", "token", "your-api-key", "your_api_key", "todo", "none", "null"}
_PLACEHOLDER_PARTS = ("changeme", "change-me", "changethis", "your-", "your_", "placeholder", "example")

CommaList = Annotated[list[str], NoDecode]
# Keys are secrets: SecretStr keeps them out of repr(), logs and error messages.
SecretList = Annotated[list[SecretStr], NoDecode]


def is_placeholder(secret: str) -> bool:
    low = secret.strip().lower()
    return low in PLACEHOLDER_SECRETS or any(p in low for p in _PLACEHOLDER_PARTS) or len(set(low)) <= 2 or low.startswith("<")


# Production API and admin keys: at least this long, and at least this many bits by a Shannon estimate over their characters
# (length x bits per character). 56 bits: no 24-character hex key from secrets.token_hex(12) falls below it in 300,000 draws,
# while keys a person makes up by repeating characters ("abcabc...", "aaaa...b") do.
MIN_KEY_LENGTH = 24
MIN_KEY_BITS = 56.0


def estimated_bits(secret: str) -> float:
    counts, n = Counter(secret), len(secret)
    return -n * sum(c / n * math.log2(c / n) for c in counts.values())


def is_weak_key(secret: str) -> bool:
    """Too short or too easy to guess: few bits, one short unit repeated ('Xy7#Xy7#...'), or a run ('abcdef...', '987654...')."""
    if len(secret) < MIN_KEY_LENGTH or estimated_bits(secret) < MIN_KEY_BITS:
        return True
    repeated = any(len(secret) % n == 0 and secret == secret[:n] * (len(secret) // n) for n in range(1, len(secret) // 2 + 1))
    steps = {ord(b) - ord(a) for a, b in zip(secret, secret[1:])}
    return repeated or len(steps) == 1


def parse_key_list(value: object, env_name: str) -> object:
    """'k1,k2' or '["k1","k2"]' -> ['k1', 'k2']. An empty item (' , ', 'a,,b') or a broken JSON list is an
    error, never 'no keys' (which would leave the API open). Messages name the variable, never a value."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise ValueError(f"{env_name} starts with '[' but is not a JSON list of strings") from None
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"{env_name} must be a JSON list of strings")
        else:
            value = text.split(",")
    if isinstance(value, (list, tuple)):
        keys = [v.get_secret_value() if isinstance(v, SecretStr) else v for v in value]
        if not all(isinstance(k, str) for k in keys):
            raise ValueError(f"{env_name} must list keys as text")
        keys = [k.strip() for k in keys]
        if any(not k for k in keys):
            raise ValueError(f"{env_name} has an empty key (a stray comma or blank item); list keys as k1,k2 or [\"k1\",\"k2\"]")
        if any(any(c.isspace() or not c.isprintable() for c in k) for k in keys):
            raise ValueError(f"{env_name} has a key with spaces or control characters inside it")
        return keys
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ADVISOR_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        # A bad setting is reported by name only: the rejected value (a key, a password in a URL) is never echoed.
        hide_input_in_errors=True,
    )

    environment: Literal["development", "test", "production"] = "development"
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    log_level: Literal["debug", "info", "warning", "error"] = "info"

    # Where indexes, the conversation database and other state live.
    data_dir: Path = Path(".advisor-data")
    # Knowledge files (hardware catalogs and documents); default: the packaged ones.
    knowledge_dir: Path | None = None

    # Retrieval
    chroma_url: str | None = Field(
        default=None, validation_alias=AliasChoices("ADVISOR_CHROMA_URL", "CHROMA_URL")
    )
    embedding_backend: Literal["use-multilingual", "sentence-transformers"] = "use-multilingual"
    # For sentence-transformers: a local model directory. Default: the packaged all-MiniLM-L6-v2.
    embedding_model_path: Path | None = None
    bm25_weight: float = Field(default=1.0, ge=0.0, le=10.0)
    dense_weight: float = Field(default=1.0, ge=0.0, le=10.0)
    # Test-only: pause between ingest batches so crash-safety tests can kill an ingest midway.
    ingest_batch_delay_s: float = Field(default=0.0, ge=0.0, le=60.0)

    # Conversations and feedback: a sqlite:/// URL (default: advisor.sqlite3 in data_dir) or a postgresql:// URL
    # (service/assistant/store_sql.py, migrated at start-up). A secret: a server URL carries a password.
    database_url: SecretStr | None = None
    # Conversations not updated for this many days are deleted (with messages and feedback) at start-up and hourly; 0 keeps them.
    retention_days: float = Field(default=0, ge=0, le=36500)
    # `advisor serve` worker processes; 0 = one per CPU core.
    workers: int = Field(default=0, ge=0, le=64)
    # Threads each worker answers requests on (sync routes; anyio's default is 40). Health probes run on the event
    # loop and are never queued behind these.
    request_threads: int = Field(default=40, ge=1, le=256)
    # First-turn answers kept per worker by question text (service/assistant/answer_memo.py); 0 turns it off.
    # Only used with no LLM and no Chroma server configured. About 20 kB an entry.
    answer_memo_size: int = Field(default=2048, ge=0, le=100_000)
    # Open the knowledge index before accepting connections (set by `advisor serve` for several workers).
    open_index_before_serving: bool = False

    # Access control: empty means open (local use; refused in production).
    api_keys: SecretList = Field(default_factory=list)
    # Keys for admin routes (/metrics); when only API keys are set, admin routes are closed.
    admin_keys: SecretList = Field(default_factory=list)

    # HTTP hygiene and observability (service/api/middleware.py, service/observability/).
    max_body_bytes: int = Field(default=1_048_576, ge=1024, le=1 << 30)
    # Log message and query text (off by default: questions can hold confidential details).
    log_content: bool = False
    log_format: Literal["json", "text"] = "json"

    # Operator analytics (service/analytics, docs/analytics.md): every answered question is recorded with its intent,
    # language, outcome, tools and timings; its text only when this is on (off: questions can hold confidential details).
    store_questions: bool = False
    # Answers whose retrieval confidence (0..1, 1 = as well matched as a typical answerable question) is below this are coverage gaps.
    analytics_low_confidence: float = Field(default=0.85, ge=0.0, le=1.0)
    # ...unless the question is at least this similar to an in-domain router exemplar (short, familiar questions match the index weakly).
    analytics_familiar: float = Field(default=0.5, ge=0.0, le=1.0)
    # Refused questions whose nearest in-domain exemplar is at least this similar are "near the domain": coverage gaps too.
    analytics_near_domain: float = Field(default=0.3, ge=0.0, le=1.0)
    # Gap questions at least this similar (cosine, bundled encoder) to a cluster's centre join that cluster.
    analytics_cluster_similarity: float = Field(default=0.5, ge=0.0, le=1.0)

    # Optional LLM writer (never trusted with numbers).
    llm_provider: Literal["none", "openai", "ollama"] = "none"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(default=20.0, gt=0, le=600)
    llm_max_tokens: int = Field(default=800, ge=16, le=8192)
    # At most this many LLM calls at once per worker; a turn that finds none free keeps the deterministic answer.
    llm_max_concurrency: int = Field(default=4, ge=1, le=256)
    # Circuit breaker: after this many consecutive LLM failures or timeouts, skip the LLM for llm_breaker_cooldown_s.
    llm_breaker_failures: int = Field(default=3, ge=1, le=100)
    llm_breaker_cooldown_s: float = Field(default=30.0, gt=0, le=3600)

    max_message_chars: int = Field(default=4000, ge=100, le=100_000)
    # Chat turns computed at once per worker (service/assistant/gate.py); more wait in arrival order. A turn is CPU-bound
    # Python: more at once are no faster, and each competes with the event loop that answers the probes.
    chat_concurrency: int = Field(default=2, ge=1, le=256)
    # CPU seconds one chat turn may use (service/assistant/budget.py); past it the turn stops with a short notice.
    turn_budget_s: float = Field(default=1.0, gt=0, le=600)

    # Slack channel (service/channels/slack): the /slack routes exist only when both secrets are set.
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("ADVISOR_SLACK_BOT_TOKEN", "SLACK_BOT_TOKEN"))
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("ADVISOR_SLACK_SIGNING_SECRET", "SLACK_SIGNING_SECRET")
    )
    # Where the Slack Web API lives; tests point it at service/channels/slack/fake.py.
    slack_api_base_url: str = Field(
        default="https://slack.com/api/", pattern=r"^https?://", validation_alias=AliasChoices("ADVISOR_SLACK_API_BASE_URL", "SLACK_API_BASE_URL")
    )
    # The "see more" link of an answer too long for Slack; {conversation_id} is filled in. Empty: trimmed without a link.
    slack_more_url: str | None = Field(default=None, pattern=r"^https?://")

    # Web widget (service/widget, docs/widget.md). Origins allowed to embed it (CORS); empty: same origin only.
    widget_origins: CommaList = Field(default_factory=list)
    # Publishable widget keys (X-Widget-Key): when API keys are required, they open only the chat and
    # feedback routes, only from the allowed origins. Not secrets: they are visible in the host page.
    widget_keys: CommaList = Field(default_factory=list)
    # Requests per visitor (widget key + client IP) and per widget key overall, in `limits` notation.
    widget_rate_limit_visitor: str = "20/minute"
    widget_rate_limit_key: str = "600/minute"

    # General rate limits on /v1 and /slack (service/api/ratelimit.py), in `limits` notation, counted per worker process
    # unless rate_limit_storage_url shares the counts.
    # Unset: on, except with ADVISOR_ENVIRONMENT=test (the test suite and `make bench` send thousands of requests from one address).
    rate_limit_enabled: bool | None = None
    # Per valid API key (and per Slack workspace): a digest of the key is counted, never the key.
    rate_limit_per_key: str = "600/minute"
    # Per client IP: bounds anonymous traffic and, as a second bound, all keyed traffic from one address
    # (above the per-key limit, so one backend using one key can reach its key's full rate).
    rate_limit_per_ip: str = "1200/minute"
    # Reverse proxies in front of the advisor: 0 ignores X-Forwarded-For (a client could forge it); N takes the
    # client IP from the N-th X-Forwarded-For entry from the right (the address the outermost trusted proxy saw).
    trusted_proxy_hops: int = Field(default=0, ge=0, le=10)
    # Where the counts live: empty = in this process's memory (each worker counts alone, so N workers admit up to N x a
    # limit); a `limits` storage URI such as redis://host:6379/0 shares them across workers and hosts. A secret: the URI
    # can carry a password. Unreachable at request time: the request is let through (fail open), never a 500.
    rate_limit_storage_url: SecretStr | None = None

    @field_validator("widget_origins", mode="after")
    @classmethod
    def _check_origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            if origin != "*" and not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?", origin):
                raise ValueError(f"'{origin}' is not an origin such as https://example.com or http://127.0.0.1:8080 (no path, no trailing /)")
        return value

    @field_validator("widget_rate_limit_visitor", "widget_rate_limit_key", "rate_limit_per_key", "rate_limit_per_ip", mode="after")
    @classmethod
    def _check_rate_limit(cls, value: str) -> str:
        from limits import parse

        try:
            parse(value)
        except ValueError as exc:
            raise ValueError(f"'{value}' is not a rate limit such as '20/minute' or '1000 per hour'") from exc
        return value

    @field_validator("rate_limit_storage_url", mode="after")
    @classmethod
    def _check_rate_limit_storage_url(cls, value: SecretStr | None) -> SecretStr | None:
        # Only the scheme is checked here (no connection at start-up: a storage that is down is failed open per request).
        # The limiter uses the moving window, so a storage without it (memcached) is refused too. Never echo the URI.
        if value is None or not value.get_secret_value().strip():
            return None
        from urllib.parse import urlsplit

        from limits.storage import SCHEMES, MovingWindowSupport

        allowed = sorted(s for s, storage in SCHEMES.items() if issubclass(storage, MovingWindowSupport))
        try:
            scheme = urlsplit(value.get_secret_value().strip()).scheme
        except ValueError:
            scheme = ""
        if scheme not in allowed:
            raise ValueError("ADVISOR_RATE_LIMIT_STORAGE_URL must be a `limits` storage URI with one of the schemes "
                             f"{', '.join(allowed)} (e.g. redis://host:6379/0)")
        # The storage's client library (redis for redis://, valkey for valkey://, pymongo for mongodb://) must be installed.
        from importlib.util import find_spec

        needed = [d for d in SCHEMES[scheme].DEPENDENCIES if scheme.startswith(d)] or list(SCHEMES[scheme].DEPENDENCIES)
        missing = [d for d in needed if find_spec(d.split(".")[0]) is None]
        if missing:
            raise ValueError(f"ADVISOR_RATE_LIMIT_STORAGE_URL uses {scheme}://, which needs the Python package {', '.join(missing)}")
        return SecretStr(value.get_secret_value().strip())

    @field_validator("api_keys", "admin_keys", mode="before")
    @classmethod
    def _parse_keys(cls, value: object, info) -> object:
        return parse_key_list(value, f"ADVISOR_{info.field_name.upper()}")

    @field_validator("database_url", mode="after")
    @classmethod
    def _check_database_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not re.fullmatch(r"sqlite:///.+|postgresql(\+psycopg)?://[^/\s]+/[^/\s]+", value.get_secret_value()):
            raise ValueError("ADVISOR_DATABASE_URL must be a sqlite:/// URL (e.g. sqlite:///data/advisor.sqlite3) "
                             "or a postgresql://user:password@host:port/database URL")
        return value

    @property
    def server_database_url(self) -> str | None:
        """The postgresql:// URL when conversations live in a server database, else None (SQLite)."""
        url = self.database_url.get_secret_value() if self.database_url else ""
        return url if url.startswith("postgresql") else None

    @field_validator("llm_api_key", mode="after")
    @classmethod
    def _check_llm_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            key = value.get_secret_value()
            if not key.strip() or any(c.isspace() or not c.isprintable() for c in key.strip()):
                raise ValueError("ADVISOR_LLM_API_KEY is empty or has spaces or control characters inside it")
            return SecretStr(key.strip())
        return value

    @field_validator("widget_origins", "widget_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _refuse_placeholder_secrets(self) -> Settings:
        if self.environment != "production":
            return self
        if not self.api_keys:
            raise ValueError("ADVISOR_API_KEYS is empty: production refuses to run an open API; set at least one key")
        secrets = [*self.api_key_values, *self.admin_key_values]
        if set(self.api_key_values) & set(self.admin_key_values):
            raise ValueError("ADVISOR_ADMIN_KEYS must differ from ADVISOR_API_KEYS in production")
        if self.llm_api_key is not None:
            secrets.append(self.llm_api_key.get_secret_value())
        secrets += [s.get_secret_value() for s in (self.slack_bot_token, self.slack_signing_secret) if s is not None]
        for value in secrets:
            if is_placeholder(value):
                raise ValueError(
                    "a secret is still a placeholder value; set a real one before running in production"
                )
        # Keys are the only thing between the internet and the API: a short or patterned one can be guessed.
        # The message names the setting and the key's position, never the key.
        for env_name, keys in (("ADVISOR_API_KEYS", self.api_key_values), ("ADVISOR_ADMIN_KEYS", self.admin_key_values)):
            for position, key in enumerate(keys, 1):
                if is_weak_key(key):
                    raise ValueError(
                        f"{env_name}: key {position} of {len(keys)} is too short or too easy to guess for production; use at least "
                        f"{MIN_KEY_LENGTH} random characters, e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))'"
                    )
        return self

    @property
    def rate_limits_on(self) -> bool:
        return self.rate_limit_enabled if self.rate_limit_enabled is not None else self.environment != "test"

    @property
    def api_key_values(self) -> list[str]:
        return [k.get_secret_value() for k in self.api_keys]

    @property
    def admin_key_values(self) -> list[str]:
        return [k.get_secret_value() for k in self.admin_keys]

    @property
    def sqlite_path(self) -> Path:
        if self.database_url:
            return Path(self.database_url.get_secret_value().removeprefix("sqlite:///"))
        return self.data_dir / "advisor.sqlite3"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    def resolved_knowledge_dir(self) -> Path:
        if self.knowledge_dir is not None:
            return self.knowledge_dir
        from importlib.resources import files

        return Path(str(files("knowledge")))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
