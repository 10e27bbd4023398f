"""Conversations, messages and feedback, with owners, conversation keys and channels (as the SQLite store).

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("language", sa.Text),
        sa.Column("slots", Json, nullable=False),
        sa.Column("owner", sa.Text),
        sa.Column("conversation_key", sa.Text),
    )
    # Retention deletes by age.
    op.create_index("conversations_by_updated_at", "conversations", ["updated_at"])
    # One conversation per (owner, key); '' stands for "no owner" so NULL owners collide too.
    op.create_index(
        "conversations_by_key",
        "conversations",
        [sa.text("COALESCE(owner, '')"), "conversation_key"],
        unique=True,
        postgresql_where=sa.text("conversation_key IS NOT NULL"),
        sqlite_where=sa.text("conversation_key IS NOT NULL"),
    )
    op.create_table(
        "messages",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("conversation_id", sa.Text, sa.ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("role", sa.Text, sa.CheckConstraint("role IN ('user', 'assistant')"), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("answer", Json),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("channel", sa.Text),
    )
    op.create_index("messages_by_conversation", "messages", ["conversation_id", "seq"])
    op.create_table(
        "feedback",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("message_id", sa.Text, sa.ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
        sa.Column("rating", sa.Text, sa.CheckConstraint("rating IN ('up', 'down')"), nullable=False),
        sa.Column("comment", sa.Text),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("feedback_by_message", "feedback", ["message_id"])


def downgrade() -> None:
    op.drop_table("feedback")
    op.drop_table("messages")
    op.drop_table("conversations")
