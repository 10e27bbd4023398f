"""Conversations, messages and feedback in a server database (PostgreSQL) through SQLAlchemy 2.

Selected when ADVISOR_DATABASE_URL is a postgresql:// URL (service/runtime.py); the embedded default stays
SqliteConversationStore. Same protocol, same semantics (owners, keys, channels), so several workers or
hosts can share one conversation store. The schema is owned by Alembic (service/assistant/migrations/)
and upgraded at start-up; concurrent starts are serialised by an advisory lock there.

A database that cannot be reached raises StoreUnavailableError (HTTP 503 in the user's language); the
connection pool pre-pings, so the store recovers by itself when the server is back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, create_engine, delete, func, insert, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError

from service.assistant.migrations import schema as t
from service.assistant.store import Conversation, StoredMessage, new_id
from service.errors import StoreUnavailableError

T = TypeVar("T")


def engine_url(url: str) -> str:
    """postgresql://... -> postgresql+psycopg://... (psycopg 3); other drivers named explicitly are kept."""
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


class SqlConversationStore:
    def __init__(self, url: str, *, migrate: bool = True, connect_timeout_s: int = 5) -> None:
        self._engine = create_engine(
            engine_url(url),
            pool_pre_ping=True,
            pool_size=5,
            max_overflow=5,
            pool_timeout=10,
            connect_args={"connect_timeout": connect_timeout_s},
        )
        if migrate:
            self._guard(self.migrate)

    def migrate(self) -> None:
        from service.assistant.migrations import upgrade

        with self._engine.begin() as conn:
            upgrade(conn)

    # -- plumbing ----------------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self._engine.begin() as conn:
            yield conn

    def _guard(self, work: Callable[[], T]) -> T:
        """Run `work`; an unreachable database becomes StoreUnavailableError (a 503, not a 500)."""
        try:
            return work()
        except (OperationalError, InterfaceError) as exc:
            raise StoreUnavailableError(f"the conversation database cannot be reached ({type(exc.orig or exc).__name__})") from exc

    # -- protocol ----------------------------------------------------------------
    def create(self, *, owner: str | None = None, key: str | None = None) -> str:
        cid, now = new_id("conv"), time.time()

        def work() -> None:
            with self._tx() as c:
                c.execute(
                    insert(t.conversations).values(id=cid, created_at=now, updated_at=now, owner=owner, conversation_key=key, slots={})
                )

        self._guard(work)
        return cid

    def exists(self, conversation_id: str, *, owner: str | None = None) -> bool:
        return self.get_row(conversation_id, owner) is not None

    def get_row(self, conversation_id: str, owner: str | None) -> Any:
        query = select(t.conversations).where(t.conversations.c.id == conversation_id, t.conversations.c.owner.is_not_distinct_from(owner))

        def work() -> Any:
            with self._tx() as c:
                return c.execute(query).first()

        return self._guard(work)

    def find_key(self, key: str, *, owner: str | None = None) -> str | None:
        query = select(t.conversations.c.id).where(
            t.conversations.c.conversation_key == key, t.conversations.c.owner.is_not_distinct_from(owner)
        )

        def work() -> str | None:
            with self._tx() as c:
                return c.execute(query).scalar()

        return self._guard(work)

    def bind_key(self, key: str, *, owner: str | None = None, conversation_id: str | None = None) -> str | None:
        """As SqliteConversationStore.bind_key. Two first requests with the same new key race on the unique index:
        the loser's insert fails and it retries, finding the winner's conversation."""
        conv = t.conversations

        def attempt() -> str | None:
            with self._tx() as c:
                found = c.execute(
                    select(conv.c.id).where(conv.c.conversation_key == key, conv.c.owner.is_not_distinct_from(owner))
                ).scalar()
                if found is not None:
                    return found
                if conversation_id is not None:
                    updated = c.execute(
                        update(conv)
                        .where(conv.c.id == conversation_id, conv.c.owner.is_not_distinct_from(owner), conv.c.conversation_key.is_(None))
                        .values(conversation_key=key)
                    ).rowcount
                    return conversation_id if updated else None
                cid, now = new_id("conv"), time.time()
                c.execute(insert(conv).values(id=cid, created_at=now, updated_at=now, owner=owner, conversation_key=key, slots={}))
                return cid

        for _ in range(3):
            try:
                return self._guard(attempt)
            except IntegrityError:
                continue
        return self._guard(attempt)

    def slots(self, conversation_id: str) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            with self._tx() as c:
                return c.execute(select(t.conversations.c.slots).where(t.conversations.c.id == conversation_id)).scalar() or {}

        return self._guard(work)

    def get(self, conversation_id: str, *, owner: str | None = None) -> Conversation | None:
        conv, msg = t.conversations, t.messages

        def work() -> Conversation | None:
            with self._tx() as c:
                row = c.execute(select(conv).where(conv.c.id == conversation_id, conv.c.owner.is_not_distinct_from(owner))).first()
                if row is None:
                    return None
                rows = c.execute(select(msg).where(msg.c.conversation_id == conversation_id).order_by(msg.c.seq)).all()
            messages = [
                StoredMessage(id=r.id, role=r.role, content=r.content, created_at=r.created_at, answer=r.answer, channel=r.channel)
                for r in rows
            ]
            return Conversation(
                id=row.id,
                conversation_key=row.conversation_key,
                created_at=row.created_at,
                updated_at=row.updated_at,
                language=row.language,
                slots=row.slots or {},
                messages=messages,
            )

        return self._guard(work)

    def save_turn(
        self,
        conversation_id: str,
        user_text: str,
        answer: dict[str, Any],
        slots: dict[str, Any],
        language: str,
        *,
        channel: str | None = None,
    ) -> None:
        """The question, the answer and the updated slots, in one transaction. The conversation row is locked
        first, so two turns of one conversation on two workers get distinct sequence numbers."""
        conv, msg = t.conversations, t.messages
        now = time.time()

        def work() -> None:
            with self._tx() as c:
                c.execute(select(conv.c.id).where(conv.c.id == conversation_id).with_for_update())
                seq = c.execute(select(func.coalesce(func.max(msg.c.seq), 0)).where(msg.c.conversation_id == conversation_id)).scalar()
                c.execute(
                    insert(msg).values(
                        id=new_id("msg"),
                        conversation_id=conversation_id,
                        seq=seq + 1,
                        role="user",
                        content=user_text,
                        created_at=now,
                        channel=channel,
                    )
                )
                c.execute(
                    insert(msg).values(
                        id=answer["message_id"],
                        conversation_id=conversation_id,
                        seq=seq + 2,
                        role="assistant",
                        content=answer["answer"],
                        answer=answer,
                        created_at=now,
                        channel=channel,
                    )
                )
                c.execute(update(conv).where(conv.c.id == conversation_id).values(updated_at=now, language=language, slots=slots))

        self._guard(work)

    def message_exists(self, message_id: str, *, owner: str | None = None) -> bool:
        conv, msg = t.conversations, t.messages
        query = (
            select(msg.c.id)
            .join(conv, conv.c.id == msg.c.conversation_id)
            .where(msg.c.id == message_id, msg.c.role == "assistant", conv.c.owner.is_not_distinct_from(owner))
        )

        def work() -> bool:
            with self._tx() as c:
                return c.execute(query).first() is not None

        return self._guard(work)

    def add_feedback(self, message_id: str, rating: str, comment: str | None) -> str:
        fid = new_id("fb")

        def work() -> None:
            with self._tx() as c:
                c.execute(insert(t.feedback).values(id=fid, message_id=message_id, rating=rating, comment=comment, created_at=time.time()))

        self._guard(work)
        return fid

    def delete(self, conversation_id: str, *, owner: str | None = None) -> bool:
        """Messages and feedback go with it (ON DELETE CASCADE)."""
        conv = t.conversations

        def work() -> bool:
            with self._tx() as c:
                return c.execute(delete(conv).where(conv.c.id == conversation_id, conv.c.owner.is_not_distinct_from(owner))).rowcount > 0

        return self._guard(work)

    def delete_older_than(self, cutoff: float) -> int:
        def work() -> int:
            with self._tx() as c:
                return c.execute(delete(t.conversations).where(t.conversations.c.updated_at < cutoff)).rowcount

        return self._guard(work)

    def ping(self) -> None:
        def work() -> None:
            with self._engine.connect() as c:
                c.execute(text("SELECT 1"))

        self._guard(work)

    def close(self) -> None:
        self._engine.dispose()
