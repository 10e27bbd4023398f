"""The one place that reads the environment.

Every option comes from an environment variable (prefix ``ADVISOR_``) or from
``.env`` in the working directory. Nothing else in the code base reads
``os.environ``; components receive a ``Settings`` instance instead.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PLACEHOLDER_SECRETS = {"changethis", "change-me", "changeme", "secret", "placeholder", "xxx"}

CommaList = Annotated[list[str], NoDecode]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ADVISOR_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
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

    # Conversations and feedback: a sqlite:/// URL; default: advisor.sqlite3 in data_dir.
    # A server database plugs in by implementing service.assistant.store.ConversationStore.
    database_url: str | None = Field(default=None, pattern=r"^sqlite:///.+")

    # Access control: empty means open (local use).
    api_keys: CommaList = Field(default_factory=list)

    # Optional LLM writer (never trusted with numbers).
    llm_provider: Literal["none", "openai", "ollama"] = "none"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(default=20.0, gt=0, le=600)
    llm_max_tokens: int = Field(default=800, ge=16, le=8192)

    max_message_chars: int = Field(default=4000, ge=100, le=100_000)

    @field_validator("api_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _refuse_placeholder_secrets(self) -> Settings:
        if self.environment != "production":
            return self
        secrets = list(self.api_keys)
        if self.llm_api_key is not None:
            secrets.append(self.llm_api_key.get_secret_value())
        for value in secrets:
            if value.strip().lower() in PLACEHOLDER_SECRETS:
                raise ValueError(
                    "a secret is still a placeholder value; set a real one before running in production"
                )
        return self

    @property
    def sqlite_path(self) -> Path:
        if self.database_url:
            return Path(self.database_url.removeprefix("sqlite:///"))
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
