"""Game sockets relayed between relay nodes over the bus (relay/cluster/bus.py): the edge side and the owner
side.

The **edge** is the node a client's socket landed on when another live node owns the table: an
:class:`EdgeSession` serves that :class:`relay.http.ws.WebSocket` by publishing each frame on the owner's
channel and writing back what the owner sends. The **owner** gives each relayed connection a
:class:`RelayedSocket` (a :class:`relay.tables.Socket` publishing to the edge), wrapped in the same
``Conn`` and game session as a local socket (``open_session``, from relay/app.py): joins, actions,
broadcasts, presence and disconnect grace do not know the difference.

Messages of one connection are numbered in each direction (0 first); a gap means a message was lost, and
the connection closes with 1012 (the client reconnects, resyncs and resends what was not acknowledged).
When the bus goes down, or a peer node is lost, every connection relayed through it ends: the edge closes
the client's socket with 1012, the owner ends the seat's session (presence, disconnect grace).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from relay.cluster.bus import BINARY, CLOSE, END, FRAME, OPEN, SEND, Bus, Message, encode
from relay.http.ws import BINARY as WS_BINARY
from relay.http.ws import Session, WebSocket
from relay.protocol import RateLimiter
from relay.tables import Socket, Table
from relay.tables.table import Member

log = logging.getLogger("lexio.relay")

CLOSE_RESTART: Final = 1012
CLOSE_SLOW: Final = 4002
CLOSE_FLOODING: Final = 1008
# CLOSE sent by an owner that does not know the connection (any number accepted).
UNNUMBERED: Final = -1

Locate = Callable[[str], Awaitable[Table | str | None]]
"""``locate(table_id)``: the table, owned (claimed) here; or the id of the live node that owns it; or None:
no such table."""

OpenSession = Callable[[str, str, str, Socket, Member | None], Awaitable[Session | None]]
"""``open_session(table_id, peer, link_base, socket, member)``: the owner's game session for a relayed
socket (``member``: the signed-in player the edge read from the session cookie), or None when the table is
not (or no longer) owned here."""


@dataclass(frozen=True, slots=True)
class Relaying:
    """What cluster mode gives the app: the bus's Redis URL, this node's id (its channel), ``locate``."""

    bus_url: str
    node_id: str
    locate: Locate


# -- the edge ----------------------------------------------------------------------------------------------
class EdgeSession:
    """The :class:`relay.http.ws.Session` of a client socket relayed to ``owner``."""

    __slots__ = ("ended_sent", "id", "limiter", "n_in", "n_out", "owner", "side", "ws")

    def __init__(self, side: EdgeSide, conn_id: int, owner: str) -> None:
        self.side = side
        self.id = conn_id
        self.owner = owner
        self.ws: WebSocket | None = None
        self.n_in = 0
        self.n_out = 0
        self.ended_sent = False
        burst, rate = side.rate
        self.limiter = RateLimiter(burst, rate, time.monotonic())

    async def frame(self, data: str | bytes, t0: float) -> bool:
        if self.ended_sent:
            return False
        if not self.limiter.allow(time.monotonic()) and self.limiter.strikes > 2 * self.limiter.burst:
            # The owner answers a fast client (rate_limited, then 1008); this bounds what a flooder can
            # push into Redis before the owner's close comes back.
            self.side.ended(self)
            if self.ws is not None:
                self.ws.close_soon(CLOSE_FLOODING, b"flooding")
            return False
        if data is WS_BINARY or isinstance(data, bytes):
            self.side.forward(self, BINARY, "")
        else:
            self.side.forward(self, FRAME, data)
        return True

    async def ended(self) -> None:
        self.side.ended(self)


class EdgeSide:
    """Client sockets of this node relayed to their tables' owners."""

    def __init__(self, bus: Bus, rate: tuple[float, float] = (30.0, 15.0)) -> None:
        self.bus = bus
        self.rate = rate  # the owner's per-connection frame budget (burst, per second): --rate-* settings
        self.sessions: dict[int, EdgeSession] = {}
        self._ids = itertools.count(1)
        bus.edge = self

    def open(
        self, owner: str, table_id: str, peer: str, link_base: str, member: Member | None = None
    ) -> EdgeSession:
        """A session relaying a new client socket to ``owner``; give it its socket with :meth:`attach`.
        ``member``: the signed-in player, as this edge read the session cookie (the owner trusts its peer)."""
        session = EdgeSession(self, next(self._ids), owner)
        self.sessions[session.id] = session
        self.bus.touch(owner)
        info: dict[str, object] = {"table": table_id, "peer": peer, "link": link_base}
        if member is not None:
            info["member"] = [member.id, member.nickname]
        self.forward(session, OPEN, json.dumps(info))
        return session

    def attach(self, session: EdgeSession, ws: WebSocket) -> None:
        session.ws = ws
        if not self.bus.up:
            # Relaying needs Redis: the client retries (by then the bus, or the table, may be back).
            self._close(session, CLOSE_RESTART, "relay bus unavailable")

    def forward(self, session: EdgeSession, kind: str, body: str) -> None:
        number = session.n_out
        session.n_out += 1
        self.bus.send(session.owner, encode(kind, self.bus.node_id, session.id, number, body))

    def ended(self, session: EdgeSession) -> None:
        if self.sessions.pop(session.id, None) is None and session.ended_sent:
            return
        if not session.ended_sent:
            session.ended_sent = True
            self.forward(session, END, "")

    def receive(self, message: Message) -> None:
        session = self.sessions.get(message.conn)
        if session is None or session.owner != message.source:
            return  # gone meanwhile; the owner learns of it from our END
        if message.number != session.n_in and not (message.kind == CLOSE and message.number == UNNUMBERED):
            log.warning(
                "relayed frame lost",
                extra={"fields": {"owner": message.source, "expected": session.n_in, "got": message.number}},
            )
            self._close(session, CLOSE_RESTART, "relayed frame lost")
            return
        session.n_in += 1
        ws = session.ws
        if ws is None:
            return
        if message.kind == SEND:
            if ws.too_slow():
                self._close(session, CLOSE_SLOW, "too slow")
            else:
                ws.send_text(message.body)
        elif message.kind == CLOSE:
            code, _, reason = message.body.partition("\t")
            session.ended_sent = True  # the owner ended it: no END back
            self.sessions.pop(session.id, None)
            ws.close_soon(int(code) if code.isdigit() else CLOSE_RESTART, reason.encode())

    def _close(self, session: EdgeSession, code: int, reason: str) -> None:
        self.ended(session)  # the owner frees the seat's connection now
        if session.ws is not None:
            session.ws.close_soon(code, reason.encode())

    def peers(self) -> set[str]:
        return {s.owner for s in self.sessions.values()}

    def count(self) -> int:
        return len(self.sessions)

    def drop_peer(self, node: str, reason: str) -> None:
        for session in [s for s in self.sessions.values() if s.owner == node]:
            self._close(session, CLOSE_RESTART, reason)

    def drop_all(self, reason: str) -> None:
        for session in list(self.sessions.values()):
            self._close(session, CLOSE_RESTART, reason)


# -- the owner ---------------------------------------------------------------------------------------------
class RelayedSocket:
    """The owner's :class:`relay.tables.Socket` for a client connected through another node: frames go to
    the edge over the bus. The edge's own socket checks how slow the client is."""

    __slots__ = ("link",)

    def __init__(self, link: OwnerLink) -> None:
        self.link = link

    def send_text(self, text: str) -> None:
        self.link.side.forward(self.link, SEND, text)

    def cork(self) -> None:
        """Nothing to hold: the edge's own socket writes each frame it is forwarded."""

    def uncork(self) -> None:
        """See :meth:`cork`."""

    def buffered(self) -> int:
        return 0

    def too_slow(self) -> bool:
        return False

    def close_soon(self, code: int, message: bytes = b"") -> None:
        self.link.side.close(self.link, code, message.decode("utf-8", "replace"))

    async def close(self, *, code: int = 1000, message: bytes = b"") -> bool:
        was_open = not self.link.closed
        self.close_soon(code, message)
        return was_open


class OwnerLink:
    """One relayed connection on the owner: its numbering, its frames in order, its game session."""

    __slots__ = ("closed", "edge", "id", "inbox", "n_in", "n_out", "session", "side", "socket", "worker")

    def __init__(self, side: OwnerSide, edge: str, conn_id: int) -> None:
        self.side = side
        self.edge = edge
        self.id = conn_id
        self.n_in = 0
        self.n_out = 0
        self.closed = False
        self.session: Session | None = None
        self.socket = RelayedSocket(self)
        self.inbox: deque[tuple[str, str, float]] = deque()
        self.worker: asyncio.Task[None] | None = None


class OwnerSide:
    """Connections relayed to this node's tables from edges."""

    def __init__(self, bus: Bus, open_session: OpenSession) -> None:
        self.bus = bus
        self.open_session = open_session
        self.links: dict[tuple[str, int], OwnerLink] = {}
        bus.owner = self

    def receive(self, message: Message) -> None:
        key = (message.source, message.conn)
        link = self.links.get(key)
        if message.kind == OPEN and link is None and message.number == 0:
            link = self.links[key] = OwnerLink(self, message.source, message.conn)
        elif link is None:
            if message.kind != END:  # the edge still thinks it is connected here: tell it otherwise
                reason = "relayed connection unknown"
                self.bus.send(
                    message.source, encode(CLOSE, self.bus.node_id, message.conn, UNNUMBERED, reason)
                )
            return
        if message.number != link.n_in:
            log.warning(
                "relayed frame lost",
                extra={"fields": {"edge": message.source, "expected": link.n_in, "got": message.number}},
            )
            self.close(link, CLOSE_RESTART, "relayed frame lost")
            return
        link.n_in += 1
        if message.kind == END:
            link.closed = True  # nothing more goes to the edge
        self._queue(link, message.kind, message.body)

    def forward(self, link: OwnerLink, kind: str, body: str) -> None:
        if link.closed:
            return
        number = link.n_out
        link.n_out += 1
        self.bus.send(link.edge, encode(kind, self.bus.node_id, link.id, number, body))

    def close(self, link: OwnerLink, code: int, reason: str) -> None:
        """Close the client's socket at the edge; the session ends after the frames read before."""
        if link.closed:
            return
        self.forward(link, CLOSE, f"{code}\t{reason}")
        link.closed = True
        self._queue(link, END, "")

    def _queue(self, link: OwnerLink, kind: str, body: str) -> None:
        link.inbox.append((kind, body, time.perf_counter()))
        if link.worker is None:
            link.worker = asyncio.get_running_loop().create_task(self._work(link))

    async def _work(self, link: OwnerLink) -> None:
        try:
            while link.inbox:
                kind, body, t0 = link.inbox.popleft()
                try:
                    if kind == END:
                        await self._end(link)
                        return
                    if kind == OPEN:
                        await self._open(link, body)
                    elif link.session is not None and not link.closed:
                        keep = await link.session.frame(body if kind == FRAME else WS_BINARY, t0)
                        if not keep:  # the session closed the socket (flooding, bad frames) and ended
                            link.session = None
                            self.close(link, CLOSE_RESTART, "")
                except Exception:
                    log.exception("relayed frame failed", extra={"fields": {"edge": link.edge}})
                if link.inbox:
                    await asyncio.sleep(0)  # one frame per turn of the loop, as local sockets do
        finally:
            link.worker = None

    async def _open(self, link: OwnerLink, body: str) -> None:
        try:
            info = json.loads(body)
            table_id, peer, base = str(info["table"]), str(info["peer"]), str(info["link"])
            raw = info.get("member")
            member = None if raw is None else Member(str(raw[0]), str(raw[1]))
        except (ValueError, KeyError, TypeError, IndexError):
            self.close(link, CLOSE_RESTART, "bad relayed open")
            return
        session = await self.open_session(table_id, peer, base, link.socket, member)
        if session is None:
            # Not ours (any more): the client comes back through the front, which finds the owner.
            self.close(link, CLOSE_RESTART, "table moved")
            return
        link.session = session

    async def _end(self, link: OwnerLink) -> None:
        link.closed = True
        link.inbox.clear()
        if self.links.get((link.edge, link.id)) is link:
            del self.links[(link.edge, link.id)]
        session, link.session = link.session, None
        if session is not None:
            await session.ended()

    def peers(self) -> set[str]:
        return {link.edge for link in self.links.values()}

    def count(self) -> int:
        return len(self.links)

    def drop_peer(self, node: str, reason: str) -> None:
        # Told too (if it can hear): an edge only slow to answer must not keep a client that gets nothing.
        for link in [x for x in self.links.values() if x.edge == node]:
            self.close(link, CLOSE_RESTART, reason)

    def drop_all(self, reason: str) -> None:
        for link in list(self.links.values()):
            self.close(link, CLOSE_RESTART, reason)


__all__ = ["EdgeSession", "EdgeSide", "Locate", "OwnerSide", "RelayedSocket", "Relaying"]
