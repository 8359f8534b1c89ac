"""The browser's doors as the glue sees them: the page, the relay's socket, timers, HTTP, background tasks.

``web/src/main.py`` implements them with Pyodide's ``js`` module; tests/web with fakes (a recording page, a
fake socket, timers run by hand). Each part of the glue asks for the doors it uses, and no more.

For the type checker only: the glue imports this under ``if TYPE_CHECKING:`` (no start-up cost).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int:
        """The page's wall clock (``Date.now()``), in ms."""
        ...


class Page(Protocol):
    """The page the worker draws: one message per render, timing marks, its address bar."""

    def post(self, text: str) -> None:
        """Hand one message (a patch: ``lexio:`` + JSON) to the page; never waits for it to be applied."""
        ...

    def mark(self, name: str) -> None:
        """A ``performance.mark`` (``?perf``: a browser trace finds each action's task by it)."""
        ...

    def pathname(self, href: str) -> str:
        """The path of an address, as the browser parses it (``new URL(href).pathname``)."""
        ...


class Socket(Protocol):
    """One WebSocket to the relay."""

    @property
    def is_open(self) -> bool: ...

    def send(self, text: str) -> None: ...

    def close(self, code: int) -> None:
        """Close it (a socket already closed is fine)."""
        ...


class Sockets(Protocol):
    def open_socket(
        self,
        url: str,
        on_open: Callable[[], None],
        on_message: Callable[[str], None],
        on_close: Callable[[int], None],
    ) -> Socket:
        """Open a WebSocket; the callbacks get nothing, each text message, the close code."""
        ...


class Timers(Protocol):
    def later(self, delay_ms: float, fn: Callable[[], object]) -> None:
        """Call ``fn`` once, ``delay_ms`` from now (``setTimeout``)."""
        ...


class Tasks(Protocol):
    def spawn(self, coro: Coroutine[object, object, None]) -> None:
        """Run ``coro`` in the background (the page's event loop)."""
        ...


class Fetch(Protocol):
    async def fetch(self, url: str, method: str | None = None, body: str | None = None) -> tuple[int, str]:
        """The status and text of an HTTP answer; ``method`` None: a plain GET as the browser makes it,
        else a JSON request. Raises when the network fails (no answer at all)."""
        ...


class Network(Protocol):
    def online(self) -> bool:
        """``navigator.onLine``: False when the browser knows it has no network (what the page's offline note
        says too); True does not promise that the relay answers."""
        ...


class Browser(Clock, Page, Sockets, Timers, Tasks, Fetch, Network, Protocol):
    """Every door at once: what ``web/src/main.py`` hands to :class:`app.glue.client.Client`."""
