"""Cluster mode: which relay owns which table, and how it stops owning it (docs/architecture.md, "Several
relays").

PostgreSQL is the only thing safety rests on (relay/journal/postgres.py holds the SQL):

* a heartbeat thread renews this node's row every :data:`HEARTBEAT_SECONDS` on its own connection (which also
  holds the node's advisory lock, so a kill -9 frees its tables at once) and measures the offset between this
  machine's clock and PostgreSQL's: :meth:`Ownership.now_ms` is the cluster's clock, so a deadline set by
  one relay falls at the same instant on another, whatever their own clocks say;
* a table is claimed lazily (:meth:`Ownership.acquire`, when a socket for it arrives) with an epoch, and every
  append passes that epoch: the store checks it in the same transaction as the insert;
* a node whose last successful heartbeat is older than :data:`STALE_AFTER_SECONDS` (cut from PostgreSQL,
  paused, overloaded) is unhealthy: /healthz answers 503, it acknowledges nothing and drops every table
  (sockets closed with 1012, the clients reconnect through the front). Another node may claim a table once the
  heartbeat is :data:`relay.journal.postgres.DEAD_AFTER_SECONDS` old, one second after this node stopped
  acknowledging. A heartbeat that returns more than that after the previous one was sent (the row may have
  aged past it meanwhile) is a lapse: every table is dropped, since another node may have claimed it. A table
  whose append is refused (another node's epoch) or fails is dropped the same way;
* SIGTERM drains (:meth:`Ownership.drain`): in-flight commits finish, every table is released in one
  transaction, then the referee closes the sockets with 1012.
* a correspondence game (turns in days) must reach its deadline even when nobody connects: each node
  adopts the ones no live node serves (relay/cluster/adoption.py).

Every PostgreSQL call runs in this module's worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, TypeVarTuple

from relay.cluster.adoption import Adoption
from relay.journal import JournalUnavailable, JsonObject
from relay.journal.groupcommit import Append, GroupCommit
from relay.journal.pgloop import LoopWriter
from relay.journal.postgres import DEAD_AFTER_SECONDS, NotOwner, PostgresStore
from relay.journal.sqlite import FrameRow, RematchRow, StoreError
from relay.logs import event as log_event

if TYPE_CHECKING:
    from relay.tables import Referee, Table

log = logging.getLogger("lexio.relay")
T = TypeVar("T")
Ts = TypeVarTuple("Ts")

HEARTBEAT_SECONDS = 1.0
# Past this without a successful heartbeat the node is unhealthy (others call it dead at 3 s).
STALE_AFTER_SECONDS = 2.0
# /healthz says ok only while the last heartbeat is this much younger than the stale limit: one held through a
# cut comes back with its freshness nearly spent, and the next (sent at once) must land before the front
# routes players here, or their first move would find the node stale and be refused.
READY_MARGIN_SECONDS = 0.5
# How often the event loop looks at the heartbeat's verdict.
WATCH_SECONDS = 0.1
# A drain waits this long for commits in flight before releasing anyway.
DRAIN_WAIT_SECONDS = 0.5
CLOSE_MOVED = 1012
# Clock offset samples kept; the one with the shortest round trip is believed (as NTP does).
OFFSET_SAMPLES = 8
# The lobby's list of other nodes' open tables is read from the journal at most this often.
LIST_CACHE_SECONDS = 1.0
# How often idle waiting tables are let go (see _release_idle).
IDLE_CHECK_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """Another live node owns the table: the socket is relayed to it (relay/cluster/bus.py)."""

    node_id: str


class Ownership:
    """This node's claims on tables, its heartbeat and its clock. Created by relay.app in cluster mode."""

    def __init__(
        self,
        referee: Referee,
        store: PostgresStore,
        *,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
        stale_after: float = STALE_AFTER_SECONDS,
        dead_after: float = DEAD_AFTER_SECONDS,
    ) -> None:
        self.referee = referee
        self.store = store
        self.node_id = store.node_id
        self.heartbeat_seconds = heartbeat_seconds
        self.stale_after = stale_after
        self.dead_after = dead_after
        self.ready_age = stale_after - READY_MARGIN_SECONDS
        self.epochs: dict[str, int] = {}
        self.draining = False
        self.offset_ms = 0
        self.executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="lexio-journal")
        # Appends share transactions (relay/journal/groupcommit.py), one in flight at a time.
        self.writer = LoopWriter(store.url, store.node_id, timeout=store.timeout)
        self.commits = GroupCommit(store, self.executor, writer=self.writer)
        self._guard = threading.Lock()
        self._last_ok: float | None = None  # monotonic time the last successful heartbeat was sent
        self._lapsed = False  # the row may have gone dead_after without renewal: tables may have moved
        self._samples: deque[tuple[float, int]] = deque(maxlen=OFFSET_SAMPLES)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Future[Table | Elsewhere | None]] = {}
        self._listed: tuple[float, list[Table]] | None = None
        self._live: tuple[float, list[Table]] | None = None  # other nodes' games in progress, when read
        self._failing = False
        self.adoption = Adoption(self)

    # -- heartbeat and clock (the heartbeat thread) ---------------------------------------------------------
    async def start(self) -> None:
        """First heartbeat (raises JournalUnavailable if PostgreSQL cannot be reached), then the thread and
        the watcher."""
        await self._off_loop(self.beat)
        # The first one also connected (and took the node's lock): its round trip says little of the clock.
        self._samples.clear()
        await self._off_loop(self.beat)
        self._thread = threading.Thread(target=self._beat_loop, name="lexio-heartbeat", daemon=True)
        self._thread.start()
        self._watcher = asyncio.get_running_loop().create_task(self._watch())
        self.adoption.start()
        log_event("node up", node=self.node_id, clock_offset_ms=self.offset_ms)

    def beat(self) -> None:
        """One heartbeat, and one clock sample. Raises JournalUnavailable."""
        sent, wall0 = time.monotonic(), time.time_ns()
        pg_ms = self.store.heartbeat()
        wall1, back = time.time_ns(), time.monotonic()
        with self._guard:
            # The row was written somewhere between ``sent`` and ``back``, the one before at or after the
            # previous ``sent``: others may have called this node dead only if that gap can exceed theirs.
            if self._last_ok is not None and back - self._last_ok > self.dead_after:
                self._lapsed = True
            self._last_ok = sent
            self._samples.append(((back - sent) * 1000, pg_ms - (wall0 + wall1) // 2_000_000))
            self.offset_ms = min(self._samples)[1]

    def _beat_loop(self) -> None:
        # One heartbeat per period whatever each takes (a slow one must not stretch the gap to the next).
        due = time.monotonic() + self.heartbeat_seconds
        while not self._stop.wait(max(0.0, due - time.monotonic())):
            due = max(due + self.heartbeat_seconds, time.monotonic())
            try:
                self.beat()
            except Exception as exc:
                if not self._failing:
                    log.warning(
                        "heartbeat failed", extra={"fields": {"node": self.node_id, "error": str(exc)}}
                    )
                self._failing = True
            else:
                if self._failing:
                    log_event("heartbeat back", node=self.node_id)
                self._failing = False

    def healthy(self) -> bool:
        """The heartbeat is fresh: this node may claim, commit and acknowledge."""
        with self._guard:
            last, lapsed = self._last_ok, self._lapsed
        return last is not None and not lapsed and time.monotonic() - last <= self.stale_after

    def heartbeat_age(self) -> float | None:
        with self._guard:
            last = self._last_ok
        return None if last is None else time.monotonic() - last

    def now_ms(self) -> int:
        """The cluster's clock: this machine's, corrected by PostgreSQL's as measured at the heartbeats."""
        return time.time_ns() // 1_000_000 + self.offset_ms

    def health(self) -> dict[str, bool | int | str | None]:
        """What /healthz says (``ok`` false: answer 503): healthy, not draining, and the last heartbeat young
        enough to stay fresh until the next one lands."""
        age = self.heartbeat_age()
        return {
            "ok": self.healthy() and not self.draining and age is not None and age <= self.ready_age,
            "node": self.node_id,
            "draining": self.draining,
            "heartbeat_age_ms": None if age is None else int(age * 1000),
            "clock_offset_ms": self.offset_ms,
        }

    async def _watch(self) -> None:
        idle_check = time.monotonic()
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            if time.monotonic() - idle_check >= IDLE_CHECK_SECONDS:
                idle_check = time.monotonic()
                self._release_idle()
            with self._guard:
                lapsed, self._lapsed = self._lapsed, False
            if lapsed:
                self.drop_all("the heartbeat lapsed: other relays may have taken its tables")
            elif not self.healthy() and self.referee.tables:
                self.drop_all("cannot renew the heartbeat")

    def _release_idle(self) -> None:
        """Let go of waiting tables nobody has been connected to for a while: they leave every node's lobby
        list (an owned table counts as served), and whichever node the next arrival reaches claims them."""
        from relay.tables import LISTED_GRACE_MS

        now = self.referee.now_ms()
        for table in list(self.referee.tables.values()):
            idle = table.empty_since is not None and now - table.empty_since >= LISTED_GRACE_MS
            nobody = not table.conns and not table.watchers and not table.lock.locked()
            if table.status in ("empty", "waiting") and idle and nobody:
                del self.referee.tables[table.id]
                self.let_go(table)

    # -- the lobby -----------------------------------------------------------------------------------------
    async def open_tables(self) -> list[Table]:
        """The lobby's list in cluster mode: this node's open tables as on one relay, and those other live
        nodes serve or nobody has claimed yet, read back from the journal (at most once a second)."""
        from relay.tables import LISTED_GRACE_MS

        local = self.referee.registry.open_tables()
        now = time.monotonic()
        if self._listed is None or now - self._listed[0] >= LIST_CACHE_SECONDS:
            since = self.referee.now_ms() - LISTED_GRACE_MS
            self._listed = (now, await self._off_loop(self._read_open, since))
        others = [t for t in self._listed[1] if t.id not in self.referee.tables and 0 < t.seat_count() < 4]
        return sorted([*local, *others], key=lambda t: t.created_ms, reverse=True)[:100]

    async def live_tables(self) -> list[Table]:
        """The games to watch in cluster mode: this node's public games in progress, and those other live
        nodes serve, read back from the journal (at most once a second)."""
        local = self.referee.registry.live_tables()
        now = time.monotonic()
        if self._live is None or now - self._live[0] >= LIST_CACHE_SECONDS:
            self._live = (now, await self._off_loop(self._read_live))
        others = [t for t in self._live[1] if t.id not in self.referee.tables]
        return sorted([*local, *others], key=lambda t: t.created_ms, reverse=True)

    def _read_live(self) -> list[Table]:
        out = []
        for row in self.store.live_tables():
            if row.id not in self.referee.tables:
                with contextlib.suppress(StoreError, ValueError, KeyError, TypeError):
                    out.append(self.referee.registry.load(row.id, row.public, row.created_ms))
        return out

    def _read_open(self, since: int) -> list[Table]:
        out = []
        for row in self.store.open_tables(created_since_ms=since):
            if row.id not in self.referee.tables:
                # One unreadable journal must not empty the lobby.
                with contextlib.suppress(StoreError, ValueError, KeyError, TypeError):
                    out.append(self.referee.registry.load(row.id, row.public, row.created_ms))
        return out

    # -- claims --------------------------------------------------------------------------------------------
    async def acquire(self, table_id: str) -> Table | Elsewhere | None:
        """The table, claimed for this node if it was not already (loaded from the journal; its seats' grace
        restarts now); Elsewhere if a live node owns it; None if there is no such table (or it was abandoned).
        Raises JournalUnavailable (unhealthy, draining, PostgreSQL failing), StoreError (bad journal)."""
        live = self.referee.tables.get(table_id)
        if live is not None:
            return live
        if self.draining or not self.healthy():
            raise JournalUnavailable(f"node {self.node_id} cannot claim tables now (unhealthy or draining)")
        pending = self._pending.get(table_id)
        if pending is None:
            pending = asyncio.ensure_future(self._claim(table_id))
            self._pending[table_id] = pending
            pending.add_done_callback(lambda _: self._pending.pop(table_id, None))
        return await asyncio.shield(pending)

    async def _claim(self, table_id: str) -> Table | Elsewhere | None:
        found = await self._off_loop(self._claim_and_load, table_id)
        if found is None or isinstance(found, Elsewhere):
            return found
        table, epoch = found
        if self.draining:
            raise JournalUnavailable(f"node {self.node_id} is draining")
        now = self.referee.now_ms()
        for seat in range(table.seat_count()):
            if not table.is_bot(seat):
                table.away_since[seat] = now  # the disconnect grace restarts at the claim
        self.referee.tables[table_id] = table
        self.epochs[table_id] = epoch
        self.referee.bots.schedule(table)
        log_event(
            "table claimed", table=table_id, node=self.node_id, epoch=epoch, seq=int(table.state.version)
        )
        return table

    def _claim_and_load(self, table_id: str) -> tuple[Table, int] | Elsewhere | None:
        # A worker thread: the claim, then the journal read at that epoch.
        for _ in range(3):
            row = self.store.table(table_id)
            if row is None or row.status == "abandoned":
                return None
            try:
                epoch = self.store.claim(table_id, renew=False)
            except NotOwner as exc:
                if exc.code != "owned_elsewhere":
                    raise
                owner = self.store.owner(table_id)
                if owner is not None and owner[0] is not None:
                    return Elsewhere(owner[0])
                continue  # released meanwhile: claim again
            return self.referee.registry.load(row.id, row.public, row.created_ms), epoch
        raise JournalUnavailable(f"table {table_id}: its owner keeps changing")

    async def read_table(self, table_id: str) -> Table | None:
        """A live table, or one rebuilt from the journal for reading (not claimed). Raises
        JournalUnavailable, StoreError."""
        live = self.referee.tables.get(table_id)
        if live is not None:
            return live
        return await self._off_loop(self.referee.registry.read_table, table_id)

    async def journal_table(
        self, table: Table, events: Sequence[JsonObject], link: RematchRow | None
    ) -> None:
        """Journal a new table, unclaimed (the node its first socket reaches claims it), off the event loop.
        Raises StoreError, and JournalUnavailable (this node unhealthy or draining, PostgreSQL failing)."""
        if self.draining or not self.healthy():
            raise JournalUnavailable(f"node {self.node_id} cannot write now (unhealthy or draining)")
        await self._off_loop(
            functools.partial(
                self.store.create_table,
                table.id,
                created_ms=table.created_ms,
                public=table.public,
                status=table.status,
                events=events,
                rematch=link,
            )
        )

    # -- fenced writes -------------------------------------------------------------------------------------
    async def append(
        self,
        table: Table,
        first_seq: int,
        rows: list[tuple[JsonObject, str | None]],
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None,
    ) -> None:
        """Commit an action's events at this node's epoch; returns once committed and still safe to
        acknowledge. Raises NotOwner (another node claimed the table), JournalUnavailable (PostgreSQL failing,
        this node unhealthy), StoreError: the table is then dropped (its sockets closed with 1012) and
        nothing may be acknowledged — though a commit may have landed, which a resend will learn."""
        epoch = self.epochs.get(table.id)
        if epoch is None or self.referee.tables.get(table.id) is not table or self.draining:
            raise NotOwner("stale_epoch", f"table {table.id} is no longer served by node {self.node_id}")
        if not self.healthy():
            self.drop(table, "cannot renew the heartbeat")
            raise JournalUnavailable(f"node {self.node_id} cannot renew its heartbeat: not acknowledging")
        try:
            await self.commits.append(Append(table.id, first_seq, rows, status, now_ms, epoch, frame))
        except (StoreError, JournalUnavailable) as exc:
            # NotOwner: another node claimed it. Otherwise the commit's outcome may be unknown (connection
            # lost at COMMIT): this memory can no longer be trusted either way.
            self.drop(table, f"append refused: {exc}")
            raise
        if not self.healthy() or self.referee.tables.get(table.id) is not table:
            self.drop(table, "the heartbeat went stale or lapsed during a commit")
            raise JournalUnavailable(f"node {self.node_id}: committed while unhealthy, not acknowledging")

    # -- letting go ----------------------------------------------------------------------------------------
    def drop(self, table: Table, why: str) -> None:
        """Forget a table this node may no longer write: its sockets are closed with 1012 and reconnect
        through the front (to whichever node owns it now)."""
        if self.referee.tables.get(table.id) is table:
            del self.referee.tables[table.id]
            self.epochs.pop(table.id, None)
        self.referee.forget_full_state(table.id)
        if table.bot_task is not None:
            table.bot_task.cancel()
        for conn in list(table.all_conns()):
            conn.close_soon(CLOSE_MOVED, "table moved")
        log.warning("table dropped", extra={"fields": {"table": table.id, "node": self.node_id, "why": why}})

    def drop_all(self, why: str) -> None:
        for table in list(self.referee.tables.values()):
            self.drop(table, why)

    def let_go(self, table: Table, *, abandoned: int | None = None) -> None:
        """A table freed from memory (ended and left, or abandoned): released, so that any node may claim
        it at once (in the background; a failure only leaves it to the dead-owner rule)."""
        epoch = self.epochs.pop(table.id, None)

        def work() -> None:
            if abandoned is not None:
                self.store.set_status(table.id, "abandoned", abandoned)
            if epoch is not None:
                with contextlib.suppress(NotOwner):
                    self.store.release(table.id, epoch)

        future = asyncio.get_running_loop().run_in_executor(self.executor, work)
        future.add_done_callback(_log_failure)

    async def drain(self) -> None:
        """SIGTERM: let in-flight commits finish (each holds its table's lock), refuse new ones, release
        every table in one transaction and leave the cluster (the caller then closes the sockets)."""
        if self.draining:
            return
        self.draining = True
        t0 = time.monotonic()
        tables = list(self.referee.tables.values())
        waits = [asyncio.ensure_future(t.lock.acquire()) for t in tables]
        if waits:
            await asyncio.wait(waits, timeout=DRAIN_WAIT_SECONDS)
        for table in tables:
            if table.bot_task is not None:
                table.bot_task.cancel()
        try:
            if not self.healthy():  # cut off: the release would only wait for the pool's timeout
                raise JournalUnavailable("the heartbeat is stale")
            released = await self._off_loop(self.store.release_all)
            await self._off_loop(self.store.forget_node)
        except (JournalUnavailable, StoreError) as exc:
            released = -1
            log.warning("drain could not release tables", extra={"fields": {"error": str(exc)}})
        for table, wait in zip(tables, waits, strict=True):
            if wait.done() and not wait.cancelled():
                table.lock.release()
            else:
                wait.cancel()
        self.epochs.clear()
        log_event("drained", node=self.node_id, released=released, ms=int((time.monotonic() - t0) * 1000))

    async def close(self) -> None:
        """Stop the heartbeat, the watcher and the adoption (after :meth:`drain`, or on a failed start)."""
        self._stop.set()
        await self.adoption.close()
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)
        self.executor.shutdown(wait=False, cancel_futures=True)
        await self.writer.close()

    async def call(self, fn: Callable[[*Ts], T], *args: *Ts) -> T:
        """``fn(*args)`` in a journal worker thread (for PostgreSQL calls made outside this module)."""
        return await self._off_loop(fn, *args)

    async def _off_loop(self, fn: Callable[[*Ts], T], *args: *Ts) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("release failed", extra={"fields": {"error": str(future.exception())}})
