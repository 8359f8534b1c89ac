"""The relay's two doors: the table's WebSocket (:class:`Connection`) and the HTTP API (:class:`RelayApi`)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, cast

from app.glue.relay_socket import RelaySocket
from app.timing import NO_RECONNECT, should_reconnect

if TYPE_CHECKING:
    from app.glue.doors import Clock, Fetch, Socket, Sockets, Timers
    from app.glue.session import Address
    from app.payloads import ServerFrame
    from app.state import UiState

    class SocketDoors(Clock, Sockets, Timers, Protocol):
        """What a connection needs of the browser: sockets, a timer to reconnect, the clock."""


class Connection:
    """The table's socket: opened for the state's table (the join frame first), the state's outbox sent on
    it, and after a drop opened again with backoff, unless the close code says not to (docs/protocol.md).

    Each socket opened gets a generation number (:class:`app.glue.relay_socket.RelaySocket`): the callbacks
    of a socket given up on (closed, replaced) find theirs stale and do nothing, and so does its retry."""

    def __init__(
        self,
        state: UiState,
        addr: Address,
        doors: SocketDoors,
        *,
        on_frame: Callable[[ServerFrame], None],
        on_change: Callable[[], None],
    ) -> None:
        self.state = state
        self.addr = addr
        self.doors = doors
        self.on_frame = on_frame  # each frame from the relay
        self.on_change = on_change  # the connection's state changed (a drop): render it
        self.socket = RelaySocket(doors)

    @property
    def ws(self) -> Socket | None:
        return self.socket.ws

    def close(self) -> None:
        self.socket.close()

    def connect(self) -> None:
        s = self.state
        if s.table_id is None:
            return
        s.conn = "connecting"

        def on_close(code: int) -> None:
            if not should_reconnect(code):
                s.conn, s.stop_reason = "stopped", NO_RECONNECT[code]
            elif s.table_id is not None:
                # After a relay restart every client comes back at once: spread them over 1-3 s.
                delay = 1000 + random.uniform(0, 2000) if code == 1012 else s.backoff.next_delay()
                s.conn = "offline"
                s.retry_at = self.doors.now_ms() + delay
                gen = self.socket.gen
                self.doors.later(delay, lambda: self._retry(gen))
            self.on_change()

        self.socket.open(
            self.addr.ws_url(s.table_id),
            s.join_frame,
            lambda frame: self.on_frame(cast("ServerFrame", frame)),
            on_close,
        )

    def _retry(self, gen: int) -> None:
        if gen == self.socket.gen:  # not given up on meanwhile (left the table, another socket opened)
            self.connect()

    def flush(self) -> None:
        """Send what the state queued (frames queued while no socket is open are dropped: the join and the
        welcome's resends cover them)."""
        s = self.state
        while s.outbox:
            self.socket.send(s.outbox.pop(0))


class RelayApi:
    """The relay's HTTP API (JSON both ways), and the site's ``config.json`` naming the relay."""

    def __init__(self, addr: Address, fetch: Fetch) -> None:
        self.addr = addr
        self.fetch = fetch

    async def load_config(self, relay: str | None) -> None:
        """The relay's address: ``?relay=`` (``relay``), else the site's config.json, else this origin."""
        if not relay:
            try:
                _, text = await self.fetch.fetch(self.addr.origin + self.addr.base + "config.json")
                relay = str(json.loads(text).get("relay") or "")
            except Exception:  # no config.json (or unreadable): the relay is this origin
                relay = ""
        self.addr.relay = relay.rstrip("/") or self.addr.origin

    async def call(
        self, method: str, path: str, body: Mapping[str, object] | None = None
    ) -> tuple[int, object]:
        """The status and the JSON (or text) of the answer; status 0 when the network is down."""
        try:
            status, text = await self.fetch.fetch(
                self.addr.relay + path, method, None if body is None else json.dumps(body)
            )
            return status, (json.loads(text) if text.startswith(("{", "[")) else text)
        except Exception:  # network down: shown as a notice, the UI stays usable
            return 0, {"code": "network_error"}
