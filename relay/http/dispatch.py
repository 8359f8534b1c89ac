"""Routing one valid client frame to the table: the relay-level refusals, then the engine's commands."""

from __future__ import annotations

from collections.abc import Callable

import engine
import wire
from relay.tables import (
    Conn,
    Referee,
    RelayError,
    Table,
    chat,
    dumps,
    reports,
    resend,
)
from relay.tables.analysis import serve_analysis
from wire import server


class _Refusal(RelayError):
    def __init__(self, msg_id: str | None, code: str, message: str, **params: str | int | None) -> None:
        super().__init__(code, message, **params)
        self.msg_id = msg_id

    @classmethod
    def of(cls, msg_id: str | None, err: RelayError) -> _Refusal:
        """``err`` answering the frame ``msg_id`` (its params kept: a ban's reason and end, ...)."""
        return cls(msg_id, err.code, err.message, **err.params)


def _seat(conn: Conn) -> int:
    # Read under the table lock: a seat number can move up when an earlier seat leaves before the start.
    if conn.seat is None:
        raise RelayError("not_a_seat", "this connection no longer holds a seat")
    return conn.seat


def _bot_name(table: Table) -> str:
    # Read under the lock; a person may already sit as "Robot 1", and names must be unique at a table.
    taken = {s.name.casefold() for s in table.state.seats}
    return next(f"Robot {n}" for n in range(1, 6) if f"robot {n}" not in taken)


def _bot_seat(table: Table, seat: int) -> int:
    # Read under the lock: only a computer player's seat may be freed by seat 0 (a person leaves by itself).
    seats = table.state.seats
    if not 0 <= seat < len(seats) or not seats[seat].bot:
        raise RelayError("not_a_bot", f"seat {seat} is not a computer player", seat=seat)
    return seat


def _tile(t: wire.TileIn) -> engine.Tile:
    letter = t.letter
    if t.blank and letter in ("", "?"):
        letter = ""
    return engine.Tile(t.sq, letter.upper(), t.blank)


async def dispatch(
    referee: Referee, table: Table, conn: Conn, m: wire.ClientFrame, t0: float, *, link_base: str = ""
) -> list[engine.Event]:
    """Route one valid client frame. Raises RelayError (answered by the caller) for relay-level refusals.
    Returns the events of a game action ([] for other frames).

    ``link_base`` (the relay's public address) prefixes the shareable link of a rematch table."""
    match m:
        case wire.Ping():
            conn.send(dumps(server.pong(m.id, referee.now_ms())))
            return []
        case wire.Join() | wire.Watch():
            await _seat_or_watch(referee, table, conn, m, t0)
            return []
    if not conn.joined:
        raise _Refusal(m.id, "not_joined", "send a join (or watch) frame first")
    match m:
        case wire.Resync():
            async with table.lock:
                referee.broadcaster.snapshot(table, conn)
            return []
        case wire.Chat(text=text, name=name):
            await chat.post(referee.services, table, conn, m.id, text, name)
            return []
        case wire.Rematch():
            try:
                await referee.rematches.rematch(table, conn, m.id, lambda new_id: f"{link_base}/t/{new_id}")
            except RelayError as err:
                raise _Refusal.of(m.id, err) from err
            return []
        case wire.Analyse():
            try:
                await serve_analysis(referee, table, conn, m.id)
            except RelayError as err:
                raise _Refusal.of(m.id, err) from err
            return []
        case wire.Report():
            try:
                await reports.report(referee.services, table, conn, m)
            except RelayError as err:
                raise _Refusal.of(m.id, err) from err
            return []
    seat = conn.seat
    if seat is None:
        raise _Refusal(m.id, "not_a_seat", "spectators cannot act")
    command: Callable[[Table], list[engine.Command]]
    match m:
        case wire.Start():
            command = lambda t: [engine.Start(_seat(conn))]  # noqa: E731
        case wire.Leave():
            command = lambda t: [engine.Leave(_seat(conn))]  # noqa: E731
        case wire.AddBot(level=level):
            if referee.bot_driver is None:
                raise _Refusal(m.id, "bots_unavailable", "this relay has no computer players")
            if seat != 0:
                raise _Refusal(m.id, "not_first_seat", "only the first seat may add a computer player")
            command = lambda t: [engine.Join(_bot_name(t), bot=level)]  # noqa: E731
        case wire.RemoveBot(seat=target):
            if seat != 0:
                raise _Refusal(m.id, "not_first_seat", "only the first seat may remove a computer player")
            command = lambda t: [engine.Leave(_bot_seat(t, target))]  # noqa: E731
        case wire.Place(tiles=placed):
            tiles = tuple(_tile(t) for t in placed)
            command = lambda t: [engine.Play(_seat(conn), engine.Place(tiles))]  # noqa: E731
        case wire.Swap(tiles=rack):
            command = lambda t: [engine.Play(_seat(conn), engine.Swap(rack))]  # noqa: E731
        case wire.Pass():
            command = lambda t: [engine.Play(_seat(conn), engine.Pass())]  # noqa: E731
        case _:  # pragma: no cover - every other frame was answered above
            raise _Refusal(m.id, "unknown_type", m.type)
    return await referee.turns.run(
        table, conn, command, kind=m.type, msg_id=m.id, t0=t0, digest=resend.digest(m), resent=m.resent
    )


async def _seat_or_watch(
    referee: Referee, table: Table, conn: Conn, m: wire.Join | wire.Watch, t0: float
) -> None:
    # A spectator (or a seat that left before the start) may still take a seat on the same socket.
    if conn.joined and (conn.seat is not None or isinstance(m, wire.Watch)):
        raise _Refusal(m.id, "already_joined", "this connection already joined; open a new one")
    match m:
        case wire.Watch():
            await referee.seating.watch(table, conn, m.id)
        case wire.Join(token=str(token)):
            try:
                await referee.seating.join_by_token(table, conn, token, m.id)
            except RelayError as err:
                raise _Refusal.of(m.id, err) from err
        case wire.Join(name=str(name)):
            try:
                await referee.seating.join_by_name(table, conn, name, m.id, t0)
            except RelayError as err:
                raise _Refusal.of(m.id, err) from err
