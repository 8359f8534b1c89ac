"""Lifecycle and collection: start, timers that fire without a player, memory freed, shutdown."""

from __future__ import annotations

import asyncio
import contextlib

import engine
from relay.tables.deadlines import Deadlines
from relay.tables.services import TableServices
from relay.tables.table import (
    CLOSE_RESTART,
    EMPTY_TABLE_TTL_MS,
    Table,
    log,
)
from relay.tables.turns import Turns, _timeout_pass


class Lifecycle:
    """The relay's own tasks: the sweeper (deadlines, grace, seats left before the start, freeing memory),
    the journal checkpointer, and shutting down.

    The sweeper looks at the timed tables (turns in seconds) every tick, and at a correspondence table
    (turns in days) only when its deadline falls due (relay/tables/deadlines.py): each table's next
    deadline is scheduled when it is added to this relay (created, restored at the start, claimed in a
    cluster) and after every step that changed it."""

    def __init__(self, services: TableServices, turns: Turns) -> None:
        self.s = services
        self.turns = turns
        self.tables = services.tables
        self.deadlines = Deadlines()
        self.tables.on_add = self.schedule
        earlier = turns.after_step  # the computer players' (relay/tables/bots.py)

        def after_step(table: Table) -> None:
            earlier(table)
            self.schedule(table)

        turns.after_step = after_step
        self._sweeper: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._last_gc = 0

    def schedule(self, table: Table) -> None:
        """A correspondence table's next deadline (its turn's start in the journal plus its turn time) in
        the sweeper's schedule; nothing for the other tables (looked at every tick)."""
        if self.tables.days.get(table.id) is table:
            self.deadlines.schedule(table.id, self.s.clock(table)["deadline_ms"])

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._sweeper = loop.create_task(self._sweep_loop())
        self._checkpointer = loop.create_task(self._checkpoint_loop())

    async def _checkpoint_loop(self) -> None:
        # One worker thread at a time, once a second: the journal file catches up with the WAL off the loop.
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(1.0)
            try:
                await loop.run_in_executor(None, self.s.store.checkpoint)
            except Exception:
                log.exception("journal checkpoint failed")

    async def shutdown(self) -> None:
        """Stop timers and bots, and close every socket with 1012 "server restarting" so clients come back."""
        if self.s.closed:
            return
        await self.s.host.drain()  # cluster mode: commit what is in flight, release every table
        self.s.closed = True
        for task in (self._sweeper, self._checkpointer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        closing = []
        for table in self.tables.values():
            if table.bot_task is not None:
                table.bot_task.cancel()
            for conn in list(table.all_conns()):
                conn.closing = True
                closing.append(conn.ws.close(code=CLOSE_RESTART, message=b"server restarting"))
        if closing:
            await asyncio.gather(*closing, return_exceptions=True)

    async def _sweep_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.s.config.tick_seconds)
            # How late the loop woke us: the time any frame may wait before the relay even reads it.
            self.s.metrics.observe_loop_lag(max(0.0, loop.time() - before - self.s.config.tick_seconds))
            try:
                await self.sweep()
            except Exception:
                log.exception("sweep failed")

    async def sweep(self) -> None:
        """Fire every due deadline: turn timeouts, disconnect grace, freeing seats left before the start;
        at correspondence tables, only the turns whose deadline fell due (no grace, no seat freed: their
        players are normally away)."""
        now = self.s.now_ms()
        for table in list(self.tables.timed.values()):
            try:
                if table.status == "playing" and self.s.due(table, now):
                    await self._time_out(table)
                elif table.status == "waiting" and table.away_since:
                    await self._free_abandoned_seat(table, now)
            except Exception:
                # One table whose journal refuses a commit must not hold up every other table's clock.
                log.exception("timer action failed", extra={"fields": {"table": table.id}})
        for table_id in self.deadlines.due(now):
            days = self.tables.days.get(table_id)
            if days is None:
                continue  # freed from memory since (ended), or no longer served here
            try:
                if days.status == "playing" and self.s.due(days, now):
                    await self._time_out(days)
            except Exception:
                log.exception("timer action failed", extra={"fields": {"table": table_id}})
            finally:
                # The next turn's deadline; the same one again if the time-out failed (tried next tick).
                self.schedule(days)
        if now - self._last_gc >= 60_000:
            self._last_gc = now
            self.collect(now)
            for days in list(self.tables.days.values()):
                self.schedule(days)  # a no-op unless a deadline was missed: cheap, once a minute

    async def _time_out(self, table: Table) -> None:
        await self.turns.run(
            table,
            None,
            _timeout_pass,
            kind="timeout",
            check=lambda t: self.s.due(t, self.s.now_ms()),
        )

    async def _free_abandoned_seat(self, table: Table, now: int) -> None:
        limit = int(self.s.config.waiting_grace_seconds * 1000)
        gone = [s for s, at in table.away_since.items() if now - at >= limit]
        if not gone:
            return
        seat = max(gone)  # the highest first, so lower seat numbers stay valid

        def still_gone(t: Table) -> bool:
            at = t.away_since.get(seat)
            return t.status == "waiting" and at is not None and self.s.now_ms() - at >= limit

        def leave(t: Table) -> list[engine.Command]:
            return [engine.Leave(seat)]

        await self.turns.run(table, None, leave, kind="auto_leave", check=still_gone)

    def collect(self, now: int) -> None:
        """Free the memory of ended tables nobody watches, and abandon tables left empty too long."""
        # Finished games stay in the journal (readable); only memory is freed. Empty tables are abandoned.
        for table in list(self.tables.values()):
            if table.status == "ended" and not table.conns and not table.watchers:
                del self.tables[table.id]
                self.s.host.let_go(table)
            elif (
                table.seat_count() == 0
                and not table.watchers
                and (
                    now - table.created_ms >= EMPTY_TABLE_TTL_MS
                    # Nobody ever sat there (its only event is its creation): a shorter life.
                    or (
                        int(table.state.version) <= 1
                        and now - table.created_ms >= self.s.config.unjoined_table_seconds * 1000
                    )
                )
            ):
                del self.tables[table.id]
                self.s.host.let_go(table, abandoned=now)
