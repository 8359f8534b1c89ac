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
from app import analysis_store, chat, render, replay, replay_analysis
from app.analysis import request_analysis
from app.i18n import Translator, pick_language
from app.lobby import own_table_ids
from app.signals import SOUND_KEY, TurnSignals, last_seconds_text, notify_button, sound_button
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


class App:
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

    async def refresh_tables(self) -> None:
        status, data = await self.http("GET", "/api/tables")
        if status == 200 and isinstance(data, dict):
            self.state.tables = list(data.get("tables") or [])
        self.render()

    async def create_table(self) -> None:
        s = self.state
        problem = s.name_problem()
        if problem:
            s.notice = (problem, {"n": len(s.name.strip())})
            self.render()
            return
        body: dict[str, Any] = {"turn_seconds": s.turn_seconds, "public": s.public}
        status, data = await self.http("POST", "/api/tables", body)
        if status != 201 or not isinstance(data, dict) or "id" not in data:
            code = str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            s.notice = (code, {})
            self.render()
            return
        self.go_table(str(data["id"]), auto=True)

    async def refresh_mine(self) -> None:
        """The player's own tables (seat tokens kept by this browser) still waiting or playing."""
        ids = own_table_ids(self.storage)
        if not ids:
            return
        answers = await asyncio.gather(*(self.http("GET", f"/api/tables/{t}") for t in ids))
        found = []
        for table, (status, data) in zip(ids, answers, strict=True):
            if status == 200 and isinstance(data, dict):
                found.append(data)
            elif status == 404:
                self.store("lexio:" + table, None)  # the table is gone: so is the seat
        if self.state.screen == "home":
            self.state.lobby.set_mine(found)
            self.render()

    async def load_invite(self, table: str, auto: bool) -> None:
        """The invitation's facts (``GET /api/tables/{id}``); then join at once if the player already chose
        to (a table of the open list, a pasted link, a new table), or watch a finished table's end."""
        status, data = await self.http("GET", f"/api/tables/{table}")
        s = self.state
        if s.table_id != table or s.view is not None or s.lobby.invite is None:
            return
        if status == 200 and isinstance(data, dict):
            s.lobby.got_summary(table, data)
        elif status == 404:
            s.lobby.got_summary(table, None)
        else:
            s.lobby.got_summary(table, None)
            self.set_notice("network_error")
        st = s.lobby.invite_status
        if st == "ended":
            self.watch()
        elif st == "waiting" and auto and s.valid_name():
            self.join_invite()
        self.render()

    def join_invite(self) -> None:
        s = self.state
        problem = s.name_problem()
        s.lobby.join_error = None
        if problem:
            s.notice = (problem, {"n": len(s.name.strip())})
            self.patch["focus"] = "name-input"
            return
        s.notice = None
        s.lobby.joining, s.lobby.watching = True, False
        self.store("lexio:name", s.name.strip())
        self.connect()

    def watch(self) -> None:
        self.state.lobby.watching = True
        self.connect()

    def set_notice(self, code: str, params: dict[str, Any] | None = None) -> None:
        self.state.notice = (code, params or {})
        self.notice_at = time.monotonic()

    # -- navigation --------------------------------------------------------------------------------------
    def go_table(self, table: str, auto: bool = False) -> None:
        self.path = f"/t/{table}"
        self.patch["push"] = f"{self.base}t/{table}{self.search}"
        self.open_table(table, auto)

    def open_table(self, table: str, auto: bool = False) -> None:
        """A table by its link: rejoin with the seat token this browser keeps; otherwise the table's
        invitation (who sits, who invites; join with a name, or watch), joined at once when ``auto``."""
        s = self.state
        self.signals.forget()
        self.chat.reset()
        self.replay = None
        s.notice = None
        s.lobby.forget()
        s.enter_table(table, self.storage.get("lexio:" + table))
        if s.token:
            self.connect()
            self.render()
            return
        self.close_ws()
        s.conn = "idle"
        s.lobby.open_link(table)
        self.render()
        self.spawn(self.load_invite(table, auto))

    def go_home(self) -> None:
        self.close_ws()
        self.signals.forget()
        self.replay = None
        self.state.leave_table()
        self.path = "/"
        self.patch["push"] = self.base + self.search
        self.render()
        self.spawn(self.refresh_tables())
        self.spawn(self.refresh_mine())

    def route(self) -> None:
        parts = self.path.strip("/").split("/")
        if parts == ["replay"] or (len(parts) == 3 and parts[0] == "t" and parts[2] == "replay"):
            self.open_replay(parts[1] if len(parts) == 3 else None)
            return
        self.replay = None
        if self.path.startswith("/t/") and len(self.path) > 3:
            self.open_table(self.path[3:].split("/")[0])
        else:
            self.close_ws()
            self.state.leave_table()
            self.render()
            self.spawn(self.refresh_tables())
            self.spawn(self.refresh_mine())

    # -- replay viewer (app.replay): a GCG file, or a finished table's record -------------------------------
    def open_replay(self, table: str | None) -> None:
        self.close_ws()
        self.state.leave_table()
        self.signals.forget()
        self.replay = replay.ReplayState(table=table, loading=table is not None)
        if table is not None:
            self.spawn(self.fetch_record(table))
        self.render()

    async def fetch_record(self, table: str) -> None:
        status, data = await self.http("GET", f"/api/tables/{table}/gcg")
        rs = self.replay
        if rs is None or rs.table != table:
            return  # left meanwhile
        rs.loading = False
        if status == 200 and isinstance(data, str):
            rs.open_text(data)
            replay_analysis.attach(rs, self.storage)
        else:
            rs.problem = {409: "replay_not_finished", 404: "replay_no_table"}.get(status, "replay_network")
        self.render()

    def render_replay(self, key: str) -> None:
        rs, tr = self.replay, self.tr
        assert rs is not None
        if key != self.screen_key:
            self.write("main", replay.frame(rs, tr))

        def board_html(view: dict[str, Any]) -> str:
            ui = UiState(lang=tr.lang)
            ui.view = view
            return render.board(ui, tr)

        for region, html in replay.regions(rs, tr, board_html).items():
            self.write(region, html)

    def on_file(self, d: dict[str, Any]) -> None:
        if self.replay is None or self.replay.table is not None:
            return
        if d.get("too_big"):
            self.replay.open_text("x" * (replay.MAX_BYTES + 1), str(d.get("name") or ""))
        else:
            self.replay.open_text(str(d.get("text") or ""), str(d.get("name") or ""))
        replay_analysis.attach(self.replay, self.storage)
        self.patch["focus"] = "replay"
        self.render()

    async def ask_replay_analysis(self) -> None:
        """The viewer asks for this seat's analysis with the seat's token (the viewer holds no socket)."""
        rs = self.replay
        ra = rs.analysis if rs is not None else None
        token = self.storage.get("lexio:" + ra.table) if ra is not None else None
        if rs is None or ra is None or ra.ready or ra.pending or not token:
            return
        ra.pending, ra.error = True, None
        self.render()
        status, data = await self.http("POST", f"/api/tables/{ra.table}/analysis", {"token": token})
        if self.replay is not rs:
            return  # left meanwhile (what was served is kept all the same)
        ok = status == 200 and isinstance(data, dict)
        seat, moves = (data.get("seat"), data.get("moves")) if ok else (None, None)
        if isinstance(seat, int) and isinstance(moves, list):
            self.keep_analysis(ra.table, seat, moves)
            if replay_analysis.received(rs, seat, moves):
                self.patch["refocus"] = "ra-title"  # if it was on the button, now gone
        else:
            replay_analysis.refused(
                rs, str(data.get("code", "network_error")) if isinstance(data, dict) else "network_error"
            )
        self.render()

    def keep_analysis(self, table: str, seat: int, moves: list[Any]) -> None:
        """What the relay served once, kept by this browser (app.analysis_store)."""
        self.store(analysis_store.PREFIX + table, analysis_store.encode(seat, moves, local_now()))
        for key in analysis_store.to_drop(self.storage):
            self.store(key, None)

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

    def follow_goto(self) -> bool:
        """Go to the table the state asks for (a new table with the same players), if any."""
        table, self.state.goto = self.state.goto, None
        if not table:
            return False
        if self.state.valid_name():
            self.store("lexio:name", self.state.name.strip())
        self.go_table(table, auto=True)
        return True

    # -- rendering ---------------------------------------------------------------------------------------
    def write(self, region: str, html: str) -> None:
        if self.cache.get(region) != html:
            self.cache[region] = html
            self.patch.setdefault("r", {})[region] = html

    def render(self) -> None:
        s, tr = self.state, self.tr
        now = local_now()
        self.observe_turn(now)
        # The turn's sound and notifications matter at a table only.
        at_table = s.table_id is not None and self.replay is None and not s.demo
        extra = sound_button(self.signals, tr) + notify_button(self.notify_perm, tr) if at_table else ""
        self.write("hdr", render.shell_header(s, tr, extra))
        self.write("banner", render.banner(s, tr, now))
        screen = "replay" if self.replay is not None else s.screen
        key = f"{screen}:{tr.lang}"
        if key != self.screen_key:
            self.cache = {k: v for k, v in self.cache.items() if k in ("hdr", "banner")}
            self.cells = {}
            self.side_for = None
        if screen == "replay":
            self.render_replay(key)
        elif screen == "table":
            if key != self.screen_key:  # the skeleton depends on the language only
                self.write("main", render.table_skeleton(tr))
            self.render_table(now)
        elif screen == "home":
            self.write("main", render.home(s, tr))
        elif screen == "invite":
            self.write("main", render.invite(s, tr))
        elif screen == "waiting":
            self.write("main", render.waiting(s, tr, self.share_link()) + chat.skeleton(tr))
        else:
            gcg = f"{self.relay}/api/tables/{s.table_id}/gcg"
            replay_url = f"{self.base}t/{s.table_id}/replay{self.search}"
            self.write("main", render.end(s, tr, gcg, replay_url) + chat.skeleton(tr))
        if screen in ("table", "waiting", "end"):
            if "main" in self.patch.get("r", {}):  # the chat's regions were written afresh, empty
                for region in chat.REGIONS:
                    self.cache.pop(region, None)
            self.render_chat()
        if screen in ("home", "invite"):
            # Also written alone while the name is typed: keep the region's cache true to the page.
            self.write("name-error", render.name_error(s, tr))
        # A new screen (not the same one in another language): the focus goes to its h1 (exactly one).
        title_key = screen + (f":{s.lobby.invite_status}" if screen == "invite" else "")
        if title_key != self.screen_sub and "focus" not in self.patch:
            self.patch["focus"] = "title"
        self.screen_key, self.screen_sub = key, title_key
        self.write("dialog-root", render.dialog(s, tr))
        if s.dialog:
            self.patch["focus"] = "modal"
        self.send_patch()

    def render_table(self, now: int) -> None:
        s, tr = self.state, self.tr
        hot = render.hot_squares(s)
        board_key = (len((s.view or {}).get("board") or ()), s.variant.name)
        if not self.cells or board_key != self.board_key:
            self.cells = render.board_cells(s, tr)
            self.cache.pop("t-board", None)
            self.write("t-board", render.board(s, tr, self.cells))
        else:
            # Only squares that were or are pending, under the cursor or in the previewed words can change.
            fresh = render.board_cells(s, tr, only=hot | self.hot)
            changed = {sq: html for sq, html in fresh.items() if self.cells.get(sq) != html}
            if changed:
                self.cells.update(changed)
                self.patch.setdefault("c", {}).update(changed)
                if s.cursor:
                    self.patch.setdefault("a", []).append(
                        ["board", "aria-activedescendant", "sq-" + s.cursor]
                    )
        self.hot, self.board_key = hot, board_key
        self.write("t-rack", render.rack_area(s, tr))
        self.write("t-preview", render.preview(s, tr))
        self.write("t-announce", self.announce_html())
        self.write("t-status", render.status(s, tr, s.clock_sync.server_now(now)))
        side_key = (s.conn, dict(s.presence))
        if s.view is not self.side_for or tr is not self.side_tr or side_key != self.side_presence:
            # Players, unseen tiles and the journal depend only on the server's view and the connection
            # (offline, nobody's presence is known): not on the local play.
            self.side_for, self.side_tr, self.side_presence = s.view, tr, side_key
            self.write("t-players", render.players(s, tr))
            self.write("t-unseen", render.unseen(s, tr))
            self.write("t-journal", render.journal(s, tr))

    def render_chat(self) -> None:
        s, tr = self.state, self.tr
        if s.screen not in ("table", "waiting", "end") or self.replay is not None:
            return
        seats = (s.view or {}).get("seats") or ()
        me = next((str(x.get("name")) for x in seats if x.get("seat") == s.seat), None)
        key = (self.chat.rev, tr.lang, s.seat, me)
        if key == self.chat_key and all(r in self.cache for r in chat.REGIONS):
            return  # nothing changed (a keystroke on the board does not touch the chat)
        self.chat_key = key
        self.write("t-chat-log", chat.log(self.chat, tr, seated=s.seat is not None, me=me))
        self.write("t-chat-form", chat.form(self.chat, tr, seated=s.seat is not None))

    def observe_turn(self, now: int) -> None:
        """The turn's signals (app.signals): title, sound, notification; the last seconds' warning."""
        s = self.state
        sig = self.signals.observe(s, self.tr, s.clock_sync.server_now(now))
        if sig.title is not None:
            self.patch["title"] = sig.title
        if sig.sound:
            self.patch["sound"] = 1
        if sig.notify is not None:
            self.patch["notify"] = list(sig.notify)
        if sig.last_seconds and s.screen == "table":
            self.write("t-announce", self.announce_html())

    def announce_html(self) -> str:
        html = render.announce(self.state, self.tr)
        return html + (" " + last_seconds_text(self.tr) if self.signals.warning else "")

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

    def on_focus(self, d: dict[str, Any]) -> None:
        s = self.state
        if d.get("id") == "board" and s.screen == "table" and s.cursor is None:
            # The cursor square shows as soon as the board has the focus, not at the first key.
            self.timed(lambda: setattr(s, "cursor", s.variant.source))

    def on_click(self, d: dict[str, Any]) -> None:
        s = self.state
        if d.get("name") is not None:
            s.name = str(d["name"]).strip()
        if s.notice and self.notice_at:
            s.notice, self.notice_at = None, 0.0  # the next action takes a transient message away
        act, arg = d.get("act"), d.get("arg")
        if act:
            self.do(str(act), None if arg is None else str(arg), d)
        elif d.get("rack") is not None:
            self.timed(lambda: s.click_rack(int(d["rack"])))
        elif d.get("sq"):
            self.patch["focus"] = "board"
            self.timed(lambda: s.click_square(str(d["sq"])))

    def do(self, act: str, arg: str | None, d: dict[str, Any]) -> None:
        s = self.state
        if act == "lang" and arg:
            s.lang = arg
            self.tr = Translator(arg)
            self.store("lexio:lang", arg)
            self.patch["lang"] = arg
        elif act == "home":
            self.go_home()
            return
        elif act == "replay-go" and arg is not None and self.replay is not None:
            self.replay.go(int(arg))
        elif act == "replay-best" and self.replay is not None:
            replay_analysis.toggle_best(self.replay)
        elif act == "replay-analyse" and self.replay is not None:
            self.spawn(self.ask_replay_analysis())
            return
        elif act == "replay" and arg:
            self.path = f"/t/{arg}/replay"
            self.patch["push"] = f"{self.base}t/{arg}/replay{self.search}"
            self.open_replay(arg)
            return
        elif act == "chat-send":
            watcher = s.name.strip() if s.seat is None and s.valid_name() else None
            frame = self.chat.compose(watcher)
            if frame is not None:
                s.outbox.append(frame)  # not awaited like a move: the rack's buttons stay as they are
        elif act == "chat-mute" and arg:
            self.store(chat.MUTE_KEY, self.chat.toggle_mute(arg))
        elif act == "chat-watchers":
            self.store(chat.WATCHERS_KEY, self.chat.toggle_watchers())
        elif act == "sound":
            self.store(SOUND_KEY, self.signals.toggle_sound())
        elif act == "notify-perm" and arg:
            self.notify_perm = arg  # the page asked the browser (a click there); here is its answer
        elif act == "refresh":
            self.spawn(self.refresh_tables())
        elif act == "create":
            self.store("lexio:name", s.name)
            self.spawn(self.create_table())
        elif act == "analyse":
            request_analysis(s)
            self.flush()
        elif act == "rematch":
            # Asked on the table's socket (state.request_rematch); the relay's answer sets ``goto``.
            s.request_rematch()
            self.flush()
            if self.follow_goto():
                return
        elif act == "join" and arg:
            self.store("lexio:name", s.name)
            self.go_table(arg, auto=True)
            return
        elif act == "resume" and arg:
            self.go_table(arg)
            return
        elif act == "invite-join":
            self.join_invite()
        elif act == "watch":
            self.watch()
        elif act == "remove-bot" and arg is not None and arg.isdigit():
            s.send({"type": "remove_bot", "seat": int(arg)})
        elif act == "join-link":
            self.store("lexio:name", s.name)
            raw = str(d.get("link") or "").strip()
            table = raw.rstrip("/").split("/t/")[-1].split("?")[0].split("/")[-1]
            if table:
                self.go_table(table, auto=True)
                return
            self.set_notice("bad_link")
        elif act == "copy-link":
            self.patch["copy"] = self.share_link()
            self.set_notice("copied")
        elif act == "start":
            s.send({"type": "start"})
        elif act == "add-bot":
            s.send({"type": "add_bot", "level": s.bot_level})
        elif act == "leave":
            s.send({"type": "leave"})
            self.flush()
            if s.table_id:
                self.store("lexio:" + s.table_id, None)
            self.go_home()
            return
        elif act == "submit":
            s.submit()
        elif act == "recall":
            self.timed(s.recall_all)
            return
        elif act == "shuffle":
            s.shuffle()
        elif act == "direction":
            s.across = not s.across
            self.patch["focus"] = "board"
        elif act in ("swap", "pass"):
            s.open_dialog(act)
            self.dialog_opener = "btn-" + act
        elif act == "dialog-cancel":
            s.close_dialog()
            self.return_focus()
        elif act == "dialog-confirm":
            s.confirm_dialog()
            self.return_focus()
        elif act == "blank-letter" and arg:
            self.patch["focus"] = "board"
            self.timed(lambda: s.choose_blank(arg))
            return
        self.flush()
        self.render()

    def return_focus(self) -> None:
        """A closed dialog gives the focus back to the control that opened it (the board if it is gone)."""
        opener, self.dialog_opener = self.dialog_opener, None
        self.patch["focus"] = opener or "board"
        self.patch["focus_fallback"] = "board"

    def on_bind(self, d: dict[str, Any]) -> None:
        s = self.state
        bind, value = str(d.get("bind")), str(d.get("value", ""))
        if bind == "name":
            s.name = value
            # Said while typing, next to the field (a region apart from it, so the caret stays put).
            if d.get("type") == "input":  # ("change" also comes with Enter: the name did not change)
                if s.notice and s.notice[0].startswith("name_"):
                    s.notice = None
                s.lobby.join_error = None
                err = render.name_error(s, self.tr)
                self.write("name-error", err)
                self.patch.setdefault("a", []).append(
                    ["name-input", "aria-invalid", "true" if err else "false"]
                )
            if d.get("type") == "change":
                self.store("lexio:name", s.name.strip())
            self.send_patch()
            return  # no re-render while typing (keeps the caret)
        if bind == "replay-step" and self.replay is not None:
            self.replay.go(int(value or 0))
            # The slider shows this step already: its region is not re-rendered under the pointer.
            self.cache["replay-slider-box"] = replay.slider(self.replay, self.tr)
            self.render()
            return
        if bind == "chat":
            self.chat.draft = value  # no re-render while typing (keeps the caret)
            return
        if bind == "link":
            s.lobby.link = value
            return  # no re-render while typing (keeps the caret)
        if bind == "turn_seconds":
            s.turn_seconds = int(value)
        elif bind == "public":
            s.public = bool(d.get("checked"))
        elif bind == "bot_level":
            s.bot_level = value

    def on_key(self, d: dict[str, Any]) -> None:
        s = self.state
        key = str(d.get("key", ""))
        if self.replay is not None:
            if self.replay.key(key):
                self.render()
            return
        used: list[bool] = []
        had_dialog = s.dialog
        self.timed(lambda: used.append(s.key(key, shift=bool(d.get("shift")), ctrl=bool(d.get("ctrl")))))
        self.flush()
        if had_dialog and not s.dialog:
            self.return_focus()
            self.send_patch()
            return
        if used and used[0] and not s.dialog and s.screen == "table":
            self.patch["focus"] = "board"
            self.send_patch()

    def on_drop(self, d: dict[str, Any]) -> None:
        s = self.state

        def act() -> None:
            from_rack, from_sq, to_sq, to_rack = (
                d.get("from_rack"),
                d.get("from_sq"),
                d.get("to_sq"),
                d.get("to_rack"),
            )
            if from_sq:
                p = s.pending_at(from_sq)
                if p is None:
                    return
                s.take_back(from_sq)
                if to_sq:
                    s.place(p.rack_index, to_sq, p.letter if p.blank else None)
                return
            if from_rack is None:
                return
            idx = int(from_rack)
            if to_sq:
                s.place(idx, to_sq)
            elif to_rack is not None:
                s.move_rack_tile(idx, None if to_rack == "end" else int(to_rack))

        self.timed(act)

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
