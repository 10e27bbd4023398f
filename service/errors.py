"""Every exception the advisor raises on purpose, in one tree.

    AdvisorError
    ├── CatalogError          a hardware/model/instance catalog entry is invalid; start-up fails
    ├── KnowledgeFileError    a knowledge document is malformed; ingest fails, the serving index is untouched
    ├── InputError            user input cannot be used as given: HTTP 422, CLI exit code 2
    │   ├── UnknownNameError  a GPU, model or instance name the catalogs do not know (carries suggestions)
    │   └── InputConflictError  values that are each valid but contradict each other (bf16 on a T4)
    ├── RetrievalError        the index is missing or its backend failed
    │   ├── IndexCorruptError the embedded Chroma files are damaged: permanent until `advisor ingest --rebuild`
    │   └── IndexOpenError    the index failed to open: permanent (with its repair) unless the cause says it heals
    ├── StoreUnavailableError the conversation database cannot be reached (or is busy): transient, HTTP 503
    ├── StoreDamagedError     the SQLite store is corrupt, truncated or read-only: permanent until repaired, HTTP 503
    └── LLMError              the optional LLM writer failed or timed out; the pipeline falls back

Messages that reach users are bilingual (``Problem.en`` / ``Problem.zh``); the
channel picks the language of the request.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one field, said in both languages."""

    field: str
    en: str
    zh: str
    allowed: str | None = None
    suggestions: tuple[str, ...] = ()

    def text(self, language: str = "en") -> str:
        return self.zh if language == "zh" else self.en

    def as_dict(self, language: str = "en") -> dict[str, object]:
        out: dict[str, object] = {"field": self.field, "message": self.text(language)}
        if self.allowed:
            out["allowed"] = self.allowed
        if self.suggestions:
            out["suggestions"] = list(self.suggestions)
        return out


class AdvisorError(Exception):
    """Base of every deliberate error in the advisor."""


class CatalogError(AdvisorError):
    """A catalog file is malformed. The message names the file, the entry and the field."""

    def __init__(self, path: str, entry: str | None, field_name: str | None, reason: str) -> None:
        self.path, self.entry, self.field_name, self.reason = path, entry, field_name, reason
        where = path
        if entry:
            where += f", entry '{entry}'"
        if field_name:
            where += f", field '{field_name}'"
        super().__init__(f"{where}: {reason}")


class KnowledgeFileError(AdvisorError):
    """A knowledge document cannot be parsed. The message names the file and line."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path, self.line, self.reason = path, line, reason
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {reason}")


@dataclass
class InputError(AdvisorError):
    """User input that cannot be used. Maps to HTTP 422 and CLI exit code 2."""

    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__("; ".join(f"{p.field}: {p.en}" for p in self.problems))

    def message(self, language: str = "en") -> str:
        return "; ".join(f"{p.field}: {p.text(language)}" for p in self.problems)


class UnknownNameError(InputError):
    """A name the catalogs do not know; ``problems[0].suggestions`` holds the closest known names."""


class InputConflictError(InputError):
    """Inputs that each pass validation but cannot be combined."""


class RetrievalError(AdvisorError):
    """The knowledge index is missing or its backend failed."""


class IndexCorruptError(RetrievalError):
    """The embedded index's files are damaged (e.g. chroma.sqlite3 "database disk image is malformed").

    Unlike a busy or unreachable backend this does not heal by retrying: it is permanent until the
    index is rebuilt, so the message carries the repair command.
    """

    permanent = True
    repair = "advisor ingest --rebuild"

    def __init__(self, location: str, detail: str) -> None:
        self.location, self.detail = location, detail
        super().__init__(f"the knowledge index in {location} is corrupt ({detail}); repair it with `{self.repair}`")


class IndexOpenError(RetrievalError):
    """The index failed to open. Permanent, with the repair `advisor ingest --rebuild`, unless the cause says otherwise:
    the one reading of the cause that /readyz and a refused chat share, so they never disagree."""

    def __init__(self, cause: BaseException) -> None:
        self.cause = cause
        self.permanent = bool(getattr(cause, "permanent", True))
        self.repair = getattr(cause, "repair", None) or IndexCorruptError.repair
        super().__init__(f"the knowledge index failed to open: {cause}")


class StoreUnavailableError(AdvisorError):
    """The conversation database (a PostgreSQL server) cannot be reached; heals by itself when it returns (HTTP 503)."""


class StoreDamagedError(AdvisorError):
    """The SQLite store file is damaged or cannot be written: it does not heal by retrying (HTTP 503 naming the repair).

    kind: "corrupt" (not a database, malformed pages, truncated), "read_only" or "unopenable". The words users read for
    each kind live in service/assistant/messages/fault.*.yaml (service/assistant/store_faults.py says them).
    """

    permanent = True

    def __init__(self, path: str, kind: str, detail: str) -> None:
        self.path, self.kind, self.detail = path, kind, detail
        super().__init__(f"the conversation store {path} is {kind.replace('_', '-')} ({detail})")


class LLMError(AdvisorError):
    """The optional LLM writer failed, timed out or produced an unusable answer."""
