"""Alembic environment: always online, on the connection the store hands over (see __init__.upgrade)."""

from __future__ import annotations

from alembic import context

from service.assistant.migrations.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through service.assistant.migrations.upgrade(connection)")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
