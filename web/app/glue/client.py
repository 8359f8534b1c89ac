"""The glue put together: the page's parts built on the browser's doors, the relay's frames routed to
them, the UI events handed to them, the clock's tick. ``web/src/main.py`` builds one on Pyodide's doors;
tests/web build one on fakes."""

from __future__ import annotations

import json
import random
import time
from typing import TYPE_CHECKING, cast

from app import analysis_store, chat, played, render
from app.glue.accounts import Accounts
from app.glue.connection import Connection, RelayApi
from app.glue.events import UiEvents
from app.glue.leaderboards import Leaderboards
from app.glue.moderation import Moderation
from app.glue.navigation import Navigation
from app.glue.playnow import PlayNow, write_live
from app.glue.profiles import Profiles
from app.glue.push import Push
from app.glue.rendering import Renderer
from app.glue.replay_viewer import ReplayViewer
from app.glue.session import Address, PagePatch, Session
from app.i18n import Translator, pick_language
from app.markup import url_query
from app.signals import TurnSignals
from app.state import UiState

if TYPE_CHECKING:
    from collections.abc import Iterable

    from app.glue.doors import Browser
    from app.payloads import ServerFrame, UiEvent

NOTICE_S = 5.0  # a transient banner message (link copied, …) stays this long, or until the next action
INVITE_POLL_S = 3.0  # an invitation on screen is looked up again this often (someone sits, the game starts)


class Client:
    """One page of the app: its state and the parts that show it, on the doors of ``browser``."""

    def __init__(
        self,
        browser: Browser,
        addr: Address,
        storage: dict[str, str],
        *,
        langs: Iterable[str] = (),
        notify_perm: str = "unsupported",
        mark_actions: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        """``storage``: the page's ``lexio:*`` localStorage at start (kept in step by the patches);
        ``langs``: the browser's languages; ``notify_perm``: ``Notification.permission``."""
        self.browser = browser
        self.stored_lang = storage.get("lexio:lang")
        lang = self.stored_lang or pick_language(langs)
        state = UiState(lang=lang, rng=rng or random.Random())
        state.name = storage.get("lexio:name", "")
        self.session = ses = Session(
            state=state,
            tr=Translator(lang),
            signals=TurnSignals.from_storage(storage),
            chat=chat.ChatState.from_storage(storage),
            addr=addr,
            notify_perm=notify_perm,
        )
        self.page = page = PagePatch(browser, storage, mark_actions=mark_actions)
        self.renderer = renderer = Renderer(ses, page, browser)
        self.conn = conn = Connection(state, addr, browser, on_frame=self.on_frame, on_change=renderer.render)
        self.api = api = RelayApi(addr, browser)
        self.viewer = viewer = ReplayViewer(ses, page, conn, api, browser, renderer, browser, browser)
        self.nav = nav = Navigation(ses, page, conn, api, browser, renderer, viewer)
        self.accounts = accounts = Accounts(ses, page, api, browser, renderer, nav.route)
        nav.account_page = accounts.show
        self.profiles = profiles = Profiles(ses, page, api, browser, renderer)
        nav.profile_page = profiles.show
        nav.board_page = Leaderboards(ses, api, browser, renderer).show
        nav.refresh_games = accounts.on_member = profiles.refresh_home
        self.moderation = moderation = Moderation(ses, page, api, conn, browser, renderer, accounts)
        self.playnow = playnow = PlayNow(ses, page, browser, renderer, nav)  # play now's seek socket
        self.push = push = Push(ses, page, api, browser, renderer)  # turn reminders (issue 31)
        accounts.on_account_page, accounts.on_leave = push.show, push.forget
        self.events = UiEvents(
            ses, page, conn, browser, renderer, nav, viewer, accounts, profiles, moderation, playnow, push
        )
        self.invite_polled = time.monotonic()

    @property
    def state(self) -> UiState:
        return self.session.state

    def on_frame(self, frame: ServerFrame) -> None:
        """One frame from the relay: into the chat or the state, then what it leads to, then a render."""
        ses, page = self.session, self.page
        s = ses.state
        if self.moderation.on_frame(frame):  # the answer to a report
            self.renderer.render()
            return
        if ses.chat.on_frame(frame):  # a message, the history, or an answer to a chat frame
            self.renderer.render_chat()
            page.send()
            return
        s.on_frame(frame, self.browser.now_ms())
        kind = frame.get("type")
        if kind == "welcome" and s.table_id and s.token:
            page.store("lexio:" + s.table_id, s.token)
        if kind == "analysis" and s.table_id and s.analysis is not None and s.seat is not None:
            self.viewer.keep_analysis(s.table_id, s.seat, s.analysis)
            page.patch["refocus"] = "analysis-title"  # the button asking for it is gone
        analysis_store.restore(s, page.storage)  # the end screen again: what this seat was served
        quick = self.nav.quick.next_frame(s)  # a computer game asked from home: its next step
        if quick is not None:
            s.send(quick)
        games = played.remember(s, page.storage, self.browser.now_ms())
        if games is not None:  # a game this browser played ended: listed on the replay page from now on
            page.store(played.KEY, games)
        if kind == "error" and frame.get("code") in ("bad_token", "seat_deleted") and s.table_id:
            # The seat is gone (freed before the start, or its account deleted): a newcomer again.
            page.store("lexio:" + s.table_id, None)
            self.nav.open_table(s.table_id)
            if frame.get("code") == "seat_deleted":
                ses.set_notice("seat_deleted")  # said on the invitation (opening it cleared the banner)
                self.renderer.render()
            return
        if s.lobby.join_error is not None and s.conn == "idle" and self.conn.ws is not None:
            self.conn.close()  # refused join: the next try opens a fresh socket
            page.patch["focus"] = "name-input"
        self.conn.flush()
        if self.nav.follow_goto():
            return
        self.renderer.render()

    def on_ui(self, text: str) -> None:
        """One UI event, as the page's bootstrap posts it (one JSON string)."""
        d = cast("UiEvent", json.loads(text))
        self.page.ts = d.get("ts")
        if d.get("t") == "nav":  # back or forward: the page's new address
            addr = self.session.addr
            href = str(d.get("href"))
            addr.path = "/" + self.browser.pathname(href)[len(addr.base) :]
            query = url_query(href)  # a head-to-head's ?vs= is part of its address
            addr.search = f"?{query}" if query else ""
            self.nav.route()
        else:
            self.events.on_event(d)

    def tick(self) -> None:
        """Four times a second: the countdown, the reconnection's, a notice's time up, the turn's signals."""
        ses, page = self.session, self.page
        s, tr = ses.state, ses.tr
        now = self.browser.now_ms()
        self.renderer.observe_turn(now)
        if s.screen == "table":
            self.renderer.write_status(now)  # only when a second went by or the view changed
        if s.conn == "offline":
            page.write("banner", render.banner(s, tr, now))
        idle_invite = s.screen == "invite" and not (s.lobby.joining or s.lobby.watching)
        if idle_invite and time.monotonic() - self.invite_polled >= INVITE_POLL_S:
            self.invite_polled = time.monotonic()
            self.browser.spawn(self.nav.poll_invite())
        if s.notice and ses.notice_at and time.monotonic() - ses.notice_at > NOTICE_S:
            s.notice, ses.notice_at = None, 0.0  # a transient message leaves by itself
            page.write("banner", render.banner(s, tr, now))
        write_live(page, ses.playnow, tr, now)  # play now's wait and seconds left
        page.send()

    def begin(self, demo: str | None = None) -> None:
        """The first screen: the page's address (or the offline demo table, ``?demo=``); ready."""
        if self.stored_lang is None:
            self.page.patch["lang"] = self.session.state.lang
        if demo is not None:
            self.start_demo(demo)
        else:
            self.nav.route()
            self.browser.spawn(self.accounts.load())  # who is signed in (the cookie is HttpOnly)
        self.page.patch["ready"] = 1

    def start_demo(self, level: str) -> None:
        """An offline table built by the engine (bench/browser.py and screenshots): nothing is sent."""
        from app.demo import demo_snapshot

        s = self.session.state
        s.demo = True
        s.table_id = "demo"
        now = self.browser.now_ms()
        s.on_frame(demo_snapshot(now, int(level) if level.isdigit() else 1), now)
        self.renderer.render()
