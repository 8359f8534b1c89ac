"""Idempotent actions: a client frame resent with the same id after a reconnect is applied at most once.

A game action's client frame (its id, the seat's token hash and a digest of its content) is journaled with the
action's first event, in the same transaction (relay.journal.sqlite.FrameRow), together with the answer the
client got
(``ack`` or ``rejected``). A frame arriving later with the same id, from the same seat, with the same content,
is a resend: it is told that answer again instead of being decided a second time (docs/protocol.md, "Resending
an action"). The same id with other content is a new action (a client whose page was reloaded may count its
ids from 1 again). Only the last :data:`KEPT_PER_SEAT` frames of each seat are remembered in memory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import engine
import wire
from relay.journal.sqlite import FrameRow
from relay.logs import event as log_event
from relay.tables.table import dumps

if TYPE_CHECKING:
    from relay.tables import Conn, Table
    from relay.tables.services import TableServices

# The frames that change a table (and so are decided once); join, resync, chat, rematch... are not among them.
ACTION_TYPES = wire.ACTION_TYPES
KEPT_PER_SEAT = 64
# json.dumps(content, sort_keys=True), the digest's journaled form, without building an encoder per frame.
_CANONICAL = json.JSONEncoder(sort_keys=True)
# A string as that encoder writes it (ASCII, escaped): the C function it calls.
_quote: Callable[[str], str] = json.encoder.encode_basestring_ascii


def digest(frame: wire.ClientFrame) -> str | None:
    """A digest of an action frame's content (its id excluded), or None for frames that are not actions.

    Journaled with the action (a resend after a restart is checked against it): the content's shape must
    never change, whatever the frame types become."""
    level: str | None = None
    tiles: tuple[wire.TileIn, ...] = ()
    swap, seat = "", None
    match frame:
        case wire.AddBot():
            level = frame.level
        case wire.RemoveBot():
            seat = frame.seat
        case wire.Place():
            tiles = frame.tiles
        case wire.Swap():
            swap = frame.tiles
        case wire.Start() | wire.Leave() | wire.Pass():
            pass
        case _:
            return None
    return hashlib.sha256(canonical(frame.type, level, tiles, swap, seat).encode()).hexdigest()[:32]


def canonical(kind: str, level: str | None, tiles: Sequence[wire.TileIn], swap: str, seat: int | None) -> str:
    """The digested form of an action's content: ``json.dumps`` of ``{"type", "level", "tiles": [[sq,
    letter, blank], ...], "swap", "seat"}`` with ``sort_keys=True`` (its separators, ASCII escapes), written
    here directly for the values a parsed frame holds (strings, an int seat, bool blanks); anything else
    through the encoder itself."""
    plain = (
        (seat is None or type(seat) is int)
        and type(swap) is str
        and type(kind) is str
        and (level is None or type(level) is str)
        and all(type(t.sq) is str and type(t.letter) is str and type(t.blank) is bool for t in tiles)
    )
    if not plain:
        content = {
            "type": kind,
            "level": level,
            "tiles": [[t.sq, t.letter, t.blank] for t in tiles],
            "swap": swap,
            "seat": seat,
        }
        return _CANONICAL.encode(content)
    q = _quote
    placed = ", ".join(f"[{q(t.sq)}, {q(t.letter)}, {'true' if t.blank else 'false'}]" for t in tiles)
    return (
        f'{{"level": {"null" if level is None else q(level)}, "seat": {"null" if seat is None else seat}, '
        f'"swap": {q(swap)}, "tiles": [{placed}], "type": {q(kind)}}}'
    )


def remember(frames: dict[tuple[str, str], FrameRow], rows: Iterable[FrameRow]) -> None:
    """Add journaled frames (in seq order) to a table's memory of them, keeping the last few per seat."""
    for row in rows:
        frames[(row.who, row.frame_id)] = row
    if len(frames) > 4 * KEPT_PER_SEAT:
        by_seat: dict[str, list[tuple[str, str]]] = {}
        for key, row in sorted(frames.items(), key=lambda kv: kv[1].seq):
            by_seat.setdefault(row.who, []).append(key)
        for keys in by_seat.values():
            for key in keys[:-KEPT_PER_SEAT]:
                del frames[key]


def who(table: Table, conn: Conn | None) -> str | None:
    """The seat's token hash (what identifies a player across sockets), or None (spectator, no socket)."""
    if conn is None or conn.seat is None or not 0 <= conn.seat < len(table.tokens):
        return None
    return table.tokens[conn.seat]


def already(table: Table, conn: Conn | None, msg_id: str | None, content: str | None) -> FrameRow | None:
    """The journaled frame this one resends, if it is a resend (same seat, id and content)."""
    if msg_id is None or content is None:
        return None
    seat_key = who(table, conn)
    if seat_key is None:
        return None
    row = table.frames.get((seat_key, msg_id))
    return row if row is not None and row.digest == content else None


def frame_row(
    table: Table,
    conn: Conn | None,
    msg_id: str | None,
    content: str | None,
    first_seq: int,
    events: Sequence[engine.Event],
) -> FrameRow | None:
    """The row to journal with an action's events (None: not a client action with an id)."""
    seat_key = who(table, conn)
    if msg_id is None or content is None or seat_key is None or not events:
        return None
    last_seq = first_seq + len(events) - 1
    last = events[-1]
    answer: dict[str, Any]
    if isinstance(last, engine.Rejected):
        answer = {"type": "rejected", "seq": last_seq, "words": list(last.unknown)}
    else:
        answer = {"type": "ack", "seq": last_seq}
    return FrameRow(first_seq, seat_key, msg_id, content, answer)


def answer_again(
    referee: TableServices, table: Table, conn: Conn, msg_id: str | None, done: FrameRow
) -> None:
    """Tell a resent frame the answer its first copy got; nothing is decided (the reserve is today's)."""
    now = referee.now_ms()
    frame: dict[str, Any] = {**done.answer, "id": msg_id, "now": now}
    if frame.get("type") == "rejected" and conn.seat is not None:
        tries, refill = engine.reserve_at(table.state, conn.seat, now)
        frame["reserve"] = {"tries": tries, "next_refill_ms": refill}
    referee.metrics.actions["resent"] += 1
    conn.send(dumps(frame))
    log_event("resent", table=table.id, seat=conn.seat, seq=done.seq)
