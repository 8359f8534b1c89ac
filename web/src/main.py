"""Browser glue (the worker's program, run by web/src/pyodide-boot.mjs): the browser's doors, and the app's
start.

All decisions are in the plain-Python ``app`` package (``app.glue.client.Client`` and its parts); this file
implements the doors they use (``app.glue.doors``: the page, WebSocket, timers, HTTP, tasks) with Pyodide's
``js`` module. The page and this worker only exchange messages: the page's state at start came with the
worker's first message (``js.lexioBootData``), UI events arrive as one JSON string each (handed to
:meth:`App.on_ui` through ``js.lexioListen``), every render leaves as one JSON patch posted to the page
(applied by ``window.lexioPatch`` there), and ``"lexio-ready"`` tells the page to hand over the events it
kept while Python was starting.

The modules imported at the top are those a returning visitor's interpreter snapshot holds compiled
(web/build.py reads them: ``warm_imports``).
"""

# ruff: noqa: E402  (BOOT is stamped before the other imports, to time them)

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import time
from collections.abc import Callable, Coroutine

import js

# ms since this worker started (its own time origin), and how the runtime started
BOOT: dict[str, float | str] = {"python": float(js.performance.now())}
from app import loader, render, state  # noqa: F401  (the first screen's: named for the snapshot, see above)
from app.glue.client import Client
from app.glue.session import Address
from pyodide.ffi import create_once_callable, create_proxy

BOOT["imports"] = float(js.performance.now())
# A returning visitor's interpreter comes from a snapshot (pyodide-boot.mjs), random's state included:
# reseed from the OS so that every start draws differently (reconnection jitter).
random.seed()
with contextlib.suppress(Exception):  # set by pyodide-boot.mjs: did this start come from a snapshot?
    BOOT["snapshot"] = bool(js.lexioRuntime.snapshot)
    BOOT["runtime_ms"] = float(js.lexioRuntime.ms)
    BOOT["phases"] = str(js.lexioRuntime.phases)


PREFETCH_IDLE_S = 0.2  # the modules off the first path load one by one when no UI event came for this long
# After the first answer: its trailing work first (the lobby's fetches, the socket, the service worker's
# install). Started 0.3 s after it, the prefetch's slices (~25 ms of the worker's CPU each on the phone-like
# profile) ran beside those and stretched the page's own short tasks past 50 ms in 4 of 32 cold visits
# (traced: ~1 ms of CPU each); 2.5 s after, in 0 of 32 (issue 28, fifth pass).
PREFETCH_AFTER_MS = 2500
PREFETCH_EVERY_MS = 20
IDLE_GC_S = 1.0  # no UI event for this long, and no collection for this long: collect (in tick)
GC_AT_LEAST_S = 30.0
# Looked up once: each ``js.<name>`` access crosses the FFI and makes a new proxy (tens of µs per hop, on
# every keystroke: issue 28). A method keeps the object it was read from.
POST = js.postMessage
MARK = js.performance.mark


def _is_null(x: object) -> bool:
    return x is None or str(x) in ("jsnull", "null", "undefined")


class JsSocket:
    """A WebSocket of the page's (``app.glue.doors.Socket``)."""

    def __init__(self, ws: js.WebSocket) -> None:
        self.ws = ws

    @property
    def is_open(self) -> bool:
        return int(self.ws.readyState) == 1

    def send(self, text: str) -> None:
        self.ws.send(text)

    def close(self, code: int) -> None:
        self.ws.close(code)


class JsBrowser:
    """The doors of ``app.glue.doors.Browser`` on Pyodide's ``js`` module."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Future[None]] = set()

    def now_ms(self) -> int:
        # Date.now()'s clock (ms since the epoch), read without crossing the FFI: CPython's time.time() runs
        # on the runtime's own clock_gettime.
        return int(time.time() * 1000)

    def post(self, text: str) -> None:
        POST(text)

    def mark(self, name: str) -> None:
        MARK(name)

    def pathname(self, href: str) -> str:
        return str(js.URL.new(href).pathname)

    def online(self) -> bool:
        # The worker's navigator: the same network state as the page's offline note.
        return js.navigator.onLine is not False

    def open_socket(
        self,
        url: str,
        on_open: Callable[[], None],
        on_message: Callable[[str], None],
        on_close: Callable[[int], None],
    ) -> JsSocket:
        ws = js.WebSocket.new(url)

        def opened(_ev: object) -> None:
            on_open()

        def message(ev: js.MessageEvent) -> None:
            on_message(str(ev.data))

        def closed(ev: js.CloseEvent) -> None:
            on_close(int(ev.code))

        ws.onopen = create_proxy(opened)
        ws.onmessage = create_proxy(message)
        ws.onclose = create_proxy(closed)
        return JsSocket(ws)

    def later(self, delay_ms: float, fn: Callable[[], object]) -> None:
        js.setTimeout(create_once_callable(fn), delay_ms)

    def spawn(self, coro: Coroutine[object, object, None]) -> None:
        # Keep a reference: the event loop holds tasks weakly.
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def fetch(self, url: str, method: str | None = None, body: str | None = None) -> tuple[int, str]:
        if method is None:
            resp = await js.fetch(url)
        else:
            opts: dict[str, object] = {"method": method, "headers": {"Content-Type": "application/json"}}
            if body is not None:
                opts["body"] = body
            resp = await js.fetch(url, js.JSON.parse(json.dumps(opts)))
        return int(resp.status), str(await resp.text())


class App:
    """The worker's app: a :class:`Client` on the browser's doors, its start, its tick, and when Python's
    cycle collector runs."""

    def __init__(self) -> None:
        # Everything the page knew at start, sent with the worker's first message (pyodide-boot.mjs).
        boot = json.loads(str(js.lexioBootData))
        url = js.URL.new(str(boot["href"]))
        origin = str(url.origin)
        # The site may live under a sub-path (<base href> set by web/build.py --base).
        base = str(js.URL.new(str(boot["base"])).pathname)
        self.params = url.searchParams
        addr = Address(
            origin=origin,
            base=base,
            path="/" + str(url.pathname)[len(base) :],
            search=str(url.search),
            relay=origin,
        )
        self.browser = JsBrowser()
        self.client = Client(
            self.browser,
            addr,
            dict(boot["storage"]),  # localStorage "lexio:*", kept in step by the patches
            langs=boot["langs"],
            notify_perm=str(boot.get("notify", "unsupported")),
            mark_actions=not _is_null(self.params.get("perf")),
            rng=random.Random(),
        )
        self.last_ui = self.last_gc = time.monotonic()
        self.prefetched: set[str] = set()
        self.prefetch_next = create_proxy(self.prefetch)

    def on_ui(self, text: str) -> None:
        try:
            self.last_ui = time.monotonic()
            self.client.on_ui(str(text))
        except Exception as err:
            js.console.error(f"lexio ui error: {err!r}")

    def tick(self) -> None:
        self.client.tick()
        self.collect_when_idle()

    def collect_when_idle(self) -> None:
        """Python's cycle collector runs here, between a player's actions, never inside one.

        Left automatic it fired in the middle of a keystroke's handling (1-2 ms spikes in the preview time).
        Everything from start-up is frozen (see start), so a collection walks only what play made since.
        A player who never pauses still gets one every ``GC_AT_LEAST_S``."""
        now = time.monotonic()
        since = now - self.last_gc
        if (now - self.last_ui >= IDLE_GC_S and since >= IDLE_GC_S) or since >= GC_AT_LEAST_S:
            self.last_gc = now
            gc.collect()

    def prefetch(self) -> None:
        """Load the next module off the first path (app.loader.PREFETCH), while the player is idle: each is a
        slice of a few ms to a few tens of ms, and a player who reaches the replay or the analysis finds it
        loaded. Then everything is frozen again, out of the idle collections' sight."""
        if time.monotonic() - self.last_ui < PREFETCH_IDLE_S:
            js.setTimeout(self.prefetch_next, PREFETCH_IDLE_S * 1000)
            return
        try:
            name = loader.prefetch_one(self.prefetched)
        except Exception as err:  # on first use it will be tried again, and say why there
            js.console.error(f"lexio prefetch error: {err!r}")
            name = ""
        if name is None:
            # Everything from start-up and the prefetch, collected once (start froze it uncollected, see
            # start), then frozen again.
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            return
        js.setTimeout(self.prefetch_next, PREFETCH_EVERY_MS)

    async def start(self) -> None:
        js.lexioListen(create_proxy(self.on_ui))  # each UI event the page posts to this worker
        relay = self.params.get("relay")
        if _is_null(relay):
            # config.json's relay, read by pyodide-boot.mjs while Pyodide loaded ("": this origin); if it
            # could not be read (null), load_config asks for it again.
            configured = js.lexioConfigRelay
            relay = None if _is_null(configured) else (str(configured) or self.client.session.addr.origin)
        await self.client.api.load_config(None if _is_null(relay) else str(relay))
        js.setInterval(create_proxy(self.tick), 250)
        demo = self.params.get("demo")
        self.client.begin(None if _is_null(demo) else str(demo))
        BOOT["ready"] = float(js.performance.now())
        self.client.page.patch["boot"] = json.dumps(BOOT)
        self.client.page.send()
        # Everything alive now (modules, the engine's tables, the first screen) lives as long as the page:
        # frozen, out of the collector's sight. From here on collections run only when idle (tick). Not
        # collected first: that walk (~20 ms in the browser) would hold the events the page kept; the start's
        # garbage is collected once the idle prefetch is done (prefetch).
        gc.freeze()
        gc.disable()
        POST("lexio-ready")  # the page hands over the events it kept while Python was starting
        js.setTimeout(self.prefetch_next, PREFETCH_AFTER_MS)


APP = App()
APP.browser.spawn(APP.start())
