"""Bots: the computer players' turns, scheduled after every step."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import secrets

import engine
from relay.tables.services import TableServices
from relay.tables.table import (
    Table,
    log,
)
from relay.tables.turns import Turns


class BotTurns:
    """Computer players: each one's move is chosen off the loop and played through :meth:`Turns.run`."""

    def __init__(self, services: TableServices, turns: Turns) -> None:
        self.s = services
        self.turns = turns
        turns.after_step = self.schedule

    def schedule(self, table: Table) -> None:
        """Give the computer player on turn at ``table`` its move, unless one is on its way."""
        st = table.state
        if self.s.closed or st.status != "playing" or st.turn is None or not table.is_bot(st.turn):
            return  # shutting down: the bot moves after the restart (restore schedules it)
        if self.s.tables.get(table.id) is not table:
            return  # no longer served here (cluster mode: dropped); its new owner schedules it
        if table.bot_task is not None and not table.bot_task.done():
            return
        table.bot_task = asyncio.get_running_loop().create_task(self._bot_turn(table, int(st.version)))

    async def _bot_turn(self, table: Table, version: int) -> None:
        try:
            await self._bot_move(table, version)
        except Exception:
            # E.g. the journal refused the commit: nothing changed; the next attempt comes after a pause.
            log.exception("bot turn failed", extra={"fields": {"table": table.id}})
        finally:
            if table.bot_task is asyncio.current_task():
                table.bot_task = None
            if not self.s.closed:
                self.schedule(table)  # the next seat may be a bot too (or this one, still on turn)

    async def _bot_move(self, table: Table, version: int) -> None:
        low, high = self.s.config.bot_delay_seconds
        await asyncio.sleep(random.uniform(low, high))
        st = table.state
        if int(st.version) != version or st.turn is None or not table.is_bot(int(st.turn)):
            return
        seat = int(st.turn)
        level = str(st.seats[seat].bot)
        move: engine.Move = engine.Pass()
        if self.s.bot_driver is not None:
            # A bot needs the position, not the journal: no SQLite read nor redaction on the loop per move.
            view = engine.view(dataclasses.replace(table.state, events=()), seat, now_ms=self.s.now_ms())
            rng = random.Random(secrets.randbits(64))
            choose_async = getattr(self.s.bot_driver, "choose_async", None)
            try:
                if choose_async is not None:  # worker processes reached by the loop's own I/O: no thread
                    move = await choose_async(view, level, rng)
                else:
                    move = await asyncio.get_running_loop().run_in_executor(
                        None, self.s.bot_driver.choose, view, level, rng
                    )
            except Exception:
                log.exception(
                    "bot driver failed; passing", extra={"fields": {"table": table.id, "seat": seat}}
                )
                move = engine.Pass()

        def still_on(t: Table) -> bool:
            return int(t.state.version) == version

        events = await self.turns.run(
            table, None, lambda t: [engine.Play(seat, move)], kind="bot", check=still_on
        )
        if not events or isinstance(events[-1], engine.Rejected):
            # Refused or unknown words: the bot passes rather than stall the table.
            await self.turns.run(
                table,
                None,
                lambda t: [engine.Play(seat, engine.Pass())],
                kind="bot",
                check=lambda t: t.state.turn == seat and t.state.status == "playing",
            )
