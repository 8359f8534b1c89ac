"""One game socket's session: its frames in order, rate limits, bad-frame count and deferred snapshots."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from math import ceil

import engine
import wire
from relay.addresses import address_key
from relay.config import Config
from relay.http.dispatch import dispatch
from relay.http.limits import Limits
from relay.journal import JournalUnavailable
from relay.journal.sqlite import StoreError
from relay.logs import client_warning
from relay.protocol import ProtocolError, RateLimiter, parse_frame
from relay.tables import (
    Conn,
    Referee,
    RelayError,
    Table,
)

log = logging.getLogger("lexio.relay")


MAX_BAD_FRAMES = 50


class GameSession:
    """The game behind one :class:`relay.http.ws.WebSocket`: its frames in order, rate limit, bad-frame
    count."""

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
            self.referee.broadcaster.send_error(conn, None, "bad_json", "binary frames are not accepted")
        else:
            outcome = await on_frame(self, conn, data, t0)
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
        await self.referee.seating.disconnect(conn)


async def on_frame(session: GameSession, conn: Conn, data: str, t0: float) -> int | None:
    """Answer one text frame. Returns 1 if it was a bad frame, 0 if not, None to stop reading (flooding)."""
    referee, config, table, limiter = session.referee, session.config, session.table, session.limiter
    # Byte length matters; encode only when the character count cannot settle it.
    if len(data) > config.frame_limit or (
        len(data) * 4 > config.frame_limit and len(data.encode()) > config.frame_limit
    ):
        referee.broadcaster.send_error(
            conn, None, "frame_too_large", f"frames are limited to {config.frame_limit} bytes"
        )
        return 1
    msg_id: str | None = None
    try:
        message = parse_frame(data)
        msg_id = message.id
        if not limiter.allow(time.monotonic()):
            if limiter.strikes > config.rate_burst:
                conn.close_soon(1008, "flooding")
                return None
            referee.broadcaster.send_error(conn, message.id, "rate_limited", "too many frames; slow down")
            return 0
        if isinstance(message, wire.Resync) and not _resync_allowed(session):
            _defer_snapshot(session, conn)
            return 0
        if isinstance(message, wire.Place) and not _probe_allowed(session, conn, message.id):
            return 0
        events = await dispatch(referee, table, conn, message, t0, link_base=session.link_base)
        if events and isinstance(events[-1], engine.Rejected):
            # Unknown words: besides the seat's reserve (the rules), the address's budget across tables.
            session.limits.probes.charge(address_key(conn.peer), time.monotonic())
        return 0
    except ProtocolError as err:
        referee.broadcaster.send_error(conn, err.msg_id, err.code, err.message, err.params)
        client_warning("bad frame", err.code, peer=conn.peer, table=table.id, why=err.message[:80])
    except RelayError as err:
        referee.broadcaster.send_error(conn, getattr(err, "msg_id", None), err.code, err.message, err.params)
    except (sqlite3.Error, StoreError, JournalUnavailable):
        # The journal refused: nothing was acknowledged; say so and go on (the client may send it again).
        log.exception("frame failed", extra={"fields": {"table": table.id, "seat": conn.seat}})
        referee.broadcaster.send_error(
            conn, msg_id, "internal_error", "the relay could not process this frame"
        )
        return 0
    except Exception:
        # A bug this frame ran into: answered, counted as a bad frame (a peer cannot repeat it for free),
        # and logged with its traceback at a bounded rate.
        if client_warning("frame failed", "frame_failed", table=table.id, seat=conn.seat, peer=conn.peer):
            log.exception("frame failed", extra={"fields": {"table": table.id, "seat": conn.seat}})
        referee.broadcaster.send_error(
            conn, msg_id, "internal_error", "the relay could not process this frame"
        )
    return 1


def _probe_allowed(session: GameSession, conn: Conn, msg_id: str | None) -> bool:
    """Whether this address may still have words checked; if not, answer ``probe_limit``."""
    probes, key, now = session.limits.probes, address_key(conn.peer), time.monotonic()
    if probes.available(key, now):
        return True
    wait = probes.wait(key, now)
    session.referee.broadcaster.send_error(
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
        session.referee.broadcaster.snapshot(
            session.table, conn
        )  # no await: nothing can take the lock meanwhile
    except (sqlite3.Error, StoreError, JournalUnavailable):
        log.exception("deferred snapshot failed", extra={"fields": {"table": session.table.id}})
