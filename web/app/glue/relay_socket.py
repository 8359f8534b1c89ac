"""One WebSocket to the relay at a time, JSON frames both ways: what the table's socket
(:class:`app.glue.connection.Connection`) and play now's seek socket (:class:`app.glue.playnow.PlayNow`)
share.

Each socket opened gets a generation number: the callbacks of a socket given up on (closed, replaced) find
theirs stale and do nothing."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.glue.doors import Socket, Sockets


class RelaySocket:
    """``ws``: the socket open (or opening), None once closed or dropped; ``gen``: its generation."""

    def __init__(self, sockets: Sockets) -> None:
        self.sockets = sockets
        self.ws: Socket | None = None
        self.gen = 0

    def open(
        self,
        url: str,
        first: Callable[[], Mapping[str, object]],
        on_frame: Callable[[dict[str, object]], None],
        on_close: Callable[[int], None],
    ) -> None:
        """Close the socket open, if any, and open one to ``url``: ``first()``'s frame is sent once it is
        open, each JSON object received goes to ``on_frame`` (other messages are ignored), and ``on_close``
        gets the close code (``ws`` is None by then). Nothing is called for a socket given up on."""
        self.close()
        gen = self.gen

        def opened() -> None:
            if gen == self.gen and self.ws is not None:
                self.ws.send(json.dumps(first()))

        def message(text: str) -> None:
            if gen != self.gen:
                return
            try:
                frame: object = json.loads(text)
            except ValueError:
                return
            if isinstance(frame, dict):
                on_frame(frame)

        def closed(code: int) -> None:
            if gen != self.gen:
                return
            self.ws = None
            on_close(code)

        self.ws = self.sockets.open_socket(url, opened, message, closed)

    def send(self, frame: Mapping[str, object]) -> None:
        """Send ``frame`` if the socket is open (dropped otherwise)."""
        if self.ws is not None and self.ws.is_open:
            self.ws.send(json.dumps(frame))

    def close(self) -> None:
        """Give the socket up (its callbacks go stale) and close it."""
        self.gen += 1
        if self.ws is not None:
            with contextlib.suppress(Exception):  # already closed
                self.ws.close(1000)
        self.ws = None
