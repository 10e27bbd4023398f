"""The tables as SQLAlchemy Core objects, used by the store's queries. Migrations (versions/) create them;
a change here needs a new revision there."""

from __future__ import annotations

from sqlalchemy import JSON, CheckConstraint, Column, Float, ForeignKey, Integer, MetaData, Table, Text
from sqlalchemy.dialects.postgresql import JSONB

metadata = MetaData()
# JSONB on PostgreSQL, so analytics can query answers (intent, language, writer) in place.
Json = JSON().with_variant(JSONB(), "postgresql")

conversations = Table(
    "conversations",
    metadata,
    Column("id", Text, primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("language", Text),
    Column("slots", Json, nullable=False),
    Column("owner", Text),
    Column("conversation_key", Text),
)
messages = Table(
    "messages",
    metadata,
    Column("id", Text, primary_key=True),
    Column("conversation_id", Text, ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("role", Text, CheckConstraint("role IN ('user', 'assistant')"), nullable=False),
    Column("content", Text, nullable=False),
    Column("answer", Json),
    Column("created_at", Float, nullable=False),
    Column("channel", Text),
)
feedback = Table(
    "feedback",
    metadata,
    Column("id", Text, primary_key=True),
    Column("message_id", Text, ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
    Column("rating", Text, CheckConstraint("rating IN ('up', 'down')"), nullable=False),
    Column("comment", Text),
    Column("created_at", Float, nullable=False),
)
