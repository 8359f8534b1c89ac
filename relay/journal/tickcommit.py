"""Group commit for SQLite: the appends of many tables made in the same turn of the event loop share one
transaction.

One relay with its SQLite journal used to commit each action in a transaction of its own, on the event loop:
``BEGIN IMMEDIATE``, the inserts, ``COMMIT`` (WAL frames written, locks taken and released). Here an append
waits for the end of the loop's turn instead: every table that acted in that turn (the frames read from all
the sockets that were ready together) has its rows in the queue by then, and one callback commits them all
in one transaction (:meth:`relay.journal.sqlite.Store.append_many`), then answers each waiter. No timer: a
lone action, with nothing else ready to run on the loop, is committed at once, in place (as before: a
quiet relay pays nothing for the batching). Durability is unchanged: the commit is the
same synchronous SQLite commit with the same PRAGMAs, and nothing is acknowledged before it returned,
since :meth:`TickCommit.append` returns only then (the caller folds, broadcasts and acks after it).

A batch that fails (a seq already journaled: StoreError; the disk full, read-only, I/O: sqlite3.Error) has
written nothing, and is replayed one append per transaction, so that each append gets the outcome it would
have had alone: only the clashing table fails, and a disk that is full fails every action that cannot fit.
An append whose waiter is cancelled before its batch is committed is left out of it (nothing written); one
cancelled after the commit finishes its step first (see :meth:`TickCommit.append`).
"""

from __future__ import annotations

import asyncio
import copy
import sqlite3
from collections.abc import Sequence
from typing import Final, Protocol

from relay.journal.base import JsonObject
from relay.journal.sqlite import AppendRow, FrameRow, StoreError

# At most this many appends in one transaction (more in one turn of the loop: several transactions).
MAX_BATCH: Final = 512


class BatchStore(Protocol):
    """What the group commit needs of relay.journal.sqlite.Store."""

    def append_many(self, items: Sequence[AppendRow]) -> None: ...


class TickCommit:
    """Gathers the appends made during one turn of the event loop and commits them together at its end."""

    def __init__(self, store: BatchStore, *, max_batch: int = MAX_BATCH) -> None:
        self.store = store
        self.max_batch = max_batch
        self._queue: list[tuple[AppendRow, asyncio.Future[None]]] = []
        self._scheduled = False
        self.batches = 0  # transactions committed or tried (tests, bench)
        self.appends = 0

    async def append(
        self,
        table_id: str,
        first_seq: int,
        events: Sequence[tuple[JsonObject, str | None]],
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None = None,
    ) -> None:
        """Returns once these rows are committed (:meth:`relay.journal.sqlite.Store.append`'s contract).
        Raises StoreError (a seq already journaled) or sqlite3.Error (I/O), nothing of them written.

        Cancelled while waiting for its batch: the rows are left out of it. Cancelled once its batch is
        committed (the answer was on its way): returns normally and the cancellation is delivered at the
        caller's next suspension, as when the commit was synchronous, so that the table's memory follows
        its journal."""
        loop = asyncio.get_running_loop()
        row = AppendRow(table_id, first_seq, events, status, now_ms, frame)
        if not self._queue and not getattr(loop, "_ready", True):
            # Nothing else is ready to run in this turn of the loop (a quiet relay): no other table can join
            # this transaction, and waiting for the turn's end would only cost a wake-up. Committed at once,
            # as before the group commit. (``_ready``: asyncio's queue of callbacks; another loop: wait.)
            self.batches += 1
            self.appends += 1
            self.store.append_many((row,))
            return
        future: asyncio.Future[None] = loop.create_future()
        self._queue.append((row, future))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        try:
            await future
        except asyncio.CancelledError:
            if not future.done() or future.cancelled() or future.exception() is not None:
                raise
            task = asyncio.current_task()
            if task is None:  # pragma: no cover - awaited outside a task
                raise
            task.uncancel()
            task.cancel()  # pending again: raised at the caller's next await that suspends

    def _flush(self) -> None:
        """The end of the loop's turn: commit what was queued (in batches of ``max_batch``)."""
        self._scheduled = False
        queue, self._queue = self._queue, []
        # A waiter cancelled meanwhile (its future cancelled with it): its rows are not written.
        queue = [entry for entry in queue if not entry[1].done()]
        for start in range(0, len(queue), self.max_batch):
            self._commit(queue[start : start + self.max_batch])

    def _commit(self, batch: list[tuple[AppendRow, asyncio.Future[None]]]) -> None:
        items = [item for item, _ in batch]
        outcomes: Sequence[BaseException | None]
        try:
            self.store.append_many(items)
            outcomes = [None] * len(items)
        except (StoreError, sqlite3.Error) as exc:
            outcomes = self._replay(items) if len(items) > 1 else [exc]
        except Exception as exc:  # a bug: still answers every waiter, none acknowledged
            outcomes = [_copy(exc) for _ in items]
        self.batches += 1
        self.appends += len(items)
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():
                continue
            if outcome is None:
                future.set_result(None)
            else:
                future.set_exception(outcome)

    def _replay(self, items: list[AppendRow]) -> list[BaseException | None]:
        # Nothing of the batch was written: one transaction per append finds the one(s) that fail.
        out: list[BaseException | None] = []
        for item in items:
            try:
                self.store.append_many((item,))
            except (StoreError, sqlite3.Error) as exc:
                out.append(exc)
            else:
                out.append(None)
        return out


def _copy(exc: Exception) -> Exception:
    # One exception object per waiter: each is raised (and gets a traceback) in its own task.
    try:
        new = copy.copy(exc)
    except Exception:  # pragma: no cover - an exception that cannot be copied
        return exc
    new.__cause__ = exc
    return new
