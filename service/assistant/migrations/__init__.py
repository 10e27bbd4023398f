"""Alembic migrations of the server conversation store (SqlConversationStore).

Run at start-up by the store itself (no `alembic` command needed); idempotent: an up-to-date database
is left alone. `upgrade(conn)` runs inside the caller's transaction.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, text

HERE = Path(__file__).resolve().parent
# Any constant: the key of the PostgreSQL advisory lock that serialises concurrent upgrades (several workers start at once).
_LOCK_KEY = 0x61647669


def alembic_config(conn: Connection | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["connection"] = conn
    return config


def upgrade(conn: Connection, revision: str = "head") -> None:
    from alembic import command

    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
    command.upgrade(alembic_config(conn), revision)
