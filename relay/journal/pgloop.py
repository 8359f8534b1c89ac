"""The group commit's own PostgreSQL connection, driven by the relay's event loop (cluster mode).

relay/journal/groupcommit.py commits one batch at a time. In a worker thread, each batch cost two hand-offs
between
threads: the loop waking a worker, and the worker waking the loop through its self-pipe to answer every
waiter, each a context switch and a contest for the GIL with the loop. Three relays on one machine get
batches a third of the size, so they paid those hand-offs three times as often per action. Here the batch's
one statement is sent and awaited on the loop itself (psycopg's AsyncConnection, autocommit: the statement is
its own transaction); nothing else changes: the same document, the same fence, the same outcomes as
relay.journal.postgres.PostgresStore.append_many.

One connection, opened on the first batch and again after a failure: the group commit sends one batch at a
time, so one connection is all it uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

import psycopg
from psycopg import errors
from psycopg.rows import TupleRow

from relay.journal.base import JournalUnavailable, redact_url
from relay.journal.postgres import APPEND_MANY, UNAVAILABLE, batch_clash, batch_document, batch_outcomes
from relay.journal.sqlite import StoreError

if TYPE_CHECKING:
    from relay.journal.groupcommit import Append


class LoopWriter:
    """``append_many`` on the event loop, for relay.journal.groupcommit.GroupCommit."""

    def __init__(self, url: str, node_id: str, *, timeout: float = 5.0) -> None:
        self.url = url
        self.node_id = node_id
        self.timeout = timeout
        self._conn: psycopg.AsyncConnection[TupleRow] | None = None

    async def append_many(self, items: Sequence[Append]) -> list[StoreError | None]:
        """As relay.journal.postgres.PostgresStore.append_many: per item None (committed) or NotOwner
        stale_epoch.
        Raises StoreError (a seq taken: nothing of the batch written), JournalUnavailable (PostgreSQL
        unreachable or failing: the outcome may be unknown; the next call reconnects)."""
        doc = batch_document(items)
        try:
            conn = await self._connection()
            cursor = await conn.execute(APPEND_MANY, (doc, self.node_id))
            rows = await cursor.fetchall()
        except errors.UniqueViolation as exc:
            raise batch_clash(items, exc) from exc
        except UNAVAILABLE as exc:
            await self._discard()
            raise JournalUnavailable(f"journal at {redact_url(self.url)}: {exc}") from exc
        except asyncio.CancelledError:
            # The statement's outcome is unknown and the connection may be mid-protocol: never reuse it.
            self._abandon()
            raise
        return batch_outcomes(items, rows, self.node_id)

    async def close(self) -> None:
        await self._discard()

    async def _connection(self) -> psycopg.AsyncConnection[TupleRow]:
        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(
                self.url,
                autocommit=True,
                connect_timeout=max(1, int(self.timeout)),
                application_name="lexio-commit",
            )
        return self._conn

    async def _discard(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.closed:
            try:
                await conn.close()
            except psycopg.Error:
                conn.pgconn.finish()

    def _abandon(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.pgconn.finish()  # closes the socket at once, no round trip (we may be cancelled)
