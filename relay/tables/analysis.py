"""The post-game analysis request (docs/protocol.md, "analyse"): one analysis per seat, after the end.

The analysis itself (:func:`relay.bots.analysis.analyse_seat`) replays the journal and asks the ``expert``
level about every move of the seat: seconds of CPU, so it runs in a worker thread, never on the event loop.
It is computed at most once per seat and kept with the table (``Table.analyses``), the claim recorded in the
journal (``analyses``: it outlives the table's memory, a restart and a takeover); the seat is served once,
on its socket (:func:`serve_analysis`, the end screen) or over HTTP with its seat token
(:func:`analysis_by_token`, ``POST /api/tables/{id}/analysis``: the replay viewer, which holds no socket).
The browser keeps what it was served (web/app/analysis_store.py): the analysis stays private to the seat.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
from collections.abc import Callable
from typing import Any, TypeVar

from relay.tables import Conn, Referee, RelayError, Table, dumps, hash_token
from wire import server

__all__ = ["HTTP_STATUS", "analysis_by_token", "serve_analysis"]

T = TypeVar("T")

# The HTTP status of each refusal of POST /api/tables/{id}/analysis.
HTTP_STATUS = {
    "table_not_found": 404,
    "bad_token": 403,
    "not_ended": 409,
    "analysis_used": 409,
    "analysis_unavailable": 503,
}


async def serve_analysis(referee: Referee, table: Table, conn: Conn, msg_id: str | None) -> None:
    """Answer ``conn``'s request with an ``analysis`` frame, then ack it.

    Raises RelayError ``not_a_seat`` (a spectator), ``not_ended`` (the game is not over),
    ``analysis_used`` (this seat already had its analysis), ``analysis_unavailable`` (no move generator on
    this relay, or it failed); StoreError / sqlite3.Error / JournalUnavailable if the journal refuses the
    claim.
    """
    seat = conn.seat
    if seat is None:
        raise RelayError("not_a_seat", "only a player of this table can ask for the analysis of their moves")
    moves = await _analyse_once(referee, table, seat)
    now = referee.now_ms()
    conn.send(dumps(server.analysis(msg_id, seat, moves, now)))
    conn.send(dumps(server.ack(msg_id, table.state.version, now)))


async def analysis_by_token(referee: Referee, table_id: str, token: str) -> tuple[int, Any]:
    """The seat holding ``token`` at the ended table ``table_id``, and the analysis of its moves (once).

    Raises RelayError ``table_not_found``, ``bad_token`` (the token holds no seat there), ``not_ended``,
    ``analysis_used``, ``analysis_unavailable`` (as :func:`serve_analysis`); StoreError / sqlite3.Error /
    JournalUnavailable if the journal cannot be read or refuses the claim."""
    # In memory while it is computed (a finished table is revived from its journal, as a rejoin does).
    table = referee.registry.revive(table_id) or referee.registry.read_table(table_id)
    if table is None:
        raise RelayError("table_not_found", "no such table")
    if table.status != "ended":
        raise RelayError("not_ended", "the analysis is ready once the game has ended")
    digest = hash_token(token)
    seat = next(
        (s for s, th in enumerate(table.tokens) if th is not None and hmac.compare_digest(th, digest)), None
    )
    if seat is None:
        raise RelayError("bad_token", "this token holds no seat at this table")
    return seat, await _analyse_once(referee, table, seat)


async def _analyse_once(referee: Referee, table: Table, seat: int) -> Any:
    """Claim ``seat``'s one analysis, compute it off the event loop, keep it with the table."""
    from relay.bots.analysis import analyse_seat
    from relay.bots.player import MoveGenDriver
    from relay.bots.pool import ProcessDriver

    async with table.lock:
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
        # Claimed in the journal too: the table's memory is freed once nobody is connected (and a restart
        # or another node revives it without ``analyses``), the seat's one analysis must outlive that.
        if not await _journal(referee, referee.store.claim_analysis, table.id, seat, referee.now_ms()):
            table.analyses[seat] = None
            raise RelayError("analysis_used", "this seat already had the analysis of its moves")
        table.analyses[seat] = None  # claimed: a second request is refused even while this one computes
    try:
        # The default driver's worker processes (awaited on the loop), or a worker thread: never the loop.
        if isinstance(bot, ProcessDriver):
            moves: Any = await bot.analyse_async(state, seat)
        else:
            moves = await asyncio.get_running_loop().run_in_executor(None, job)
    except Exception as exc:
        table.analyses.pop(seat, None)  # not served: the seat may ask again
        await _journal(referee, referee.store.release_analysis, table.id, seat)
        raise RelayError("analysis_unavailable", f"the analysis failed: {type(exc).__name__}") from exc
    table.analyses[seat] = moves
    return moves


async def _journal(referee: Referee, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the journal: a worker thread for PostgreSQL (cluster mode), in place for SQLite
    (its calls are short and share the loop's connection)."""
    return await referee.services.host.call(fn, *args)
