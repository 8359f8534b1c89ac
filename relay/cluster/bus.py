"""The relay bus: messages between relay nodes over Redis pub/sub (cluster mode, ``--bus redis://…``).

lila-ws style: every node subscribes to one channel of its own, ``lexio:node:<node id>``. A socket that
lands on a node that does not own its table (the *edge*) is relayed to the *owner*: the edge publishes the
client's frames on the owner's channel, the owner publishes that connection's frames back on the edge's
(relay/cluster/relaying.py has both sides). Pub/sub delivers at most once, in order per publishing
connection; each
node publishes from one connection, in the order messages were queued, so a connection's frames keep
their order. A message can only be lost with the connection to Redis (or when a peer is not subscribed,
which PUBLISH's receiver count shows): both sides then drop that peer's relayed connections, and numbered
messages catch anything else (relaying.py closes the connection with 1012 on a gap).

Liveness: a node with relayed connections pings each peer involved, and itself, every
:data:`PING_SECONDS`; a peer not heard from for :data:`PEER_DEAD_SECONDS` is lost (its relayed connections
close), and not hearing itself means Redis is not delivering: the bus reconnects. While Redis is down only
relayed connections break; the bus reconnects with exponential backoff (with jitter), up to
:data:`BACKOFF_MAX` seconds between tries.

The wire format is one text message per frame: ``kind TAB source-node TAB connection TAB number TAB body``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:  # redis-py is the cluster extra's (pyproject.toml): a single host runs without it
    from redis.asyncio import Redis

log = logging.getLogger("lexio.relay")

CHANNEL_PREFIX: Final = "lexio:node:"
PING_SECONDS: Final = 1.0
PEER_DEAD_SECONDS: Final = 3.0
BACKOFF_FIRST: Final = 0.1
BACKOFF_MAX: Final = 2.0
# Messages waiting to be published before the bus gives up on its connection (see Bus.send).
OUTBOX_LIMIT: Final = 100_000
# Messages published in one round trip (a pipeline).
BATCH: Final = 256
# Seconds a connection to Redis may take, and any one command on it.
REDIS_TIMEOUT: Final = 2.0

# Message kinds. Edge -> owner: OPEN (JSON body: table, peer, link), FRAME (the client's text), BINARY (a
# binary message, refused by the owner), END (the client's socket is gone). Owner -> edge: SEND (a frame
# for the client), CLOSE (body "code TAB reason"). Either way: PING (connection 0, number 0).
OPEN: Final = "o"
FRAME: Final = "f"
BINARY: Final = "b"
END: Final = "e"
SEND: Final = "s"
CLOSE: Final = "c"
PING: Final = "p"
EDGE_KINDS: Final = frozenset((SEND, CLOSE))
OWNER_KINDS: Final = frozenset((OPEN, FRAME, BINARY, END))


def _redis_error() -> type[Exception]:
    from redis.exceptions import RedisError

    return RedisError


class BusError(ValueError):
    """A bus message that cannot be read (``code`` ``bad_bus_message``)."""

    code = "bad_bus_message"


@dataclass(frozen=True, slots=True)
class Message:
    kind: str
    source: str
    conn: int
    number: int
    body: str


def encode(kind: str, source: str, conn: int, number: int, body: str = "") -> str:
    return f"{kind}\t{source}\t{conn}\t{number}\t{body}"


def decode(raw: bytes | str) -> Message:
    """Raises BusError for anything not made by :func:`encode`."""
    try:
        text = raw.decode() if isinstance(raw, bytes) else raw
        kind, source, conn, number, body = text.split("\t", 4)
        return Message(kind, source, int(conn), int(number), body)
    except (UnicodeDecodeError, ValueError) as err:
        raise BusError(f"unreadable bus message: {str(raw)[:60]!r}") from err


class Side(Protocol):
    """One side of relaying (relay/cluster/relaying.py): its messages, lost peers, the bus going down."""

    def receive(self, message: Message) -> None: ...

    def peers(self) -> set[str]: ...

    def count(self) -> int: ...

    def drop_peer(self, node: str, reason: str) -> None: ...

    def drop_all(self, reason: str) -> None: ...


class Bus:
    """One node's connection to Redis: its channel, an ordered outbox, liveness, reconnection.

    ``sides`` receive the messages: the edge side those in :data:`EDGE_KINDS`, the owner side the others.
    ``up`` says whether messages can be sent now; :meth:`send` drops them otherwise (False).
    """

    def __init__(self, url: str, node_id: str) -> None:
        if "\t" in node_id:
            raise ValueError("a node id cannot contain a tab")
        self.url = url
        self.node_id = node_id
        self.channel = CHANNEL_PREFIX + node_id
        self.up = False
        self.edge: Side | None = None
        self.owner: Side | None = None
        self._outbox: deque[tuple[str, str]] = deque()
        self._wake = asyncio.Event()
        self._heard: dict[str, float] = {}
        self._runner: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._writing = False  # a batch is being published
        self.reconnects = 0
        # Called whenever the bus comes up or goes down (tests and health reports).
        self.on_change: Callable[[bool], None] | None = None

    # -- lifecycle -------------------------------------------------------------------------------------
    async def start(self, wait: float = REDIS_TIMEOUT) -> None:
        """Connect in the background; wait up to ``wait`` seconds for the first connection (the relay
        serves its own tables without Redis all the same)."""
        loop = asyncio.get_running_loop()
        self._runner = loop.create_task(self._run())
        self._pinger = loop.create_task(self._ping_loop())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._connected.wait(), wait)
        if not self.up:
            log.warning("relay bus not connected yet", extra={"fields": {"bus": self.url}})

    async def close(self, flush: float = 1.0) -> None:
        """Publish what is queued (up to ``flush`` seconds: the 1012s of a drain), then disconnect."""
        deadline = time.monotonic() + flush
        while self.up and (self._outbox or self._writing) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for task in (self._pinger, self._runner):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._pinger = self._runner = None
        self._set_up(False, "relay shutting down")

    def send(self, node: str, message: str) -> bool:
        """Queue ``message`` for ``node``'s channel (published in queue order). False: the bus is down."""
        if not self.up:
            return False
        if len(self._outbox) >= OUTBOX_LIMIT:
            # Redis takes less than we send: rather than grow without bound, break the relayed sockets
            # (they reconnect) and start over.
            log.warning("relay bus outbox full; reconnecting", extra={"fields": {"bus": self.url}})
            self._restart()
            return False
        self._outbox.append((node, message))
        self._wake.set()
        return True

    def health(self) -> dict[str, bool | int]:
        """For /healthz: up or not, sockets relayed out (edge) and in (owner), reconnections so far."""
        edge = self.edge.count() if self.edge is not None else 0
        owner = self.owner.count() if self.owner is not None else 0
        return {"up": self.up, "relayed_out": edge, "relayed_in": owner, "reconnects": self.reconnects}

    def touch(self, node: str) -> None:
        """A connection with ``node`` starts: it counts as heard from now."""
        self._heard[node] = time.monotonic()

    # -- the connection to Redis -----------------------------------------------------------------------
    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            started = time.monotonic()
            try:
                await self._connection()
            except asyncio.CancelledError:
                raise
            except (OSError, TimeoutError, BusError, _redis_error()) as err:
                if self.up or self.reconnects == 0:
                    log.warning(
                        "relay bus lost", extra={"fields": {"bus": self.url, "error": str(err)[:200]}}
                    )
            except Exception:
                log.exception("relay bus failed")
            self._set_up(False, "relay bus unavailable")
            if time.monotonic() - started > BACKOFF_MAX:
                delay = BACKOFF_FIRST  # it had been up a while: retry soon
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            delay = min(delay * 2, BACKOFF_MAX)
            self.reconnects += 1

    async def _connection(self) -> None:
        from redis.asyncio import Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import RedisError

        client: Redis = Redis.from_url(
            self.url,
            retry=Retry(NoBackoff(), 0),  # reconnecting is ours: a silent reconnect would hide lost messages
            socket_connect_timeout=REDIS_TIMEOUT,
            socket_timeout=REDIS_TIMEOUT,
            health_check_interval=0,
        )
        pubsub = client.pubsub()
        writer: asyncio.Task[None] | None = None
        try:
            await pubsub.subscribe(self.channel)
            while True:  # the subscription is confirmed before anything is sent to us
                confirm = await pubsub.get_message(timeout=REDIS_TIMEOUT)
                if confirm is None:
                    raise TimeoutError("Redis did not confirm the subscription")
                if confirm.get("type") == "subscribe":
                    break
            self._outbox.clear()
            self._heard = {self.node_id: time.monotonic()}
            self._set_up(True, "")
            writer = asyncio.get_running_loop().create_task(self._write(client))
            while True:
                if writer.done():
                    writer.result()  # raises what stopped it
                    return
                raw = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
                if raw is not None and raw.get("type") == "message":
                    self._deliver(raw["data"])
        finally:
            if writer is not None:
                writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                    await writer
            with contextlib.suppress(RedisError, OSError, RuntimeError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
            with contextlib.suppress(RedisError, OSError, RuntimeError):
                await client.aclose()

    async def _write(self, client: Redis) -> None:
        outbox = self._outbox
        while True:
            if not outbox:
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = [outbox.popleft() for _ in range(min(len(outbox), BATCH))]
            pipe = client.pipeline(transaction=False)
            for node, message in batch:
                pipe.publish(CHANNEL_PREFIX + node, message)
            self._writing = True
            try:
                counts: list[int] = await pipe.execute()
            finally:
                self._writing = False
            unheard = {node for (node, _), count in zip(batch, counts, strict=True) if count == 0}
            for node in unheard - {self.node_id}:
                # Nobody subscribed: the message is lost, and so is that node (dead or reconnecting).
                self._lose(node, "relay node unreachable")

    def _deliver(self, raw: bytes | str) -> None:
        try:
            message = decode(raw)
        except BusError:
            log.warning("bad bus message", extra={"fields": {"data": str(raw)[:80]}})
            return
        self._heard[message.source] = time.monotonic()
        if message.kind == PING:
            return
        side = self.edge if message.kind in EDGE_KINDS else self.owner
        if side is None:
            return
        try:
            side.receive(message)
        except Exception:
            log.exception("bus message failed", extra={"fields": {"kind": message.kind}})

    def _set_up(self, up: bool, reason: str) -> None:
        if up == self.up:
            return
        self.up = up
        if up:
            self._connected.set()
            log.info("relay bus connected", extra={"fields": {"bus": self.url, "node": self.node_id}})
        else:
            self._connected.clear()
            self._outbox.clear()
            for side in (self.edge, self.owner):
                if side is not None:
                    side.drop_all(reason)
        if self.on_change is not None:
            self.on_change(up)

    def _restart(self) -> None:
        """Drop the connection to Redis (every relayed socket ends) and connect again."""
        if self._runner is not None:
            self._runner.cancel()
            self._runner = asyncio.get_running_loop().create_task(self._run())
        self._set_up(False, "relay bus unavailable")

    def _lose(self, node: str, reason: str) -> None:
        self._heard.pop(node, None)
        for side in (self.edge, self.owner):
            if side is not None:
                side.drop_peer(node, reason)

    # -- liveness --------------------------------------------------------------------------------------
    async def _ping_loop(self) -> None:
        while True:
            await asyncio.sleep(PING_SECONDS)
            try:
                self.check(time.monotonic())
            except Exception:
                log.exception("relay bus ping failed")

    def check(self, now: float) -> None:
        """Ping this node and every peer with relayed connections; lose the silent ones."""
        if not self.up:
            return
        if now - self._heard.get(self.node_id, now) > PEER_DEAD_SECONDS:
            # Our own pings do not come back: Redis is not delivering. Reconnect.
            log.warning("relay bus silent; reconnecting", extra={"fields": {"bus": self.url}})
            self._restart()
            return
        peers: set[str] = set()
        for side in (self.edge, self.owner):
            if side is not None:
                peers |= side.peers()
        for node in peers:
            heard = self._heard.setdefault(node, now)
            if now - heard > PEER_DEAD_SECONDS:
                self._lose(node, "relay node lost")
        ping = encode(PING, self.node_id, 0, 0)
        for node in (peers & set(self._heard)) | {self.node_id}:
            self.send(node, ping)


__all__ = ["Bus", "BusError", "Message", "decode", "encode"]
