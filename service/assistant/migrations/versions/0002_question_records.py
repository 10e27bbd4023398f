"""Question records for operator analytics (service/analytics/): one row per answered question.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    # No foreign key to conversations: the counts outlive a deleted conversation (its stored text is cleared instead).
    op.create_table(
        "question_records",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("language", sa.Text),
        sa.Column("intent", sa.Text),
        sa.Column("runner_up", sa.Text),
        sa.Column("intent_score", sa.Float),
        sa.Column("domain_similarity", sa.Float),
        sa.Column("tools", Json, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("retrieval_confidence", sa.Float),
        sa.Column("total_ms", sa.Float, nullable=False),
        sa.Column("stages_ms", Json, nullable=False),
        sa.Column("conversation_id", sa.Text),
        sa.Column("message_id", sa.Text),
        sa.Column("question", sa.Text),
    )
    # The report reads a time window; retention deletes by age; feedback joins on the message id.
    op.create_index("question_records_by_time", "question_records", ["created_at"])
    op.create_index("question_records_by_message", "question_records", ["message_id"])
    op.create_index("question_records_by_conversation", "question_records", ["conversation_id"])


def downgrade() -> None:
    op.drop_table("question_records")
