"""Group commit for cluster mode: the fenced appends of many tables share one PostgreSQL transaction.

One action's append used to be one transaction from one worker thread: a thread hand-off, a pooled
connection, four or five round trips and a commit: about half of the relay's CPU per action
(bench/cluster.py, 500 tables: 1,683 us per action before, 879 us after). Here the appends that arrive
while a commit is in flight wait for it to return, then all go together in the next one (no timer: a lone
action is committed at once). In that one transaction each append is still fenced by its own table's epoch
(relay.journal.postgres.PostgresStore.append_many): a table another node claimed is refused alone, with
NotOwner stale_epoch, and the others commit. Nothing is acknowledged before its commit returns:
:meth:`GroupCommit.append` returns only then.

A batch refused as a whole for a clash (a seq already journaled, StoreError) is replayed one append per
transaction, so that only the clashing one fails. A batch failing because PostgreSQL is unreachable fails
every append in it with JournalUnavailable, as each would have on its own (the caller drops those tables).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Protocol

from relay.journal.base import JournalUnavailable, JsonObject
from relay.journal.postgres import NotOwner
from relay.journal.sqlite import FrameRow, StoreError

# At most this many appends in one transaction (the rest wait for the next one).
MAX_BATCH = 512


@dataclass(frozen=True, slots=True)
class Append:
    """One action's rows for one table, fenced at ``epoch`` (this node's claim on the table)."""

    table_id: str
    first_seq: int
    events: Sequence[tuple[JsonObject, str | None]]
    status: str | None
    now_ms: int
    epoch: int
    frame: FrameRow | None = None


class BatchStore(Protocol):
    """What the group commit needs of relay.journal.postgres.PostgresStore."""

    def append_many(self, items: Sequence[Append]) -> list[StoreError | None]: ...

    def append(
        self,
        table_id: str,
        first_seq: int,
        events: Sequence[tuple[JsonObject, str | None]],
        *,
        status: str | None,
        now_ms: int,
        epoch: int | None = None,
        frame: FrameRow | None = None,
    ) -> None: ...


class LoopBatchWriter(Protocol):
    """A batch's commit awaited on the event loop (relay.journal.pgloop.LoopWriter)."""

    async def append_many(self, items: Sequence[Append]) -> list[StoreError | None]: ...


class GroupCommit:
    """Gathers appends on the event loop and commits them in batches, one batch at a time: on the loop
    through ``writer`` if given, else in ``executor``. A batch refused for a clash is replayed one append
    per transaction in ``executor``."""

    def __init__(
        self,
        store: BatchStore,
        executor: Executor,
        *,
        writer: LoopBatchWriter | None = None,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self.store = store
        self.executor = executor
        self.writer = writer
        self.max_batch = max_batch
        self._queue: list[tuple[Append, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.batches = 0  # transactions committed or tried (metrics, tests)
        self.appends = 0

    async def append(self, item: Append) -> None:
        """Returns once ``item`` is committed. Raises NotOwner (refused: its table's epoch is stale),
        StoreError (a seq already journaled), JournalUnavailable (the outcome is unknown or nothing was
        written: PostgreSQL failing); nothing of ``item`` was written in the first two cases."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        await future

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            items = [item for item, _ in batch]
            outcomes: list[BaseException | None]
            try:
                outcomes = list(await self._commit_batch(loop, items))
            except asyncio.CancelledError:
                # The executor was shut down (the relay is stopping) or this task cancelled: whether the
                # batch committed is unknown, so nobody waiting may be acknowledged.
                gone = JournalUnavailable("the journal's worker stopped before the commit returned")
                for _, future in batch + self._queue:
                    if not future.done():
                        future.set_exception(_unavailable(gone))
                self._queue = []
                raise
            except JournalUnavailable as exc:
                outcomes = [_unavailable(exc) for _ in items]
            except Exception as exc:  # an unexpected failure still answers every waiter
                outcomes = [exc for _ in items]
            self.batches += 1
            self.appends += len(items)
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():  # its waiter was cancelled
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)

    async def _commit_batch(
        self, loop: asyncio.AbstractEventLoop, items: list[Append]
    ) -> Sequence[BaseException | None]:
        if self.writer is None:
            return await loop.run_in_executor(self.executor, self._commit, items)
        try:
            return await self.writer.append_many(items)
        except NotOwner:
            raise
        except StoreError:
            return await loop.run_in_executor(self.executor, self._replay, items)

    def _commit(self, items: list[Append]) -> Sequence[BaseException | None]:
        # A worker thread.
        try:
            return self.store.append_many(items)
        except NotOwner:
            raise
        except StoreError:
            return self._replay(items)

    def _replay(self, items: list[Append]) -> Sequence[BaseException | None]:
        # A worker thread. Nothing of the batch was written: one transaction per append finds the clashing
        # one(s).
        if len(items) == 1:
            return [StoreError(f"table {items[0].table_id}: seq {items[0].first_seq} already journaled")]
        out: list[BaseException | None] = []
        for it in items:
            try:
                self.store.append(
                    it.table_id,
                    it.first_seq,
                    it.events,
                    status=it.status,
                    now_ms=it.now_ms,
                    epoch=it.epoch,
                    frame=it.frame,
                )
            except (StoreError, JournalUnavailable) as exc:
                out.append(exc)
            else:
                out.append(None)
        return out


def _unavailable(exc: JournalUnavailable) -> JournalUnavailable:
    # One exception object per waiter: each is raised (and gets a traceback) in its own task.
    new = JournalUnavailable(str(exc))
    new.__cause__ = exc
    return new
