"""Fake browser doors for the glue (app.glue.doors) on CPython: a page that applies and records each patch,
sockets driven by hand from the relay's side, timers and background tasks run when a test says so, and an
HTTP relay answering from a table of canned answers."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Coroutine
from typing import Any

from app.glue.client import Client
from app.glue.session import Address
from app.payloads import HTML_SEPARATOR
from web_helpers import T0

ORIGIN = "http://lexio.test"
# Every fake made, so that a test's background tasks never run can be closed after it (see close).
MADE: list[FakeBrowser] = []


class FakeSocket:
    """One socket the page opened; the test plays the relay: ``opened``, ``receive``, ``dropped``."""

    def __init__(
        self,
        url: str,
        on_open: Callable[[], None],
        on_message: Callable[[str], None],
        on_close: Callable[[int], None],
    ) -> None:
        self.url = url
        self._on_open, self._on_message, self._on_close = on_open, on_message, on_close
        self.sent: list[dict[str, Any]] = []
        self.is_open = False
        self.closed_with: int | None = None

    def send(self, text: str) -> None:
        assert self.is_open, "sent on a socket that is not open"
        self.sent.append(json.loads(text))

    def close(self, code: int) -> None:
        self.is_open, self.closed_with = False, code

    # -- the relay's side --------------------------------------------------------------------------------
    def opened(self) -> None:
        self.is_open = True
        self._on_open()

    def receive(self, frame: dict[str, Any]) -> None:
        self._on_message(json.dumps(frame))

    def dropped(self, code: int = 1006) -> None:
        self.is_open = False
        self._on_close(code)


class FakeBrowser:
    """Every door of ``app.glue.doors.Browser``; the page's side applies each patch as the page would."""

    def __init__(self, now: int = T0) -> None:
        self.now = now
        self.patches: list[dict[str, Any]] = []
        self.regions: dict[str, str] = {}  # region id -> inner HTML, as the page shows it
        self.squares: dict[str, str] = {}  # board square -> its cell's HTML, once sent alone
        self.storage_writes: dict[str, str | None] = {}
        self.marks: list[str] = []
        self.sockets: list[FakeSocket] = []
        self.timers: list[tuple[float, Callable[[], object]]] = []
        self.tasks: list[Coroutine[object, object, None]] = []
        self.answers: dict[tuple[str, str], tuple[int, str]] = {}  # (method, url) -> (status, text)
        self.requests: list[tuple[str, str, str | None]] = []
        self.network = True  # navigator.onLine (False: the browser knows it is offline)
        MADE.append(self)

    # -- doors -------------------------------------------------------------------------------------------
    def now_ms(self) -> int:
        return self.now

    def post(self, text: str) -> None:
        assert text.startswith("lexio:")
        patch = decode_patch(text[len("lexio:") :])
        self.patches.append(patch)
        apply_regions(self.regions, patch.get("r", {}))
        self.squares.update(patch.get("c", {}))
        self.storage_writes.update(patch.get("store", {}))

    def mark(self, name: str) -> None:
        self.marks.append(name)

    def online(self) -> bool:
        return self.network

    def pathname(self, href: str) -> str:
        from urllib.parse import urlsplit  # here: the first-path test checks the app never imports it

        return urlsplit(href).path

    def open_socket(
        self,
        url: str,
        on_open: Callable[[], None],
        on_message: Callable[[str], None],
        on_close: Callable[[int], None],
    ) -> FakeSocket:
        sock = FakeSocket(url, on_open, on_message, on_close)
        self.sockets.append(sock)
        return sock

    def later(self, delay_ms: float, fn: Callable[[], object]) -> None:
        self.timers.append((delay_ms, fn))

    def spawn(self, coro: Coroutine[object, object, None]) -> None:
        self.tasks.append(coro)

    async def fetch(self, url: str, method: str | None = None, body: str | None = None) -> tuple[int, str]:
        self.requests.append((method or "GET", url, body))
        answer = self.answers.get((method or "GET", url))
        if answer is None:
            raise OSError(f"no answer for {method or 'GET'} {url}: the network is down")
        return answer

    # -- the test's hands --------------------------------------------------------------------------------
    def answer(self, method: str, path: str, status: int, body: object) -> None:
        text = body if isinstance(body, str) else json.dumps(body)
        self.answers[(method, ORIGIN + path)] = (status, text)

    def settle(self) -> None:
        """Run the background tasks (HTTP calls) to their end, those they start included."""

        async def drain() -> None:
            while self.tasks:
                await self.tasks.pop(0)

        asyncio.run(drain())

    def close(self) -> None:
        """Drop the background tasks a test left unrun (the page was closed before they ran)."""
        for coro in self.tasks:
            coro.close()
        self.tasks.clear()

    def run_timers(self) -> None:
        timers, self.timers = self.timers, []
        for _, fn in timers:
            fn()

    @property
    def socket(self) -> FakeSocket:
        """The last socket opened."""
        assert self.sockets, "no socket was opened"
        return self.sockets[-1]

    @property
    def last_patch(self) -> dict[str, Any]:
        assert self.patches, "nothing was posted to the page"
        return self.patches[-1]


# Elements inside a region that a patch may write alone (their inner HTML): the rack's tiles, #rack in t-rack.
INNER = {"rack": "t-rack"}


def decode_patch(text: str) -> dict[str, Any]:
    """A patch as ``window.lexioPatch`` reads it (app.payloads.encode_patch): JSON, then the named HTML."""
    head, *html = text.split(HTML_SEPARATOR)
    patch: dict[str, Any] = json.loads(head)
    if html:
        names = [("r", n) for n in patch.pop("R", [])] + [("c", n) for n in patch.pop("C", [])]
        assert len(names) == len(html), "as many HTML parts as names"
        for (part, name), piece in zip(names, html, strict=True):
            patch.setdefault(part, {})[name] = piece
    return patch


def apply_regions(regions: dict[str, str], written: dict[str, str]) -> None:
    """A patch's regions (``r``) applied as the page applies them (each element's inner HTML, by id, in
    order): an element inside a region (:data:`INNER`) is written into that region's HTML."""
    for region, html in written.items():
        outer = INNER.get(region)
        if outer is None:
            regions[region] = html
            continue
        shown = regions[outer]  # the page has no such element otherwise: a patch must not name it
        head = shown.index(f' id="{region}"')
        start = shown.index(">", head) + 1
        tag = shown[shown.rindex("<", 0, head) + 1 : head].split()[0]
        depth, at = 1, start
        while depth:  # the element's own closing tag, past any nested one of the same name
            opening, closing = shown.find(f"<{tag}", at), shown.index(f"</{tag}>", at)
            if 0 <= opening < closing:
                depth, at = depth + 1, opening + 1
            else:
                depth, at = depth - 1, closing + 1
        regions[outer] = shown[:start] + html + shown[at - 1 :]


def client_at(path: str, storage: dict[str, str] | None = None, **kw: Any) -> tuple[Client, FakeBrowser]:
    """A client for a page opened at ``path`` (not started: call ``begin``), on fake doors."""
    browser = FakeBrowser()
    addr = Address(origin=ORIGIN, base="/", path=path, search="", relay=ORIGIN)
    client = Client(browser, addr, dict(storage or {}), langs=["fr"], rng=random.Random(1), **kw)
    return client, browser


def ui(client: Client, **event: Any) -> None:
    """One UI event as the page's bootstrap posts it (a JSON string; ``ts``: the event's time stamp)."""
    client.on_ui(json.dumps({"ts": 1.5, **event}))


def text(browser: FakeBrowser, region: str) -> str:
    """A region's HTML with its entities decoded."""
    import html  # here: the first-path test checks the app never imports it

    return html.unescape(browser.regions.get(region, ""))
