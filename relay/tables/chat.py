"""Table chat: the seats' channel and the watchers' channel, beside the game and never part of it.

A message is no game event: it is kept in its own SQLite table (:meth:`relay.journal.sqlite.Store.add_chat`),
never
journaled, never in the GCG record, and changes no state a seat can play on. Who writes where follows from
the connection: a seat writes the seats' channel, a watcher the watchers' one; everyone at the table reads
both (each client decides whether to show the watchers'). Refusals (``error`` frames, nothing kept):

- ``chat_empty``: nothing left after trimming;
- ``chat_too_long``: more than :data:`MAX_CHARS` characters (``params.max``);
- ``chat_unprintable``: control or format characters (line breaks and tabs are folded into spaces);
- ``chat_rate_limited``: more than :data:`BURST` messages in :data:`WINDOW_MS` on this connection
  (``params.retry_ms``: when the next one would be accepted);
- ``chat_closed``: a watcher of a private table before the game starts;
- ``banned``: the author's account or address is banned by the host (``params.reason``, ``params.until``).

A signed-in author's lines are not sent to the accounts that block them (relay/accounts/moderation.py), live
or in the history a welcome sends.
"""

from __future__ import annotations

import logging
import sqlite3
from collections import deque
from typing import Any, Final

from relay.addresses import address_key
from relay.journal.base import JournalUnavailable
from relay.journal.sqlite import ChatRow
from relay.tables.services import TableServices
from relay.tables.table import Conn, RelayError, Table, dumps
from wire import server

MAX_CHARS: Final = 200
BURST: Final = 5
WINDOW_MS: Final = 10_000
log = logging.getLogger("lexio.relay")
HISTORY: Final = 100  # per channel, sent after every welcome (reload, reconnect)
SEATS: Final = "seats"
WATCHERS: Final = "watchers"
MAX_WATCHER_NAME: Final = 24


class ChatRefused(RelayError):
    def __init__(self, msg_id: str | None, code: str, message: str, **params: str | int | None) -> None:
        super().__init__(code, message, **params)
        self.msg_id = msg_id


def clean(text: str) -> str:
    """Whitespace runs (line breaks included) become one space; the ends are trimmed."""
    return " ".join(text.split())


def _times(conn: Conn) -> deque[int]:
    times: deque[int] | None = conn.chat_times
    if times is None:
        times = conn.chat_times = deque(maxlen=BURST)
    return times


def wire(row: ChatRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "channel": row.channel,
        "seat": row.seat,
        "name": row.name,
        "text": row.text,
        "at": row.at_ms,
    }


async def post(
    referee: TableServices, table: Table, conn: Conn, msg_id: str | None, text: str, name: str | None
) -> None:
    """Check, keep and broadcast one message; the sender gets an ``ack`` (``seq``: the game's, unchanged).

    Raises :class:`ChatRefused` (answered as an ``error``); sqlite3.Error if the store refuses the write
    (the caller answers ``internal_error``; nothing was sent)."""
    body = clean(text)
    if not body:
        raise ChatRefused(msg_id, "chat_empty", "the message is empty")
    if len(body) > MAX_CHARS:
        raise ChatRefused(
            msg_id, "chat_too_long", f"messages are limited to {MAX_CHARS} characters", max=MAX_CHARS
        )
    if not body.isprintable():
        raise ChatRefused(msg_id, "chat_unprintable", "control characters are not allowed")
    author = conn.member.id if conn.member is not None else None
    members = referee.members
    ban = await members.suspension(author, address_key(conn.peer))
    if ban is not None:
        err = ban.refusal()
        raise ChatRefused(msg_id, err.code, err.message, **err.params)
    hide_from = await members.blockers(author) if author is not None else frozenset[str]()
    async with table.lock:
        seat = conn.seat
        if seat is None and not table.public and table.status in ("empty", "waiting"):
            raise ChatRefused(msg_id, "chat_closed", "watchers of a private table may chat once it starts")
        now = referee.now_ms()
        times = _times(conn)
        if len(times) == BURST and now - times[0] < WINDOW_MS:
            retry = WINDOW_MS - (now - times[0])
            raise ChatRefused(
                msg_id,
                "chat_rate_limited",
                f"at most {BURST} messages per {WINDOW_MS // 1000} s",
                retry_ms=retry,
            )
        who: str | None
        if seat is not None:
            channel, who = SEATS, str(table.state.seats[seat].name)
        else:
            channel = WATCHERS
            who = clean(name or "")[:MAX_WATCHER_NAME] or None
            if who is not None and not who.isprintable():
                who = None
        # PostgreSQL (cluster mode): off the event loop
        row_id = await referee.host.call(
            referee.store.add_chat, table.id, channel, seat, who, body, now, author
        )
        times.append(now)
        frame = dumps(server.chat(wire(ChatRow(row_id, channel, seat, who, body, now)), now))
        for c in list(table.all_conns()):
            if c.member is None or c.member.id not in hide_from:
                c.send(frame)
        conn.send(dumps(server.ack(msg_id, table.state.version, now)))


def send_history(referee: TableServices, table: Table, conn: Conn) -> None:
    """After a welcome: the last :data:`HISTORY` messages of each channel (one ``chat_history`` frame).
    A store that cannot be read costs the history, not the welcome (logged)."""
    try:
        rows = referee.store.chat(table.id, SEATS, HISTORY) + referee.store.chat(table.id, WATCHERS, HISTORY)
    except (sqlite3.Error, JournalUnavailable):
        log.exception("chat history unreadable", extra={"fields": {"table": table.id}})
        return
    if conn.hides:
        rows = [r for r in rows if r.account not in conn.hides]
    rows.sort(key=lambda r: r.id)
    conn.send(dumps(server.chat_history([wire(r) for r in rows], referee.now_ms())))
