"""The aiohttp application: HTTP API, WebSocket endpoint, static site, health and metrics.

:func:`create_app` builds it from a :class:`~relay.config.Config`; the journal, word list and referee are
opened in ``cleanup_ctx`` (so they close in reverse order) and reachable through typed ``AppKey``s.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from ipaddress import IPv6Address, ip_address
from math import ceil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

import engine
from relay import chat, resend
from relay.botdriver import BotDriver, load_default_driver
from relay.bus import Bus
from relay.config import Config
from relay.guard import MAX_BODY, Guard, guard_middleware, raise_nofile, serve
from relay.journal import JournalUnavailable, open_journal
from relay.lexicon import load_lexicon
from relay.limits import Limits, address_key
from relay.logs import access_log, client_warning
from relay.metrics import Metrics
from relay.protocol import ClientMessage, ProtocolError, RateLimiter, TileIn, parse_frame
from relay.relaying import EdgeSide, Locate, OwnerSide, Relaying
from relay.static import StaticSite
from relay.store import StoreError
from relay.tables import CLOSE_RESTART, Clock, Conn, Referee, RelayError, Socket, Table, dumps, wall_clock_ms
from relay.ws import HandshakeError, Hub, WebSocket, handshake_reply

if TYPE_CHECKING:  # psycopg is only needed by hosts that use PostgreSQL
    from relay.ownership import Ownership

log = logging.getLogger("lexio.relay")

CONFIG_KEY = web.AppKey("config", Config)
REFEREE_KEY = web.AppKey("referee", Referee)
METRICS_KEY = web.AppKey("metrics", Metrics)
STATIC_KEY = web.AppKey("static", StaticSite)
HUB_KEY = web.AppKey("ws_hub", Hub)
# Cluster mode only (relay/bus.py, relay/relaying.py): the Redis bus, its edge side, where tables live.
BUS_KEY = web.AppKey("bus", Bus)
EDGE_KEY = web.AppKey("edge", EdgeSide)
LOCATE_KEY: web.AppKey[Locate] = web.AppKey("locate")
# Seconds of silence before a game socket is pinged; it is dropped if the pong takes half as long again.
HEARTBEAT_SECONDS = 30.0


LIMITS_KEY = web.AppKey("limits", Limits)

HARD_FRAME_LIMIT = 64 * 1024
MAX_BAD_FRAMES = 50
_UNSET: Any = object()

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def headers_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """COOP/COEP on every response (Pyodide needs cross-origin isolation), plus one access-log line."""
    t0 = time.perf_counter()
    status = 500
    response: web.StreamResponse
    try:
        if request.method == "OPTIONS" and request.path.startswith("/api/"):
            # The CORS preflight, answered here for every API path (the router would say 405).
            response = await api_preflight(request)
        else:
            response = await handler(request)
        status = response.status
    except web.HTTPException as exc:
        status = exc.status
        exc.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        exc.headers["Cross-Origin-Embedder-Policy"] = "require-corp"
        if request.path.startswith("/api/"):
            cors = cors_origin(request)
            if cors is not None:  # the page may read why (e.g. 413 body too large)
                exc.headers.update(_cors_headers(cors))
        raise
    finally:
        request.app[METRICS_KEY].http_requests += 1
        access_log.info(
            "request",
            extra={
                "fields": {
                    "method": request.method,
                    "path": request.path,
                    "status": status,
                    "ms": round((time.perf_counter() - t0) * 1000, 2),
                }
            },
        )
    if not response.prepared:
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        response.headers.setdefault("Cross-Origin-Embedder-Policy", "require-corp")
        if request.path.startswith("/api/"):
            cors = cors_origin(request)
            if cors is not None:
                response.headers.update(_cors_headers(cors))
    return response


CORS_METHODS = "GET, POST, OPTIONS"
CORS_MAX_AGE = "600"


def cors_origin(request: web.Request) -> str | None:
    """The ``Origin`` to grant cross-origin reads of ``/api/*``, or None (no CORS headers).

    Only the origins listed with ``--allow-origin`` (``*``: any) and the ``--public-url``'s origin: the
    same that may open game sockets. The relay's own host needs no CORS; static files never get it.
    """
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return None
    config = request.app[CONFIG_KEY]
    bare = origin.rstrip("/")
    if bare in config.allow_origins or "*" in config.allow_origins:
        return origin
    if config.public_origin is not None and bare.lower() == config.public_origin:
        return origin
    return None


def _cors_headers(origin: str) -> dict[str, str]:
    # Vary: caches must not hand one origin's answer to another. No credentials: the API needs no cookies.
    return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}


async def api_preflight(request: web.Request) -> web.Response:
    """``OPTIONS /api/*``: the CORS preflight of a cross-origin POST (JSON body). 204 with the grant for an
    allowed origin; 403 ``bad_origin`` without any CORS header otherwise (the browser then refuses)."""
    origin = cors_origin(request)
    if origin is None:
        return _error(403, "bad_origin", "this Origin may not call the relay's API")
    headers = {
        **_cors_headers(origin),
        "Access-Control-Allow-Methods": CORS_METHODS,
        "Access-Control-Allow-Headers": "Content-Type",
        "Access-Control-Max-Age": CORS_MAX_AGE,
    }
    return web.Response(status=204, headers=headers)


def _error(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"code": code, "message": message}, status=status)


def _table_summary(referee: Referee, table: Table) -> dict[str, Any]:
    st = table.state
    return {
        "id": table.id,
        "variant": str(st.variant),
        "status": table.status,
        "public": table.public,
        "turn_seconds": int(st.turn_seconds),
        "created_ms": table.created_ms,
        "version": int(st.version),
        "turn": st.turn,
        "seats": [
            {"seat": i, "name": s.name, "bot": s.bot, "score": s.score, "connected": table.connected(i)}
            for i, s in enumerate(st.seats)
        ],
        "rematch": table.rematch,
    }


async def create_table(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    config = request.app[CONFIG_KEY]
    client = request.app[CONFIG_KEY].client_address(request.remote, _forwarded_for(request))
    limits = request.app[LIMITS_KEY]
    if not limits.creations.allow(address_key(client), time.monotonic()):
        return _error(429, "rate_limited", "too many tables created from this address; try again shortly")
    if limits.idle_waiting(referee, time.monotonic()) >= config.max_waiting_tables:
        return _error(
            503, "tables_busy", "too many tables are waiting for players on this relay; try again later"
        )
    try:
        # The guard middleware has read the body already (within its timeout): empty means none.
        body = await request.json() if await request.read() else {}
    except (ValueError, RecursionError):
        # ValueError: bad JSON, bad UTF-8, or an integer past Python's digit limit; RecursionError: nesting.
        return _error(400, "bad_request", "body must be a JSON object")
    if not isinstance(body, dict):
        return _error(400, "bad_request", "body must be a JSON object")
    extra = set(body) - {"turn_seconds", "public", "variant"}
    if extra:
        return _error(400, "bad_request", f"unexpected key {sorted(extra)[0]!r}")
    turn_seconds = body.get("turn_seconds", config.turn_seconds)
    public = body.get("public", True)
    variant = body.get("variant", "lexio")
    if not isinstance(turn_seconds, int) or isinstance(turn_seconds, bool):
        return _error(400, "bad_turn_seconds", "turn_seconds must be an integer 30-600")
    if not isinstance(public, bool):
        return _error(400, "bad_request", "public must be true or false")
    if not isinstance(variant, str):
        return _error(400, "bad_request", "variant must be a string")
    try:
        table = await referee.acreate_table(turn_seconds=turn_seconds, public=public, variant=variant)
    except RelayError as err:
        return _error(400, err.code, err.message)
    except engine.LexioError as err:
        return _error(400, err.code, err.message)
    except (sqlite3.Error, JournalUnavailable):
        log.exception("cannot journal a new table")
        return _error(503, "journal_unavailable", "the relay cannot write its journal; try again later")
    limits.created()
    path = f"/t/{table.id}"
    if config.public_url is not None:
        # Behind a reverse proxy the request says http://127.0.0.1:8080; players need the public address.
        link = config.public_url + path
    else:
        link = str(request.url.with_path(path).with_query(None))
    return web.json_response(
        {"id": table.id, "link": link, "path": path, "ws": f"/ws/{table.id}"}, status=201
    )


async def list_tables(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    out = []
    listed = await referee.cluster.open_tables() if referee.cluster is not None else referee.open_tables()
    for t in listed:
        summary = _table_summary(referee, t)
        out.append(
            {
                "id": t.id,
                "variant": summary["variant"],
                "turn_seconds": summary["turn_seconds"],
                "created_ms": t.created_ms,
                "seats": [{k: s[k] for k in ("seat", "name", "bot", "connected")} for s in summary["seats"]],
                "free": 4 - len(summary["seats"]),
            }
        )
    return web.json_response({"tables": out})


async def _read_table(referee: Referee, table_id: str) -> Table | None:
    # Cluster mode reads PostgreSQL off the event loop (relay/ownership.py).
    if referee.cluster is not None:
        return await referee.cluster.read_table(table_id)
    return referee.read_table(table_id)


async def get_table(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    table = await _read_table(referee, request.match_info["table_id"])
    if table is None:
        return _error(404, "table_not_found", "no such table")
    return web.json_response(_table_summary(referee, table))


async def get_gcg(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    table = await _read_table(referee, request.match_info["table_id"])
    if table is None:
        return _error(404, "table_not_found", "no such table")
    if table.status != "ended":
        return _error(409, "game_not_finished", "the game record is available once the game has ended")
    from engine.gcg import write_gcg

    text = write_gcg(referee.full_state(table))
    # GCG's #id pragma names the table: the replay viewer finds a seat's own analysis for a dropped file.
    head, _, rest = text.partition("\n")
    text = f"{head}\n#id lexio {table.id}\n{rest}"
    return web.Response(text=text, content_type="text/plain", charset="utf-8")


async def post_analysis(request: web.Request) -> web.Response:
    """``POST /api/tables/{id}/analysis`` ``{"token": ...}``: a seat's analysis, once (relay.analysis)."""
    from relay.analysis import HTTP_STATUS, analysis_by_token

    try:
        body = await request.json() if await request.read() else {}
    except (ValueError, RecursionError):
        return _error(400, "bad_request", "body must be a JSON object")
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not 0 < len(token) <= 200:
        return _error(400, "bad_request", 'body must be {"token": the seat\'s token}')
    try:
        seat, moves = await analysis_by_token(request.app[REFEREE_KEY], request.match_info["table_id"], token)
    except RelayError as err:
        return _error(HTTP_STATUS.get(err.code, 400), err.code, err.message)
    return web.json_response({"seat": seat, "moves": moves})


async def healthz(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    cluster = referee.cluster.health() if referee.cluster is not None else {"ok": True}
    return web.json_response(
        {
            **cluster,
            "tables": len(referee.tables),
            "sockets": referee.sockets,
            "uptime_s": int(time.monotonic() - referee.started),
            # Cluster mode: the Redis bus (down, it only breaks relayed sockets: the node stays healthy).
            **({"bus": request.app[BUS_KEY].health()} if BUS_KEY in request.app else {}),
        },
        # Cluster mode: a node that cannot renew its heartbeat (or is draining) leaves the front's rotation.
        status=200 if cluster["ok"] else 503,
    )


async def metrics(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    extra_text = (
        "# HELP lexio_gc_full_collections_total Full garbage collections (each pauses the loop).\n"
        "# TYPE lexio_gc_full_collections_total counter\n"
        f"lexio_gc_full_collections_total {int(GC_STATS['full_collections'])}\n"
        "# HELP lexio_gc_full_seconds_total Time spent in full garbage collections.\n"
        "# TYPE lexio_gc_full_seconds_total counter\n"
        f"lexio_gc_full_seconds_total {GC_STATS['full_seconds']:.6f}"
    )
    if referee.cluster is not None:
        # appends / batches: how many actions share a PostgreSQL transaction (relay/groupcommit.py).
        commits = referee.cluster.commits
        extra_text += (
            "\n# HELP lexio_journal_batches_total Group-commit transactions sent (committed or failed).\n"
            "# TYPE lexio_journal_batches_total counter\n"
            f"lexio_journal_batches_total {commits.batches}\n"
            "# HELP lexio_journal_batched_appends_total Actions' appends those transactions carried.\n"
            "# TYPE lexio_journal_batched_appends_total counter\n"
            f"lexio_journal_batched_appends_total {commits.appends}"
        )
    text = request.app[METRICS_KEY].render(referee.counts_by_state(), referee.sockets, lambda: extra_text)
    return web.Response(
        text=text, content_type="text/plain", charset="utf-8", headers={"X-Prometheus-Format": "0.0.4"}
    )


def origin_allowed(request: web.Request, allowed: tuple[str, ...], public_origin: str | None = None) -> bool:
    """The relay's own origin, the --public-url's origin, or listed with --allow-origin. No Origin: not a
    browser, allowed.

    The relay's own origin is the address it was reached at (the listening socket's host and port, plus
    ``localhost`` on loopback, plus the ``--host`` name), over plain ``http``: never the request's
    ``Host`` header, which a page on another name (DNS rebinding) controls.
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if origin in allowed or "*" in allowed:
        return True
    if public_origin is not None and origin.lower() == public_origin:
        return True
    return origin.lower() in own_origins(request)


def own_origins(request: web.Request) -> set[str]:
    """``http://host:port`` origins of this relay as the connection reached it (see origin_allowed)."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if not isinstance(sockname, tuple) or len(sockname) < 2:
        return set()
    host, port = str(sockname[0]), int(sockname[1])
    names = {host}
    with contextlib.suppress(ValueError):
        ip = ip_address(host)
        if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
            names.add(str(ip))
        if ip.is_loopback:
            names |= {"localhost", "127.0.0.1", "::1"}
    bind = request.app[CONFIG_KEY].host
    if bind and bind not in ("0.0.0.0", "::"):
        names.add(bind)
    out = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        out.add(f"http://{shown}:{port}".lower())
        if port == 80:
            out.add(f"http://{shown}".lower())
    return out


def _forwarded_for(request: web.BaseRequest) -> str:
    # Every X-Forwarded-For line, as one list (RFC 9110 5.3): some proxies add a line of their own.
    return ",".join(request.headers.getall("X-Forwarded-For", ()))


class _Switched(web.StreamResponse):
    """Returned by the WebSocket handler once the connection is a :class:`relay.ws.WebSocket`: the 101
    answer is already written and aiohttp no longer owns the connection, so there is nothing to send."""

    async def prepare(self, request: web.BaseRequest) -> None:
        return None

    async def write_eof(self, data: bytes = b"") -> None:
        return None


async def websocket(request: web.Request) -> web.StreamResponse:
    referee = request.app[REFEREE_KEY]
    config = request.app[CONFIG_KEY]
    if not origin_allowed(request, config.allow_origins, config.public_origin):
        return _error(403, "bad_origin", "this Origin may not open a game socket")
    owner: str | None = None
    if LOCATE_KEY in request.app:
        # Cluster mode: the table, claimed here; or the live node that owns it (the socket is relayed there).
        try:
            placed = await request.app[LOCATE_KEY](request.match_info["table_id"])
        except (JournalUnavailable, StoreError):
            log.exception("cannot claim a table")
            return _error(503, "journal_unavailable", "this relay cannot serve the table now; try again")
        table, owner = (None, placed) if isinstance(placed, str) else (placed, None)
    else:
        # A finished table freed from memory (or from before a restart) comes back: its players may
        # reconnect to see the end and ask for, or learn of, a new table with the same players.
        table = referee.revive(request.match_info["table_id"])
    if table is None and owner is None:
        return _error(404, "table_not_found", "no such table")
    if request.method != "GET":  # the route also answers HEAD
        return _error(400, "bad_request", "a WebSocket upgrade is a GET request")
    try:
        reply = handshake_reply(request.headers, (request.version.major, request.version.minor))
    except HandshakeError as err:
        return _error(400, "bad_request", str(err))
    transport = request.transport
    if transport is None or transport.is_closing():
        raise ConnectionResetError("the peer left during the handshake")
    # Computed now (the request is not kept): only a rematch needs it, and the sockets of one host share
    # the one interned string.
    link_base = sys.intern(_link_base(request))
    client = config.client_address(request.remote, _forwarded_for(request))
    if owner is not None:
        edge = request.app[EDGE_KEY]
        relayed = edge.open(owner, request.match_info["table_id"], client, link_base)
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
    session.conn = Conn(sock, sys.intern(client))
    referee.sockets += 1
    _take_over(request, transport, sock, reply)
    return _Switched(status=101)


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


class GameSession:
    """The game behind one :class:`relay.ws.WebSocket`: its frames in order, rate limit, bad-frame count."""

    __slots__ = (
        "bad",
        "config",
        "conn",
        "deferred",
        "limiter",
        "limits",
        "link_base",
        "referee",
        "resyncs",
        "table",
    )

    def __init__(
        self, referee: Referee, config: Config, table: Table, link_base: str, limits: Limits | None = None
    ) -> None:
        self.referee = referee
        self.limits = limits or Limits.from_config(config)
        self.config = config
        self.table = table
        self.link_base = link_base
        self.conn: Conn | None = None
        self.limiter = RateLimiter(config.rate_burst, config.rate_per_second, time.monotonic())
        # Snapshots cost a view of the whole game: their own, slower budget (made on the first resync).
        self.resyncs: RateLimiter | None = None
        # A resync asked past that budget: answered once the budget allows (one snapshot for all of them).
        self.deferred: asyncio.TimerHandle | None = None
        self.bad = 0

    async def frame(self, data: str | bytes, t0: float) -> bool:
        """One message (``bytes``: a binary one, refused). False: read no more (flooding, too many bad)."""
        conn = self.conn
        if conn is None:
            return False
        outcome: int | None = 1
        if isinstance(data, bytes):
            self.referee.send_error(conn, None, "bad_json", "binary frames are not accepted")
        else:
            outcome = await _on_frame(self, conn, data, t0)
        if outcome is not None:
            self.bad += outcome
            if self.bad <= MAX_BAD_FRAMES:
                return True
            conn.close_soon(1008, "too many bad frames")
        # As when a handler leaves its receive loop: the seat shows as away at once.
        await self.ended()
        return False

    async def ended(self) -> None:
        """The socket is gone (or going): free the seat's connection. Idempotent."""
        conn, self.conn = self.conn, None
        if self.deferred is not None:
            self.deferred.cancel()
            self.deferred = None
        if conn is None:
            return
        self.referee.sockets -= 1
        await self.referee.disconnect(conn)


def _link_base(request: web.Request) -> str:
    config = request.app[CONFIG_KEY]
    return config.public_url or str(request.url.with_path("/").with_query(None)).rstrip("/")


async def _on_frame(session: GameSession, conn: Conn, data: str, t0: float) -> int | None:
    """Answer one text frame. Returns 1 if it was a bad frame, 0 if not, None to stop reading (flooding)."""
    referee, config, table, limiter = session.referee, session.config, session.table, session.limiter
    # Byte length matters; encode only when the character count cannot settle it.
    if len(data) > config.frame_limit or (
        len(data) * 4 > config.frame_limit and len(data.encode()) > config.frame_limit
    ):
        referee.send_error(conn, None, "frame_too_large", f"frames are limited to {config.frame_limit} bytes")
        return 1
    msg_id: str | None = None
    try:
        message = parse_frame(data)
        msg_id = message.id
        if not limiter.allow(time.monotonic()):
            if limiter.strikes > config.rate_burst:
                conn.close_soon(1008, "flooding")
                return None
            referee.send_error(conn, message.id, "rate_limited", "too many frames; slow down")
            return 0
        if message.type == "resync" and not _resync_allowed(session):
            _defer_snapshot(session, conn)
            return 0
        if message.type == "place" and not _probe_allowed(session, conn, message.id):
            return 0
        events = await dispatch(referee, table, conn, message, t0, link_base=session.link_base)
        if events and type(events[-1]).__name__ == "Rejected":
            # Unknown words: besides the seat's reserve (the rules), the address's budget across tables.
            session.limits.probes.charge(address_key(conn.peer), time.monotonic())
        return 0
    except ProtocolError as err:
        referee.send_error(conn, err.msg_id, err.code, err.message, err.params)
        client_warning("bad frame", err.code, peer=conn.peer, table=table.id, why=err.message[:80])
    except RelayError as err:
        referee.send_error(conn, getattr(err, "msg_id", None), err.code, err.message, err.params)
    except (sqlite3.Error, StoreError, JournalUnavailable):
        # The journal refused: nothing was acknowledged; say so and go on (the client may send it again).
        log.exception("frame failed", extra={"fields": {"table": table.id, "seat": conn.seat}})
        referee.send_error(conn, msg_id, "internal_error", "the relay could not process this frame")
        return 0
    except Exception:
        # A bug this frame ran into: answered, counted as a bad frame (a peer cannot repeat it for free),
        # and logged with its traceback at a bounded rate.
        if client_warning("frame failed", "frame_failed", table=table.id, seat=conn.seat, peer=conn.peer):
            log.exception("frame failed", extra={"fields": {"table": table.id, "seat": conn.seat}})
        referee.send_error(conn, msg_id, "internal_error", "the relay could not process this frame")
    return 1


def _probe_allowed(session: GameSession, conn: Conn, msg_id: str | None) -> bool:
    """Whether this address may still have words checked; if not, answer ``probe_limit``."""
    probes, key, now = session.limits.probes, address_key(conn.peer), time.monotonic()
    if probes.available(key, now):
        return True
    wait = probes.wait(key, now)
    session.referee.send_error(
        conn,
        msg_id,
        "probe_limit",
        f"too many unknown words tried from this address; wait {ceil(wait)} s",
        {"seconds": ceil(wait), "next_try_ms": session.referee.now_ms() + ceil(wait * 1000)},
    )
    return False


def _resync_allowed(session: GameSession) -> bool:
    now = time.monotonic()
    if session.resyncs is None:
        session.resyncs = RateLimiter(session.config.resync_burst, session.config.resync_per_second, now)
    return session.deferred is None and session.resyncs.allow(now)


def _defer_snapshot(session: GameSession, conn: Conn) -> None:
    """Answer a resync past the connection's budget later, when the budget allows; resyncs asked
    meanwhile are answered by that same snapshot (it is the latest state anyway)."""
    if session.deferred is not None or session.resyncs is None:
        return
    wait = session.resyncs.wait(time.monotonic())
    session.deferred = asyncio.get_running_loop().call_later(wait, _late_snapshot, session, conn)


def _late_snapshot(session: GameSession, conn: Conn) -> None:
    session.deferred = None
    if session.conn is not conn or conn.closing or session.resyncs is None:
        return  # gone meanwhile
    if session.table.lock.locked():
        # An action is being committed: the snapshot must follow it, not cut into it.
        session.deferred = asyncio.get_running_loop().call_later(0.01, _late_snapshot, session, conn)
        return
    session.resyncs.allow(time.monotonic())
    try:
        session.referee.snapshot(session.table, conn)  # no await: nothing can take the lock meanwhile
    except (sqlite3.Error, StoreError, JournalUnavailable):
        log.exception("deferred snapshot failed", extra={"fields": {"table": session.table.id}})


class _Refusal(RelayError):
    def __init__(self, msg_id: str | None, code: str, message: str) -> None:
        super().__init__(code, message)
        self.msg_id = msg_id


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


def _tile(t: TileIn) -> Any:
    letter = t.letter
    if t.blank and letter in ("", "?"):
        letter = ""
    return engine.Tile(t.sq, letter.upper(), t.blank)


async def dispatch(
    referee: Referee, table: Table, conn: Conn, m: ClientMessage, t0: float, *, link_base: str = ""
) -> list[Any]:
    """Route one valid client frame. Raises RelayError (answered by the caller) for relay-level refusals.
    Returns the events of a game action ([] for other frames).

    ``link_base`` (the relay's public address) prefixes the shareable link of a rematch table."""
    if m.type == "ping":
        conn.send(dumps({"type": "pong", "id": m.id, "now": referee.now_ms()}))
        return []
    if m.type in ("join", "watch"):
        # A spectator (or a seat that left before the start) may still take a seat on the same socket.
        if conn.joined and (conn.seat is not None or m.type == "watch"):
            raise _Refusal(m.id, "already_joined", "this connection already joined; open a new one")
        if m.type == "watch":
            await referee.watch(table, conn, m.id)
        elif m.token is not None:
            try:
                await referee.join_by_token(table, conn, m.token, m.id)
            except RelayError as err:
                raise _Refusal(m.id, err.code, err.message) from err
        else:
            assert m.name is not None
            await referee.join_by_name(table, conn, m.name, m.id, t0)
        return []
    if not conn.joined:
        raise _Refusal(m.id, "not_joined", "send a join (or watch) frame first")
    if m.type == "resync":
        async with table.lock:
            referee.snapshot(table, conn)
        return []
    if m.type == "chat":
        await chat.post(referee, table, conn, m.id, m.text, m.name)
        return []
    if m.type == "rematch":
        try:
            await referee.rematch(table, conn, m.id, lambda new_id: f"{link_base}/t/{new_id}")
        except RelayError as err:
            raise _Refusal(m.id, err.code, err.message) from err
        return []
    if m.type == "analyse":
        from relay.analysis import serve_analysis

        try:
            await serve_analysis(referee, table, conn, m.id)
        except RelayError as err:
            raise _Refusal(m.id, err.code, err.message) from err
        return []
    seat = conn.seat
    if seat is None:
        raise _Refusal(m.id, "not_a_seat", "spectators cannot act")
    command: Callable[[Table], list[Any]]
    if m.type == "start":
        command = lambda t: [engine.Start(_seat(conn))]  # noqa: E731
    elif m.type == "leave":
        command = lambda t: [engine.Leave(_seat(conn))]  # noqa: E731
    elif m.type == "add_bot":
        if referee.bot_driver is None:
            raise _Refusal(m.id, "bots_unavailable", "this relay has no computer players")
        if seat != 0:
            raise _Refusal(m.id, "not_first_seat", "only the first seat may add a computer player")
        level = m.level or "medium"
        command = lambda t: [engine.Join(_bot_name(t), bot=level)]  # noqa: E731
    elif m.type == "remove_bot":
        if seat != 0:
            raise _Refusal(m.id, "not_first_seat", "only the first seat may remove a computer player")
        target = m.seat if m.seat is not None else -1
        command = lambda t: [engine.Leave(_bot_seat(t, target))]  # noqa: E731
    elif m.type == "place":
        tiles = tuple(_tile(t) for t in m.tiles)
        command = lambda t: [engine.Play(_seat(conn), engine.Place(tiles))]  # noqa: E731
    elif m.type == "swap":
        command = lambda t: [engine.Play(_seat(conn), engine.Swap(m.swap))]  # noqa: E731
    elif m.type == "pass":
        command = lambda t: [engine.Play(_seat(conn), engine.Pass())]  # noqa: E731
    else:  # pragma: no cover - parse_frame admits only the types above
        raise _Refusal(m.id, "unknown_type", m.type)
    return await referee.run(
        table, conn, command, kind=m.type, msg_id=m.id, t0=t0, digest=resend.digest(m), resent=m.resent
    )


_gc_started = 0.0


def _gc_timer(phase: str, info: dict[str, int]) -> None:
    """Count full collections and their pauses (exported in /metrics)."""
    global _gc_started
    if info.get("generation") != 2:
        return
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        GC_STATS["full_collections"] += 1
        GC_STATS["full_seconds"] += time.perf_counter() - _gc_started


GC_STATS: dict[str, float] = {"full_collections": 0, "full_seconds": 0.0}


def _word_list_paths(config: Config) -> tuple[Path, ...]:
    from relay.lexicon import NAMED_LEXICONS, LexiconError, default_cache_dir, lexicon_files

    paths = [p.parent for files in NAMED_LEXICONS.values() for p in files]
    paths.append(config.lexicon_cache or default_cache_dir())
    if config.lexicon not in NAMED_LEXICONS:
        try:
            paths.extend(lexicon_files(config.lexicon))
        except LexiconError:  # reported when the list is loaded; nothing to hide if it does not exist
            paths.append(Path(config.lexicon))
    return tuple(paths)


def create_app(
    config: Config,
    *,
    now_ms: Clock | None = None,
    lexicon: engine.Lexicon | None = None,
    bot_driver: BotDriver | None = _UNSET,
    relaying: Relaying | None = None,
) -> web.Application:
    """Build the relay application.

    ``now_ms`` (tests) replaces the wall clock; ``lexicon`` replaces loading ``config.lexicon``;
    ``bot_driver`` replaces ``relay.bots.driver()`` (None: no bots); ``relaying`` (cluster mode) relays
    sockets of tables owned elsewhere over its Redis bus (relay/relaying.py). The journal is opened and
    unfinished tables restored at startup (raises sqlite3.Error / relay.lexicon.LexiconError then).
    """
    app = web.Application(middlewares=[headers_middleware, guard_middleware], client_max_size=MAX_BODY)
    app[CONFIG_KEY] = config
    app[METRICS_KEY] = Metrics()
    app[STATIC_KEY] = StaticSite(config.static, forbidden=_word_list_paths(config))
    app[LIMITS_KEY] = Limits.from_config(config)
    app[HUB_KEY] = hub = Hub(HEARTBEAT_SECONDS)
    clock = now_ms or wall_clock_ms

    async def resources(app: web.Application) -> AsyncIterator[None]:
        words = (
            lexicon if lexicon is not None else load_lexicon(config.lexicon, cache_dir=config.lexicon_cache)
        )
        store = open_journal(config)
        driver = load_default_driver(words) if bot_driver is _UNSET else bot_driver
        referee = Referee(config, store, words, now_ms=clock, metrics=app[METRICS_KEY], bot_driver=driver)
        ownership: Ownership | None = None
        if config.cluster:
            # Tables are claimed when their sockets arrive, not restored (relay/ownership.py).
            from relay.ownership import Ownership
            from relay.pgstore import PostgresStore

            assert isinstance(store, PostgresStore)
            ownership = Ownership(referee, store)
            try:
                await ownership.start()
            except BaseException:
                await ownership.close()
                store.close()
                raise
            referee.cluster = ownership
            if now_ms is None:
                referee.now_ms = ownership.now_ms
            restored = 0
        else:
            restored = referee.restore()
        app[REFEREE_KEY] = referee
        logging.getLogger("lexio.relay").info(
            "relay ready",
            extra={
                "fields": {"restored_tables": restored, "db": config.journal_name, "bots": driver is not None}
            },
        )
        # Startup objects (modules, word list wrappers, restored journals) never die: keep them out of the
        # collector's full passes, which otherwise grow with every table.
        gc.collect()
        gc.freeze()
        # Thousands of sockets mean hundreds of thousands of tracked objects: a full collection then pauses
        # the loop for hundreds of ms. Young collections stay frequent; full ones become rare.
        gc.set_threshold(10_000, 50, 100)
        if _gc_timer not in gc.callbacks:
            gc.callbacks.append(_gc_timer)
        referee.start()
        hub.start()
        relays = relaying
        if relays is None and ownership is not None and config.bus_url is not None:
            relays = Relaying(config.bus_url, ownership.node_id, _locate(ownership))
        bus = await _start_bus(app, relays) if relays is not None else None
        for table in referee.tables.values():
            referee._schedule_bot(table)
        try:
            yield
        finally:
            await referee.shutdown()
            await hub.close_all(CLOSE_RESTART, b"server restarting")
            if bus is not None:
                await bus.close()
            if ownership is not None:
                await ownership.close()
            store.close()

    async def on_shutdown(app: web.Application) -> None:
        # Runs before cleanup: close sockets with 1012 while the loop still serves them.
        if REFEREE_KEY in app:
            await app[REFEREE_KEY].shutdown()
        # Sockets that never joined a table (the referee closed the others).
        await hub.close_all(CLOSE_RESTART, b"server restarting")

    app.cleanup_ctx.append(resources)
    app.on_shutdown.append(on_shutdown)
    app.router.add_post("/api/tables", create_table)
    app.router.add_get("/api/tables", list_tables)
    app.router.add_get("/api/tables/{table_id}", get_table)
    app.router.add_get("/api/tables/{table_id}/gcg", get_gcg)
    app.router.add_post("/api/tables/{table_id}/analysis", post_analysis)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/ws/{table_id}", websocket)
    app.router.add_route("*", "/{path:.*}", app[STATIC_KEY].handle)
    return app


def _locate(ownership: Ownership) -> Locate:
    """Cluster mode's answer to "where is this table": claimed here, another live node's id, or None."""
    from relay.ownership import Elsewhere

    async def locate(table_id: str) -> Table | str | None:
        found = await ownership.acquire(table_id)
        return found.node_id if isinstance(found, Elsewhere) else found

    return locate


async def _start_bus(app: web.Application, relaying: Relaying) -> Bus:
    """Connect the Redis bus: sockets of tables owned elsewhere are relayed to their owners (the edge
    side), and sockets relayed here from other nodes are served as local ones (the owner side)."""
    bus = Bus(relaying.bus_url, relaying.node_id)
    locate = relaying.locate

    async def open_relayed(table_id: str, peer: str, link_base: str, socket: Socket) -> GameSession | None:
        try:
            placed = await locate(table_id)
        except (JournalUnavailable, StoreError):
            log.exception("cannot claim a relayed table")
            return None
        if not isinstance(placed, Table):
            return None  # moved on (or gone) since the edge looked
        referee, config = app[REFEREE_KEY], app[CONFIG_KEY]
        session = GameSession(referee, config, placed, sys.intern(link_base), app[LIMITS_KEY])
        session.conn = Conn(socket, sys.intern(peer))
        referee.sockets += 1
        return session

    app[EDGE_KEY] = EdgeSide(bus, (app[CONFIG_KEY].rate_burst, app[CONFIG_KEY].rate_per_second))
    OwnerSide(bus, open_relayed)
    app[BUS_KEY] = bus
    app[LOCATE_KEY] = locate
    await bus.start()
    return bus


def run(config: Config) -> None:
    """Serve until SIGINT/SIGTERM (then shut down gracefully), every connection through the guard."""
    soft, hard = raise_nofile()
    guard = Guard(config, soft)
    log.info(
        "descriptors",
        extra={
            "fields": {
                "nofile_soft": soft,
                "nofile_hard": hard,
                "connections": guard.capacity,
                "per_address": config.max_connections_per_address,
            }
        },
    )
    serve(create_app(config), config, guard)


__all__ = ["CONFIG_KEY", "METRICS_KEY", "REFEREE_KEY", "create_app", "run"]
