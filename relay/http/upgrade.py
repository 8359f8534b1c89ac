"""The WebSocket upgrade: a game socket leaves aiohttp for the relay's own protocol object (relay/http/ws.py),
served here (:class:`relay.http.session.GameSession`) or relayed to the table's owner (cluster mode).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import sys

from aiohttp import web

from relay.http.accounts import COOKIE, current
from relay.http.keys import CONFIG_KEY, EDGE_KEY, HUB_KEY, LIMITS_KEY, LOCATE_KEY, REFEREE_KEY
from relay.http.middlewares import forwarded_for, json_error, origin_allowed
from relay.http.session import GameSession
from relay.http.ws import HandshakeError, WebSocket, handshake_reply
from relay.journal import JournalUnavailable
from relay.journal.sqlite import StoreError
from relay.tables import Conn
from relay.tables.table import Member

log = logging.getLogger("lexio.relay")


# Seconds of silence before a game socket is pinged; it is dropped if the pong takes half as long again.
HEARTBEAT_SECONDS = 30.0


HARD_FRAME_LIMIT = 64 * 1024


class _Switched(web.StreamResponse):
    """Returned by the WebSocket handler once the connection is a :class:`relay.http.ws.WebSocket`: the 101
    answer is already written and aiohttp no longer owns the connection, so there is nothing to send."""

    async def prepare(self, request: web.BaseRequest) -> None:
        return None

    async def write_eof(self, data: bytes = b"") -> None:
        return None


async def websocket(request: web.Request) -> web.StreamResponse:
    referee = request.app[REFEREE_KEY]
    config = request.app[CONFIG_KEY]
    if not origin_allowed(request, config.allow_origins, config.public_origin):
        return json_error(403, "bad_origin", "this Origin may not open a game socket")
    owner: str | None = None
    if LOCATE_KEY in request.app:
        # Cluster mode: the table, claimed here; or the live node that owns it (the socket is relayed there).
        try:
            placed = await request.app[LOCATE_KEY](request.match_info["table_id"])
        except (JournalUnavailable, StoreError):
            log.exception("cannot claim a table")
            return json_error(503, "journal_unavailable", "this relay cannot serve the table now; try again")
        table, owner = (None, placed) if isinstance(placed, str) else (placed, None)
    else:
        # A finished table freed from memory (or from before a restart) comes back: its players may
        # reconnect to see the end and ask for, or learn of, a new table with the same players.
        table = referee.registry.revive(request.match_info["table_id"])
    if table is None and owner is None:
        return json_error(404, "table_not_found", "no such table")
    if request.method != "GET":  # the route also answers HEAD
        return json_error(400, "bad_request", "a WebSocket upgrade is a GET request")
    try:
        reply = handshake_reply(request.headers, (request.version.major, request.version.minor))
    except HandshakeError as err:
        return json_error(400, "bad_request", str(err))
    transport = request.transport
    if transport is None or transport.is_closing():
        raise ConnectionResetError("the peer left during the handshake")
    # Computed now (the request is not kept): only a rematch needs it, and the sockets of one host share
    # the one interned string.
    link_base = sys.intern(link_base_of(request))
    client = config.client_address(request.remote, forwarded_for(request))
    member = await _member(request)
    if owner is not None:
        edge = request.app[EDGE_KEY]
        relayed = edge.open(owner, request.match_info["table_id"], client, link_base, member)
        sock = WebSocket(
            relayed, request.app[HUB_KEY], max_size=HARD_FRAME_LIMIT, max_output=config.output_cap_kib * 1024
        )
        _take_over(request, transport, sock, reply)
        edge.attach(relayed, sock)
        return _Switched(status=101)
    assert table is not None
    session = GameSession(referee, config, table, link_base, request.app[LIMITS_KEY])
    sock = WebSocket(
        session, request.app[HUB_KEY], max_size=HARD_FRAME_LIMIT, max_output=config.output_cap_kib * 1024
    )
    session.conn = Conn(sock, sys.intern(client), member)
    referee.sockets += 1
    _take_over(request, transport, sock, reply)
    return _Switched(status=101)


async def _member(request: web.Request) -> Member | None:
    """The signed-in player of the socket (the session cookie sent with the upgrade); None: a guest (no
    cookie, or one that is unknown, revoked or expired; accounts unreachable: the player plays as a guest)."""
    if COOKIE not in request.cookies:
        return None
    try:
        account = await current(request)
    except (sqlite3.Error, JournalUnavailable):
        log.exception("accounts unavailable at a socket's upgrade")
        return None
    return None if account is None else Member(account.id, account.nickname)


def _take_over(request: web.Request, transport: asyncio.Transport, sock: WebSocket, reply: bytes) -> None:
    """Answer 101 and move the connection from aiohttp's RequestHandler to ``sock``.

    The handler is told its connection is lost (true for it: it never reads nor writes it again), after
    forgetting the transport so that it does not close it; aiohttp then drops it, its request and its task
    once this request handler returns. Bytes the peer sent right after its upgrade request wait in the
    handler's ``_message_tail`` (private, pinned aiohttp): they are the first WebSocket frames.
    """
    protocol = request.protocol
    early: bytes = getattr(protocol, "_message_tail", b"") or b""
    if early:
        protocol._message_tail = b""
    transport.write(reply)
    transport.set_protocol(sock)
    protocol.transport = None
    protocol.connection_lost(None)
    sock.attach(transport, early)


def link_base_of(request: web.Request) -> str:
    config = request.app[CONFIG_KEY]
    return config.public_url or str(request.url.with_path("/").with_query(None)).rstrip("/")
