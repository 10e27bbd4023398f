"""Question records in the server database (PostgreSQL), beside conversations (service/assistant/store_sql.py).

The table is created by the Alembic revision 0002 (service/assistant/migrations/versions/); the conversation
store runs the migrations at start-up, so this store only queries. An unreachable database raises
StoreUnavailableError like the conversation store; the Recorder turns that into a logged, counted miss.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import JSON, Column, Float, MetaData, Table, Text, create_engine, delete, insert, select, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import make_url
from sqlalchemy.exc import InterfaceError, OperationalError

from service.analytics.records import QuestionRecord
from service.analytics.store import COLUMNS, FeedbackItem, from_row
from service.errors import StoreUnavailableError

T = TypeVar("T")
metadata = MetaData()
Json = JSON().with_variant(JSONB(), "postgresql")
# As created by revision 0002; a change here needs a new revision there.
question_records = Table(
    "question_records", metadata,
    Column("id", Text, primary_key=True), Column("created_at", Float, nullable=False), Column("channel", Text, nullable=False),
    Column("language", Text), Column("intent", Text), Column("runner_up", Text), Column("intent_score", Float),
    Column("domain_similarity", Float), Column("tools", Json, nullable=False), Column("outcome", Text, nullable=False),
    Column("retrieval_confidence", Float), Column("total_ms", Float, nullable=False), Column("stages_ms", Json, nullable=False),
    Column("conversation_id", Text), Column("message_id", Text), Column("question", Text),
)  # fmt: skip
feedback = Table(
    "feedback", MetaData(), Column("id", Text), Column("message_id", Text), Column("rating", Text), Column("comment", Text), Column("created_at", Float)
)


def engine_url(url: str) -> str:
    """postgresql://... -> postgresql+psycopg://... (psycopg 3), as the conversation store does (not imported: analytics sits below it)."""
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


class SqlAnalyticsStore:
    def __init__(self, url: str, *, connect_timeout_s: int = 5) -> None:
        self._engine = create_engine(
            engine_url(url), pool_pre_ping=True, pool_size=2, max_overflow=2, pool_timeout=10, connect_args={"connect_timeout": connect_timeout_s}
        )

    def _guard(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except (OperationalError, InterfaceError) as exc:
            raise StoreUnavailableError(f"the analytics database cannot be reached ({type(exc.orig or exc).__name__})") from exc

    def add(self, record: QuestionRecord) -> None:
        def work() -> None:
            with self._engine.begin() as c:
                c.execute(insert(question_records).values(**record.model_dump()))

        self._guard(work)

    def records(self, since: float) -> list[QuestionRecord]:
        query = (
            select(*[question_records.c[name] for name in COLUMNS])
            .where(question_records.c.created_at >= since)
            .order_by(question_records.c.created_at, question_records.c.id)
        )

        def work() -> list[QuestionRecord]:
            with self._engine.begin() as c:
                return [from_row(tuple(r)) for r in c.execute(query)]

        return self._guard(work)

    def feedback(self, since: float) -> list[FeedbackItem]:
        query = (
            select(feedback.c.message_id, feedback.c.rating, feedback.c.comment, feedback.c.created_at)
            .where(feedback.c.created_at >= since)
            .order_by(feedback.c.created_at.desc(), feedback.c.id)
        )

        def work() -> list[FeedbackItem]:
            with self._engine.begin() as c:
                return [FeedbackItem(message_id=r[0], rating=r[1], comment=r[2], created_at=r[3]) for r in c.execute(query)]

        return self._guard(work)

    def forget_text(self, conversation_id: str) -> int:
        def work() -> int:
            with self._engine.begin() as c:
                return c.execute(
                    update(question_records)
                    .where(question_records.c.conversation_id == conversation_id, question_records.c.question.is_not(None))
                    .values(question=None)
                ).rowcount

        return self._guard(work)

    def delete_older_than(self, cutoff: float) -> int:
        def work() -> int:
            with self._engine.begin() as c:
                return c.execute(delete(question_records).where(question_records.c.created_at < cutoff)).rowcount

        return self._guard(work)

    def close(self) -> None:
        self._engine.dispose()
