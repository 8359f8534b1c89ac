"""Browser glue (the PyScript entry; runs in PyScript's worker): WebSocket, HTTP, timers, and the page.

All decisions are in the plain-Python ``app`` package; this file moves data between the browser and
``UiState``. A synchronous call into the main thread costs 1-15 ms on a loaded machine, so the page is
touched through few doors: its state at start is read once (``window.lexioBoot``), UI events arrive as one
JSON string each on a MessagePort handed to the page at start (``sync.ui`` too, the bootstrap's fallback),
and every render leaves as one JSON patch posted to the page (applied by ``window.lexioPatch`` there).
"""

# ruff: noqa: E402  (BOOT is stamped before the other imports, to time them)

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import time
from typing import Any

import js  # type: ignore[import-not-found]

BOOT = {"python": float(js.performance.now())}  # ms since this worker started (its own time origin)
from app import analysis_store, chat, render, replay
from app.glue.events import UiEvents
from app.glue.navigation import Navigation
from app.glue.rendering import Rendering
from app.glue.replay_viewer import ReplayViewer
from app.i18n import Translator, pick_language
from app.signals import TurnSignals
from app.state import UiState
from app.timing import NO_RECONNECT, should_reconnect
from pyodide.ffi import create_once_callable, create_proxy  # type: ignore[import-not-found]
from pyscript import sync, window  # type: ignore[import-not-found]

BOOT["imports"] = float(js.performance.now())
# A returning visitor's interpreter comes from a snapshot (pyodide-boot.mjs), random's state included:
# reseed from the OS so that every start draws differently (reconnection jitter).
random.seed()
with contextlib.suppress(Exception):  # set by pyodide-boot.mjs: did this start come from a snapshot?
    BOOT["snapshot"] = bool(js.lexioRuntime.snapshot)
    BOOT["runtime_ms"] = float(js.lexioRuntime.ms)


NOTICE_S = 5.0  # a transient banner message (link copied, …) stays this long, or until the next action
IDLE_GC_S = 1.0  # no UI event for this long, and no collection for this long: collect (in tick)
GC_AT_LEAST_S = 30.0
# Looked up once: each ``js.<name>`` access crosses the FFI and makes a new proxy.
POST = js.postMessage


def local_now() -> int:
    return int(js.Date.now())


def _is_null(x: Any) -> bool:
    return x is None or str(x) in ("jsnull", "null", "undefined")


class App(Navigation, ReplayViewer, Rendering, UiEvents):
    """The doors to the browser (WebSocket, HTTP, timers, the page's patches); the screens' logic is in
    the mixins of ``app.glue``, which import no browser module."""

    def __init__(self) -> None:
        # One call for everything the page knows at start (each call into the page is a round trip).
        boot = json.loads(str(window.lexioBoot()))
        self.location = str(boot["href"])
        self.storage: dict[str, str] = dict(
            boot["storage"]
        )  # localStorage "lexio:*", kept in step by store()
        self.stored_lang = self.storage.get("lexio:lang")
        lang = self.stored_lang or pick_language(boot["langs"])
        self.state = UiState(lang=lang, rng=random.Random())
        self.state.name = self.storage.get("lexio:name", "")
        self.tr = Translator(lang)
        self.signals = TurnSignals.from_storage(self.storage)
        self.chat = chat.ChatState.from_storage(self.storage)
        self.chat_key: tuple[Any, ...] = ()
        self.replay: replay.ReplayState | None = None  # the replay viewer is open (/replay, /t/ID/replay)
        self.notify_perm = str(boot.get("notify", "unsupported"))
        self.cache: dict[str, str] = {}
        self.cells: dict[str, str] = {}
        self.screen_key = ""
        self.screen_sub = ""
        self.ws: Any = None
        self.ws_gen = 0
        url = js.URL.new(self.location)
        self.origin = str(url.origin)
        # The site may live under a sub-path (<base href> set by web/build.py --base).
        self.base = str(js.URL.new(str(boot["base"])).pathname)
        self.path = "/" + str(url.pathname)[len(self.base) :]
        self.params = url.searchParams
        self.search = str(url.search)
        self.relay = self.origin
        self.patch: dict[str, Any] = {}
        self.tasks: set[Any] = set()
        self.dialog_opener: str | None = None  # the control that opened the dialog (focus returns to it)
        self.notice_at = 0.0  # when the banner's notice appeared (it leaves by itself, see tick)
        self.preview_ms: list[float] = []
        # ?perf: each timed action leaves a performance mark, so that a browser trace (bench/browser.py)
        # can find its task and read the worker thread's CPU time apart from time spent descheduled.
        self.mark_actions = not _is_null(self.params.get("perf"))
        self.hot: set[str] = set()
        self.side_for: Any = None
        self.side_tr: Any = None
        self.side_presence: tuple[str, dict[int, bool]] = ("", {})
        self.ts: float | None = None
        self.board_key: tuple[int, str] = (-1, "")
        self.last_ui = self.last_gc = time.monotonic()
        self.posted_at: float | None = None
        self.ui_port: Any = None
        sync.ui = self.on_ui

    def local_now(self) -> int:
        return local_now()

    # -- page patching -----------------------------------------------------------------------------------
    def send_patch(self) -> None:
        if self.ts is not None:
            # The first patch after a UI event answers it (the page times event → answer from this).
            self.patch["ts"], self.ts = self.ts, None
        if self.patch:
            text = "lexio:" + json.dumps(self.patch)
            # The page has its answer from here (see timed); fire and forget: the worker never waits for
            # the main thread to paint.
            self.posted_at = time.perf_counter()
            if self.mark_actions:
                js.performance.mark("lexio-handover")
            POST(text)
            self.patch = {}

    def store(self, key: str, value: str | None) -> None:
        self.patch.setdefault("store", {})[key] = value
        if value is None:
            self.storage.pop(key, None)
        else:
            self.storage[key] = value

    def spawn(self, coro: Any) -> None:
        # Keep a reference: the event loop holds tasks weakly.
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- addresses ---------------------------------------------------------------------------------------
    async def load_config(self) -> None:
        relay = self.params.get("relay")
        if _is_null(relay) or not str(relay):
            try:
                resp = await js.fetch(self.origin + self.base + "config.json")
                relay = json.loads(str(await resp.text())).get("relay") or ""
            except Exception:  # no config.json (or unreadable): the relay is this origin
                relay = ""
        self.relay = str(relay).rstrip("/") or self.origin

    def ws_url(self, table: str) -> str:
        base = self.relay.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return f"{base}/ws/{table}"

    def share_link(self) -> str:
        return (
            f"{self.origin}{self.base}t/{self.state.table_id}{self.search if 'relay=' in self.search else ''}"
        )

    # -- HTTP --------------------------------------------------------------------------------------------
    async def http(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        opts: dict[str, Any] = {"method": method, "headers": {"Content-Type": "application/json"}}
        if body is not None:
            opts["body"] = json.dumps(body)
        try:
            resp = await js.fetch(self.relay + path, js.JSON.parse(json.dumps(opts)))
            text = str(await resp.text())
            return int(resp.status), (json.loads(text) if text.startswith(("{", "[")) else text)
        except Exception:  # network down: shown as a notice, the UI stays usable
            return 0, {"code": "network_error"}

    # -- WebSocket ---------------------------------------------------------------------------------------
    def close_ws(self) -> None:
        self.ws_gen += 1
        if self.ws is not None:
            with contextlib.suppress(Exception):  # already closed
                self.ws.close(1000)
        self.ws = None

    def connect(self) -> None:
        s = self.state
        if s.table_id is None:
            return
        self.close_ws()
        gen = self.ws_gen
        s.conn = "connecting"
        ws = js.WebSocket.new(self.ws_url(s.table_id))
        self.ws = ws

        def on_open(_ev: Any) -> None:
            if gen == self.ws_gen:
                ws.send(json.dumps(s.join_frame()))

        def on_message(ev: Any) -> None:
            if gen != self.ws_gen:
                return
            try:
                frame = json.loads(str(ev.data))
            except ValueError:
                return
            if isinstance(frame, dict):
                self.on_frame(frame)

        def on_close(ev: Any) -> None:
            if gen != self.ws_gen:
                return
            code = int(ev.code)
            self.ws = None
            if not should_reconnect(code):
                s.conn, s.stop_reason = "stopped", NO_RECONNECT[code]
            elif s.table_id is not None:
                # After a relay restart every client comes back at once: spread them over 1-3 s.
                delay = 1000 + random.uniform(0, 2000) if code == 1012 else s.backoff.next_delay()
                s.conn = "offline"
                s.retry_at = local_now() + delay
                js.setTimeout(create_once_callable(lambda: gen == self.ws_gen and self.connect()), delay)
            self.render()

        ws.onopen = create_proxy(on_open)
        ws.onmessage = create_proxy(on_message)
        ws.onclose = create_proxy(on_close)

    def flush(self) -> None:
        s = self.state
        while s.outbox:
            frame = s.outbox.pop(0)
            if self.ws is not None and int(self.ws.readyState) == 1:
                self.ws.send(json.dumps(frame))

    def on_frame(self, frame: dict[str, Any]) -> None:
        s = self.state
        if self.chat.on_frame(frame):  # a message, the history, or an answer to a chat frame
            self.render_chat()
            self.send_patch()
            return
        s.on_frame(frame, local_now())
        if frame.get("type") == "welcome" and s.table_id and s.token:
            self.store("lexio:" + s.table_id, s.token)
        if frame.get("type") == "analysis" and s.table_id and s.analysis is not None and s.seat is not None:
            self.keep_analysis(s.table_id, s.seat, s.analysis)
            self.patch["refocus"] = "analysis-title"  # the button asking for it is gone
        analysis_store.restore(s, self.storage)  # the end screen again: what this seat was served
        if frame.get("type") == "error" and frame.get("code") == "bad_token" and s.table_id:
            # The seat is gone (freed before the start): this browser is a newcomer again.
            self.store("lexio:" + s.table_id, None)
            self.open_table(s.table_id)
            return
        if s.lobby.join_error is not None and s.conn == "idle" and self.ws is not None:
            self.close_ws()  # refused join: the next try opens a fresh socket
            self.patch["focus"] = "name-input"
        self.flush()
        if self.follow_goto():
            return
        self.render()

    def tick(self) -> None:
        s = self.state
        now = local_now()
        self.observe_turn(now)
        if s.screen == "table":
            self.write("t-status", render.status(s, self.tr, s.clock_sync.server_now(now)))
        if s.conn == "offline":
            self.write("banner", render.banner(s, self.tr, now))
        if s.notice and self.notice_at and time.monotonic() - self.notice_at > NOTICE_S:
            s.notice, self.notice_at = None, 0.0  # a transient message leaves by itself
            self.write("banner", render.banner(s, self.tr, now))
        self.send_patch()
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

    def timed(self, action: Any) -> None:
        """Run a play-changing action, render, and record action → patch handed to the page (ms).

        The timings travel in the next patch to ``#perf`` (read by bench/browser.py)."""
        if self.mark_actions:
            js.performance.mark("lexio-action")
        engine_ms = self.state.preview_ms
        last = engine_ms[-1] if engine_ms else None
        t0 = time.perf_counter()
        action()
        # Only new samples (the page keeps the series): the previous action's time, this one's engine time.
        self.patch["perf"] = [
            round(self.preview_ms[-1], 3) if self.preview_ms else None,
            round(engine_ms[-1], 3) if engine_ms and engine_ms[-1] is not last else None,
        ]
        self.posted_at = None
        self.render()
        # Up to the hand-over of the patch, not the return of postMessage: waking the page's thread to
        # apply it may deschedule this one for a while (2 shared cores), after its work is done.
        end = time.perf_counter() if self.posted_at is None else self.posted_at
        self.preview_ms.append((end - t0) * 1000)
        del self.preview_ms[:-200]
        if self.mark_actions and self.posted_at is None:
            js.performance.mark("lexio-handover")  # nothing to send: the action ends here

    # -- UI events (one JSON string each, from the bootstrap) --------------------------------------------
    def on_ui(self, text: str) -> None:
        try:
            self.last_ui = time.monotonic()
            d = json.loads(str(text))
            kind = d.get("t")
            self.ts = d.get("ts")
            if kind == "click":
                self.on_click(d)
            elif kind == "key":
                self.on_key(d)
            elif kind == "bind":
                self.on_bind(d)
            elif kind == "file":
                self.on_file(d)
            elif kind == "drop":
                self.on_drop(d)
            elif kind == "focus":
                self.on_focus(d)
            elif kind == "nav":
                self.path = "/" + str(js.URL.new(str(d.get("href"))).pathname)[len(self.base) :]
                self.route()
        except Exception as err:
            js.console.error(f"lexio ui error: {err!r}")

    # -- demo (offline, engine only: bench/browser.py and screenshots) ------------------------------------
    def start_demo(self, level: str) -> None:
        from app.demo import demo_snapshot

        s = self.state
        s.demo = True
        s.table_id = "demo"
        s.on_frame(demo_snapshot(local_now(), int(level) if level.isdigit() else 1), local_now())
        self.render()

    # -- start -------------------------------------------------------------------------------------------
    async def start(self) -> None:
        window.lexioAttach()  # from now on, patches posted by this worker are applied
        # UI events come on a port of their own: a plain message per event, where PyScript's ``sync`` call
        # adds its own dispatch and a reply message per keystroke.
        channel = js.MessageChannel.new()
        channel.port1.onmessage = create_proxy(lambda ev: self.on_ui(ev.data))
        self.ui_port = channel.port1  # kept: the port lives as long as a reference to it
        POST("lexio-port", js.Array.of(channel.port2))
        await self.load_config()
        js.setInterval(create_proxy(self.tick), 250)
        if self.stored_lang is None:
            self.patch["lang"] = self.state.lang
        demo = self.params.get("demo")
        if not _is_null(demo):
            self.start_demo(str(demo))
        else:
            self.route()
        self.patch["ready"] = 1
        BOOT["ready"] = float(js.performance.now())
        self.patch["boot"] = json.dumps(BOOT)
        self.send_patch()
        # Everything alive now (modules, the engine's tables, the first screen) lives as long as the page:
        # frozen, out of the collector's sight. From here on collections run only when idle (tick).
        gc.collect()
        gc.freeze()
        gc.disable()
        window.lexioFlush()  # events queued while Python was starting, then each as it comes


APP = App()
APP.spawn(APP.start())
