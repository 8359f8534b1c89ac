"""The post-game analysis request (docs/protocol.md, "analyse"): one analysis per seat, after the end.

The analysis itself (:func:`relay.bots.analysis.analyse_seat`) replays the journal and asks the ``expert``
level about every move of the seat: seconds of CPU, so it runs in a worker thread, never on the event loop.
It is computed at most once per seat and kept with the table (``Table.analyses``); the seat is served once.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from relay.tables import Conn, Referee, RelayError, Table, dumps

__all__ = ["serve_analysis"]


async def serve_analysis(referee: Referee, table: Table, conn: Conn, msg_id: str | None) -> None:
    """Answer ``conn``'s request with an ``analysis`` frame, then ack it.

    Raises RelayError ``not_a_seat`` (a spectator), ``not_ended`` (the game is not over),
    ``analysis_used`` (this seat already had its analysis), ``analysis_unavailable`` (no move generator on
    this relay, or it failed).
    """
    from relay.bots.analysis import analyse_seat
    from relay.bots.player import MoveGenDriver
    from relay.bots.pool import ProcessDriver

    async with table.lock:
        seat = conn.seat
        if seat is None:
            raise RelayError(
                "not_a_seat", "only a player of this table can ask for the analysis of their moves"
            )
        if table.status != "ended":
            raise RelayError("not_ended", "the analysis is ready once the game has ended")
        if seat in table.analyses:
            raise RelayError("analysis_used", "this seat already had the analysis of its moves")
        bot = referee.bot_driver
        job: Callable[[], Any]
        state = referee.full_state(table)
        if isinstance(bot, ProcessDriver):
            job = functools.partial(bot.analyse, state, seat)
        elif isinstance(bot, MoveGenDriver):
            job = functools.partial(analyse_seat, state, seat, bot)
        else:
            raise RelayError("analysis_unavailable", "this relay cannot analyse games")
        table.analyses[seat] = None  # claimed: a second request is refused even while this one computes
    try:
        # The default driver's worker processes (awaited on the loop), or a worker thread: never the loop.
        if isinstance(bot, ProcessDriver):
            moves: Any = await bot.analyse_async(state, seat)
        else:
            moves = await asyncio.get_running_loop().run_in_executor(None, job)
    except Exception as exc:
        table.analyses.pop(seat, None)  # not served: the seat may ask again
        raise RelayError("analysis_unavailable", f"the analysis failed: {type(exc).__name__}") from exc
    table.analyses[seat] = moves
    now = referee.now_ms()
    conn.send(dumps({"type": "analysis", "id": msg_id, "seat": seat, "moves": moves, "now": now}))
    conn.send(dumps({"type": "ack", "id": msg_id, "seq": int(table.state.version), "now": now}))
