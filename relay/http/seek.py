"""Play now's socket, ``GET /ws/seek`` (docs/protocol.md, "Play now"): a signed-in player seeks a rated
game, is offered a table, confirms it and is told where it is.

Sockets apart from the games' (as lila-ws keeps them): one per page, low volume, so aiohttp's own
``WebSocketResponse`` serves them rather than the relay's lean game socket (relay/http/ws.py). The queue is
in the accounts database (relay/ratings/queue.py) so that every relay of a cluster shares it; this module
is one relay's side of it: its sockets, and a background round about every second that pairs (if no other
relay is pairing at that moment), refreshes its sockets' seeks and tells each player what changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from aiohttp import WSCloseCode, WSMsgType, web

from relay.accounts.service import Accounts
from relay.accounts.store import Account
from relay.http.accounts import client_key, current
from relay.http.keys import ACCOUNTS_KEY, CONFIG_KEY, REFEREE_KEY
from relay.http.limits import Budget
from relay.http.middlewares import json_error, origin_allowed
from relay.http.upgrade import link_base_of
from relay.journal import JournalUnavailable
from relay.journal.sqlite import StoreError
from relay.logs import client_warning
from relay.logs import event as log_event
from relay.ratings import RatingError, SpeedClass
from relay.ratings.queue import TURN_SECONDS, Poll, SeekQueue, SeekState, parse_seek
from relay.tables import Referee
from relay.tables.table import RelayError

log = logging.getLogger("lexio.relay")

# How often every relay pairs and polls its sockets' seeks (a seek, or the last confirmation, wakes the
# round at once). Read at each round: tests make it shorter.
ROUND_SECONDS = 1.0
# A waiting player is told how many are looking in their class when it changes, at most this often.
COUNT_SECONDS = 3.0
FRAME_MAX = 4096
# Frames a socket may send at once, then per second (a seek's frames are a handful a minute).
FRAMES_BURST, FRAMES_PER_SECOND = 10.0, 2.0
HEARTBEAT_SECONDS = 30.0
# Closes the relay sends: a guest (the page should sign in first), and a frame flood.
CLOSE_NOT_SIGNED_IN = 4003
CLOSE_FLOOD = 1008
# Keys each client frame may carry.
_FIELDS = {
    "seek": {"type", "speed", "size"},
    "cancel": {"type"},
    "confirm": {"type", "offer"},
    "decline": {"type", "offer"},
}
_UNAVAILABLE = (sqlite3.Error, JournalUnavailable, StoreError)


@dataclass(eq=False)
class SeekSocket:
    """One page's socket. ``seeking``: its seek is in the queue as far as this relay told the page;
    ``shown``: the offer last sent. ``busy`` counts the frames being handled and ``version`` the frames
    handled: a round's poll read before or during one is stale for this socket and not acted on."""

    id: str
    account: Account
    ws: web.WebSocketResponse
    link_base: str
    address: str
    speed: SpeedClass | None = None
    seeking: bool = False
    shown: str | None = None
    busy: int = 0
    version: int = 0
    count: int | None = None
    count_at: float = 0.0
    budget: Budget = field(default_factory=lambda: Budget(FRAMES_BURST, FRAMES_PER_SECOND))
    floods: int = 0


class PlayNow:
    """This relay's seek sockets and its pairing round (one per app)."""

    def __init__(self, accounts: Accounts, referee: Referee, node: str) -> None:
        self.accounts = accounts
        self.referee = referee
        self.node = node
        self.queue = SeekQueue(accounts.db, accounts.now_ms, lambda: secrets.token_urlsafe(9))
        self.sockets: dict[str, SeekSocket] = {}
        self.wake = asyncio.Event()
        self._failing = False

    # -- the round ---------------------------------------------------------------------------------------
    async def run(self) -> None:
        """Rounds until cancelled; a failed one (database unreachable) is logged once and retried."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), ROUND_SECONDS)
            self.wake.clear()
            try:
                await self.round()
            except Exception:
                if not self._failing:
                    log.exception("play now: a pairing round failed")
                self._failing = True
            else:
                self._failing = False

    async def round(self) -> None:
        """Pair (unless another relay is), then tell each socket what became of its seek. A relay without
        seek sockets does nothing: a live seek has a socket on some relay, and that relay pairs it (a dead
        relay's seeks are dropped by the next round anywhere)."""
        if not self.sockets:
            return
        done = await self.accounts.call(self.queue.pair, self.node, list(self.sockets))
        if done.offered or done.failed or done.expired:
            log_event(
                "play now round", node=self.node, offered=len(done.offered), failed=done.failed,
                expired=done.expired,
            )  # fmt: skip
        versions = {sid: s.version for sid, s in self.sockets.items() if not s.busy}
        poll = await self.accounts.call(self.queue.poll, self.node)
        now = time.monotonic()
        for sid, version in versions.items():
            sock = self.sockets.get(sid)
            if sock is not None and not sock.busy and sock.version == version:
                await self._tell(sock, poll.seeks.get(sid), poll, now)

    async def _tell(self, sock: SeekSocket, state: SeekState | None, poll: Poll, now: float) -> None:
        if state is None:
            if sock.seeking:  # a round dropped it: no confirmation in time, its relay died, account gone
                sock.seeking, sock.shown = False, None
                await _send(sock, {"type": "dropped"})
            return
        offer = state.offer
        if offer is not None and offer.table is not None:
            sock.seeking, sock.shown = False, None
            await _send(sock, self._paired(sock, offer.table))
            sock.busy += 1  # the seek is being closed: the next round must not call it dropped meanwhile
            try:
                await self.accounts.call(self.queue.delivered, sock.id, offer.id)
            finally:
                sock.busy -= 1
            return
        sock.seeking, sock.speed = True, state.speed
        if offer is not None:
            if offer.id != sock.shown:
                sock.shown = offer.id
                await _send(
                    sock,
                    {
                        "type": "offer",
                        "offer": offer.id,
                        "players": [{"nickname": p.nickname, "rating": p.rating} for p in offer.players],
                        "deadline": offer.deadline_ms,
                        "now": self.accounts.now_ms(),
                    },
                )
            return
        count = poll.counts.get(state.speed, 0)
        if sock.shown is not None or (count != sock.count and now - sock.count_at >= COUNT_SECONDS):
            sock.shown = None  # an offer fell through: waiting again (with the original enqueue time)
            await self._count(sock, state.speed, count, now)

    async def _count(self, sock: SeekSocket, speed: SpeedClass, count: int, now: float) -> None:
        sock.count, sock.count_at = count, now
        await _send(sock, {"type": "seeking", "speed": speed.value, "count": count})

    def _paired(self, sock: SeekSocket, table: str) -> dict[str, object]:
        log_event("play now paired", table=table, account=sock.account.id)
        return {"type": "paired", "table": table, "link": f"{sock.link_base}/t/{table}"}

    # -- a socket's frames -------------------------------------------------------------------------------
    async def on_text(self, sock: SeekSocket, text: str) -> None:
        """One client frame; a refusal is an ``error`` frame and changes nothing."""
        if not sock.budget.allow("", time.monotonic()):
            sock.floods += 1
            if sock.floods > 50:
                await sock.ws.close(code=CLOSE_FLOOD, message=b"too many frames")
                return
            await _error(sock, "rate_limited", "too many frames; slow down")
            return
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            msg = None
        kind = msg.get("type") if isinstance(msg, dict) else None
        if not isinstance(msg, dict) or kind not in _FIELDS or not set(msg) <= _FIELDS[str(kind)]:
            client_warning("bad play now frame", "bad_message", peer=sock.address)
            await _error(sock, "bad_message", "a frame is a JSON object: seek, cancel, confirm or decline")
            return
        sock.busy += 1
        try:
            if kind == "seek":
                await self._seek(sock, msg.get("speed"), msg.get("size"))
            elif kind == "cancel":
                await self._cancel(sock)
            else:
                await self._answer(sock, str(kind), msg.get("offer"))
        except RatingError as err:
            await _error(sock, err.code, err.message)
        except _UNAVAILABLE:
            log.exception("play now: accounts unavailable")
            await _error(sock, "accounts_unavailable", "accounts cannot be reached now; try again later")
        finally:
            sock.busy -= 1
            sock.version += 1

    async def _seek(self, sock: SeekSocket, speed_name: object, size_name: object) -> None:
        speed, size = parse_seek(speed_name, size_name)
        if sock.seeking:
            raise RatingError("seek_twice", "you are already looking for a game", status=409)
        me, call = sock.account, self.accounts.call
        ban = await call(self.accounts.moderation.ban_on, me.id, sock.address)
        if ban is not None:  # a banned player could not sit at the table formed
            refusal = ban.suspension().refusal()
            frame = {"type": "error", "code": refusal.code, "message": refusal.message}
            await _send(sock, {**frame, "params": refusal.params})
            return
        rating = (await call(self.accounts.ratings.current, [me.id], speed))[me.id]
        await call(
            self.queue.seek, me.id, sock.id, self.node, speed, size, rating.pairing_value, rating.label
        )
        sock.seeking, sock.shown, sock.speed = True, None, speed
        log_event("play now seek", account=me.id, speed=speed.value, size=size.value, node=self.node)
        self.wake.set()  # paired at once if a seek fits: no need to wait for the next round
        counts = await call(self.queue.counts)
        await self._count(sock, speed, counts.get(speed, 1), time.monotonic())

    async def _cancel(self, sock: SeekSocket) -> None:
        table = await self.accounts.call(self.queue.cancel, sock.account.id, sock.id)
        sock.seeking, sock.shown = False, None
        await _send(sock, {"type": "cancelled"} if table is None else self._paired(sock, table))

    async def _answer(self, sock: SeekSocket, kind: str, offer: object) -> None:
        if not isinstance(offer, str):
            raise RatingError("not_offered", "this table was not offered to you", status=409)
        if kind == "decline":
            await self.accounts.call(self.queue.decline, sock.account.id, sock.id, offer)
            sock.seeking, sock.shown = False, None
            await _send(sock, {"type": "cancelled"})
            return
        last = await self.accounts.call(self.queue.confirm, sock.account.id, sock.id, offer)
        await _send(sock, {"type": "confirmed", "offer": offer})
        if last:
            await self._start(offer, sock.speed or SpeedClass.NORMAL)

    async def _start(self, offer: str, speed: SpeedClass) -> None:
        """Every seat confirmed, the last one here: this relay makes the rated table."""
        try:
            table = await self.referee.registry.acreate_table(
                turn_seconds=TURN_SECONDS[speed], public=False, rated=True
            )
        except (RelayError, *_UNAVAILABLE):
            log.exception("play now: cannot create the table of an offer")
            await self.accounts.call(self.queue.abandon, offer)
            return
        if not await self.accounts.call(self.queue.started, offer, table.id):
            log_event("play now offer undone before its table", offer=offer, table=table.id)
        self.wake.set()  # this relay's seekers are told at once, the others' at their relay's next round

    # -- sockets -----------------------------------------------------------------------------------------
    def opened(self, ws: web.WebSocketResponse, account: Account, link_base: str, address: str) -> SeekSocket:
        sock = SeekSocket(secrets.token_urlsafe(12), account, ws, link_base, address)
        self.sockets[sock.id] = sock
        return sock

    async def closed(self, sock: SeekSocket) -> None:
        """The socket is gone: so is its seek (an offer it was in fails; the others wait again)."""
        self.sockets.pop(sock.id, None)
        try:
            await self.accounts.call(self.queue.leave, sock.id)
        except _UNAVAILABLE:
            log.exception("play now: cannot remove a closed socket's seek (it expires unseen)")

    async def close_all(self) -> None:
        for sock in list(self.sockets.values()):
            await sock.ws.close(code=WSCloseCode.SERVICE_RESTART, message=b"server restarting")


async def _send(sock: SeekSocket, frame: dict[str, object]) -> None:
    with contextlib.suppress(ConnectionError, RuntimeError):  # closing: the page is gone
        await sock.ws.send_str(json.dumps(frame))


async def _error(sock: SeekSocket, code: str, message: str) -> None:
    await _send(sock, {"type": "error", "code": code, "message": message})


PLAY_NOW_KEY = web.AppKey("play_now", PlayNow)


async def seek_socket(request: web.Request) -> web.StreamResponse:
    """``GET /ws/seek``: the Origin checked as a game socket's, the session cookie at the upgrade (a guest
    is told ``not_signed_in`` and the socket closed with 4003)."""
    config = request.app[CONFIG_KEY]
    if not origin_allowed(request, config.allow_origins, config.public_origin):
        return json_error(403, "bad_origin", "this Origin may not open a seek socket")
    if PLAY_NOW_KEY not in request.app:
        return json_error(503, "relay_busy", "the relay is starting or stopping")
    play = request.app[PLAY_NOW_KEY]
    try:
        account = await current(request)
    except _UNAVAILABLE:
        log.exception("accounts unavailable at a seek socket's upgrade")
        return json_error(503, "accounts_unavailable", "accounts cannot be reached now; try again later")
    # No compression (frames are small, as the game sockets'); a close the peer never answers ends in 2 s
    # (a restart must not wait on it).
    ws = web.WebSocketResponse(
        heartbeat=HEARTBEAT_SECONDS, max_msg_size=FRAME_MAX, compress=False, timeout=2.0
    )
    await ws.prepare(request)
    if account is None:
        await ws.send_str(json.dumps({"type": "error", "code": "not_signed_in", "message": "sign in first"}))
        await ws.close(code=CLOSE_NOT_SIGNED_IN, message=b"not signed in")
        return ws
    sock = play.opened(ws, account, link_base_of(request), client_key(request))
    try:
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await play.on_text(sock, msg.data)
            elif msg.type == WSMsgType.BINARY:
                await _error(sock, "bad_message", "frames are JSON text")
    finally:
        await play.closed(sock)
    return ws


async def _play_now(app: web.Application) -> AsyncIterator[None]:
    """Started after the accounts and the referee (relay.app's resources), stopped before them."""
    referee, accounts = app[REFEREE_KEY], app[ACCOUNTS_KEY]
    # The cluster's node name when there is one (the journal's), else this process's own.
    node = str(getattr(referee.store, "node_id", "") or f"relay-{secrets.token_hex(6)}")
    app[PLAY_NOW_KEY] = play = PlayNow(accounts, referee, node)
    task = asyncio.get_running_loop().create_task(play.run())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await play.close_all()


async def _close_sockets(app: web.Application) -> None:
    # Before the cleanup: the sockets close with 1012 while the loop still serves them.
    if PLAY_NOW_KEY in app:
        await app[PLAY_NOW_KEY].close_all()


def add_routes(app: web.Application) -> None:
    """``GET /ws/seek`` (before the game sockets' ``/ws/{table_id}``) and its round's lifetime."""
    app.router.add_get("/ws/seek", seek_socket)
    app.cleanup_ctx.append(_play_now)
    app.on_shutdown.append(_close_sockets)


__all__ = ["PLAY_NOW_KEY", "PlayNow", "SeekSocket", "add_routes"]
