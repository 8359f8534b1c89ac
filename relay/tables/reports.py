"""Reporting a player to the host from their table (docs/protocol.md, "Moderation").

The relay, not the reporter, says what is kept: the reported seat's name and account come from the game,
its client address from its connection (so that the host can ban a guest), and the excerpt from the chat
the relay stored. The reporter only chooses the seat, the reason and a note.
"""

from __future__ import annotations

import sqlite3

import wire
from relay.addresses import address_key
from relay.journal.base import JournalUnavailable
from relay.tables.chat import HISTORY, SEATS, WATCHERS
from relay.tables.services import TableServices
from relay.tables.table import ChatSaid, Conn, RelayError, Table, dumps
from wire import server

EXCERPT = 30  # the last lines of the table's chat, both channels


async def report(services: TableServices, table: Table, conn: Conn, frame: wire.Report) -> None:
    """Keeps the report and answers the reporter with an ``ack``. Raises RelayError ``not_signed_in``
    (a guest), ``bad_seat`` (no person sits there), ``report_self``, ``reports_unavailable`` (the chat or the
    accounts cannot be read now), and the accounts' ``bad_reason``, ``bad_note``, ``too_many_reports``."""
    member = conn.member
    if member is None:
        raise RelayError("not_signed_in", "sign in to report a player")
    async with table.lock:
        seats = table.state.seats
        if frame.seat >= len(seats) or seats[frame.seat].bot is not None:
            raise RelayError("bad_seat", f"no person sits at seat {frame.seat}", seat=frame.seat)
        if frame.seat == conn.seat or seats[frame.seat].account == member.id:
            raise RelayError("report_self", "you cannot report yourself")
        other = table.conns.get(frame.seat)
        address = address_key(other.peer) if other is not None else None
    try:
        rows = await services.host.call(services.store.chat, table.id, SEATS, HISTORY)
        rows += await services.host.call(services.store.chat, table.id, WATCHERS, HISTORY)
    except (sqlite3.Error, JournalUnavailable) as exc:
        raise RelayError("reports_unavailable", "reports cannot be kept now; try again later") from exc
    rows.sort(key=lambda r: r.id)
    excerpt = [ChatSaid(r.name, r.text, r.at_ms) for r in rows[-EXCERPT:]]
    await services.members.report(member.id, table, frame.seat, address, excerpt, frame.reason, frame.note)
    conn.send(dumps(server.ack(frame.id, table.state.version, services.now_ms())))
