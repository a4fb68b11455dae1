"""Alembic environment of the OSCE platform store (``judges.osce.platform.store``).

The store runs the migrations itself (``PlatformStore.open``): it hands its open connection over in
``config.attributes["connection"]``, so the upgrade runs inside the store's transaction on its async engine.
Without a connection the URL in ``sqlalchemy.url`` is used (an async driver: ``sqlite+aiosqlite``,
``postgresql+asyncpg``), and ``--sql`` (offline mode) writes the SQL instead of running it.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

config = context.config
target_metadata = config.attributes.get("target_metadata")


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


async def _run_from_url(url: str) -> None:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
elif (connection := config.attributes.get("connection")) is not None:
    _run(connection)
else:
    asyncio.run(_run_from_url(config.get_main_option("sqlalchemy.url")))
