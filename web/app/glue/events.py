"""UI events (one JSON string each, from the bootstrap): clicks, keys, bound fields, drops, focus."""

from __future__ import annotations

from typing import TYPE_CHECKING

import wire
from app import chat, replay, replay_analysis, screens
from app.i18n import Translator
from app.signals import SOUND_KEY

if TYPE_CHECKING:
    from app.glue.accounts import Accounts
    from app.glue.connection import Connection
    from app.glue.doors import Tasks
    from app.glue.moderation import Moderation
    from app.glue.navigation import Navigation
    from app.glue.playnow import PlayNow
    from app.glue.profiles import Profiles
    from app.glue.push import Push
    from app.glue.rendering import Renderer
    from app.glue.replay_viewer import ReplayViewer
    from app.glue.session import PagePatch, Session
    from app.payloads import UiEvent


class UiEvents:
    """What each UI event does to the state, then the render it asks for."""

    def __init__(
        self,
        session: Session,
        page: PagePatch,
        conn: Connection,
        tasks: Tasks,
        renderer: Renderer,
        nav: Navigation,
        viewer: ReplayViewer,
        accounts: Accounts,
        profiles: Profiles,
        moderation: Moderation,
        playnow: PlayNow,
        push: Push,
    ) -> None:
        self.session = session
        self.page = page
        self.conn = conn
        self.tasks = tasks
        self.renderer = renderer
        self.nav = nav
        self.viewer = viewer
        self.accounts = accounts
        self.profiles = profiles
        self.moderation = moderation
        self.playnow = playnow
        self.push = push  # turn reminders on My account (issue 31)
        self.dialog_opener: str | None = None  # the control that opened the dialog (focus returns to it)

    def on_event(self, d: UiEvent) -> None:
        """One event from the page (``t``: its kind); the page's navigation (``nav``) is the client's."""
        kind = d.get("t")
        if kind == "click":
            self.on_click(d)
        elif kind == "key":
            self.on_key(d)
        elif kind == "bind":
            self.on_bind(d)
        elif kind == "file":
            self.viewer.on_file(d)
        elif kind == "drop":
            self.on_drop(d)
        elif kind == "focus":
            self.on_focus(d)
        elif kind == "webauthn":
            self.accounts.on_webauthn(d)
        elif kind == "push":
            self.push.on_push(d)

    def on_focus(self, d: UiEvent) -> None:
        s = self.session.state
        if d.get("id") == "board" and s.screen == "table" and s.cursor is None:
            # The cursor square shows as soon as the board has the focus, not at the first key.
            self.renderer.timed(lambda: setattr(s, "cursor", s.variant.source))

    def on_click(self, d: UiEvent) -> None:
        ses = self.session
        s = ses.state
        if d.get("name") is not None:
            s.name = str(d.get("name")).strip()
        if s.notice and ses.notice_at:
            s.notice, ses.notice_at = None, 0.0  # the next action takes a transient message away
        act, arg, rack, sq = d.get("act"), d.get("arg"), d.get("rack"), d.get("sq")
        if act:
            self.do(str(act), None if arg is None else str(arg), d)
        elif rack is not None:
            self.renderer.timed(lambda: s.click_rack(int(rack)))
        elif sq:
            self.page.patch["focus"] = "board"
            self.renderer.timed(lambda: s.click_square(str(sq)))

    def do(self, act: str, arg: str | None, d: UiEvent) -> None:
        if self.accounts.on_click(act, arg):
            return  # the account's screens and menu (app.glue.accounts)
        if self.push.on_click(act):
            self.renderer.render()
            return  # turn reminders on My account (app.glue.push)
        if self.moderation.on_click(act, arg):
            return  # block, unblock, the report dialog (app.glue.moderation)
        if self.playnow.on_click(act, arg):
            return  # seek, cancel, confirm, decline (app.glue.playnow)
        if self._act_away(act, arg, d):
            return  # rendered where it went (or by its own timed render)
        self._act_here(act, arg)
        self.conn.flush()
        self.renderer.render()

    def _act_away(self, act: str, arg: str | None, d: UiEvent) -> bool:
        """Actions that leave the screen or render by themselves; True if ``act`` was one of them."""
        ses, nav = self.session, self.nav
        s = ses.state
        if act == "home":
            nav.go_home()
        elif act == "open" and arg:
            nav.open_address(arg)  # a link inside the app (a profile, a game): no reload
        elif act == "profile-vs":
            there = self.profiles.compare_address()
            if there is None:
                self.page.patch["focus"] = "vs-input"
                return False
            nav.open_address(there)
        elif act == "profile-more":
            self.profiles.more()
            self.renderer.render()
        elif act == "profile-retry":
            self.profiles.retry()
            self.renderer.render()
        elif act == "replay-analyse" and ses.replay is not None:
            self.tasks.spawn(self.viewer.ask_analysis())
        elif act == "replay" and arg:
            ses.addr.path = f"/t/{arg}/replay"
            self.page.patch["push"] = ses.addr.page(f"t/{arg}/replay")
            self.viewer.open_replay(arg)
        elif act == "join" and arg:
            self.page.store("lexio:name", s.name)
            nav.go_table(arg, auto=True)
        elif act == "resume" and arg:
            nav.go_table(arg)
        elif act == "watch-game" and arg:
            nav.go_table(arg)  # a game of the live list: watched at once (a seat of this browser's: taken)
            if not s.token:
                nav.watch()
        elif act == "join-link":
            self.page.store("lexio:name", s.name)
            raw = str(d.get("link") or "").strip()
            table = raw.rstrip("/").split("/t/")[-1].split("?")[0].split("/")[-1]
            if not table:
                ses.set_notice("bad_link")
                return False  # said in the banner: the screen is rendered as for any action
            nav.go_table(table, auto=True)
        elif act == "leave":
            s.send(wire.Leave())
            self.conn.flush()
            if s.table_id:
                self.page.store("lexio:" + s.table_id, None)
            nav.go_home()
        elif act == "recall":
            self.renderer.timed(s.recall_all)
        elif act == "blank-letter" and arg:
            self.page.patch["focus"] = "board"
            self.renderer.timed(lambda: s.choose_blank(arg))
        elif act == "rematch":
            # Asked on the table's socket (state.request_rematch); the relay's answer sets ``goto``.
            s.request_rematch()
            self.conn.flush()
            return nav.follow_goto()
        else:
            return False
        return True

    def _act_here(self, act: str, arg: str | None) -> None:
        """Actions on the screen shown, rendered by :meth:`do`."""
        ses, page = self.session, self.page
        s = ses.state
        if act == "lang" and arg:
            s.lang = arg
            ses.tr = Translator(arg)
            page.store("lexio:lang", arg)
            page.patch["lang"] = arg
        elif act == "replay-go" and arg is not None and ses.replay is not None:
            ses.replay.go(int(arg))
        elif act == "replay-best" and ses.replay is not None:
            replay_analysis.toggle_best(ses.replay)
        elif act == "chat-send":
            watcher = s.name.strip() if s.seat is None and s.valid_name() else None
            frame = ses.chat.compose(watcher)
            if frame is not None:
                s.outbox.append(frame)  # not awaited like a move: the rack's buttons stay as they are
        elif act == "chat-mute" and arg:
            page.store(chat.MUTE_KEY, ses.chat.toggle_mute(arg))
        elif act == "chat-watchers":
            page.store(chat.WATCHERS_KEY, ses.chat.toggle_watchers())
        elif act == "sound":
            page.store(SOUND_KEY, ses.signals.toggle_sound())
        elif act == "notify-perm" and arg:
            ses.notify_perm = arg  # the page asked the browser (a click there); here is its answer
        elif act == "refresh":
            self.tasks.spawn(self.nav.refresh_tables())
        elif act == "create":
            page.store("lexio:name", s.name)
            self.tasks.spawn(self.nav.create_table())
        elif act == "play-computer":
            page.store("lexio:name", s.name)
            self.tasks.spawn(self.nav.create_table(bot=s.bot_level))
        elif act == "analyse":
            from app.analysis import request_analysis  # the end screen only: off the first path (app.loader)

            request_analysis(s)
            self.conn.flush()
        elif act == "invite-join":
            self.nav.join_invite()
        elif act == "watch":
            self.nav.watch()
        elif act == "remove-bot" and arg is not None and arg.isdigit():
            s.send(wire.RemoveBot(seat=int(arg)))
        elif act == "copy-link":
            page.patch["copy"] = ses.addr.share_link(s.table_id)
            ses.set_notice("copied")
        else:
            self._play(act)

    def _play(self, act: str) -> None:
        """The table's and the waiting room's buttons."""
        s = self.session.state
        if act == "start":
            s.send(wire.Start())
        elif act == "add-bot":
            s.send(wire.AddBot(level=s.bot_level))
        elif act == "submit":
            s.submit()
        elif act == "shuffle":
            s.shuffle()
        elif act == "direction":
            s.across = not s.across
            self.page.patch["focus"] = "board"
        elif act in ("swap", "pass"):
            s.open_dialog(act)
            self.dialog_opener = "btn-" + act
        elif act == "dialog-cancel":
            s.close_dialog()
            self.return_focus()
        elif act == "dialog-confirm":
            s.confirm_dialog()
            self.return_focus()

    def return_focus(self) -> None:
        """A closed dialog gives the focus back to the control that opened it (the board if it is gone)."""
        opener, self.dialog_opener = self.dialog_opener, None
        self.page.patch["focus"] = opener or "board"
        self.page.patch["focus_fallback"] = "board"

    def on_bind(self, d: UiEvent) -> None:
        ses, page = self.session, self.page
        s = ses.state
        bind, value = str(d.get("bind")), str(d.get("value", ""))
        if self.accounts.on_bind(bind, value, bool(d.get("checked")), d.get("type") == "input"):
            return
        if self.moderation.on_bind(bind, value, bool(d.get("checked"))):
            return
        if self.playnow.on_bind(bind, value):
            return  # play now's class and table size
        if bind == "name":
            s.name = value
            # Said while typing, next to the field (a region apart from it, so the caret stays put).
            if d.get("type") == "input":  # ("change" also comes with Enter: the name did not change)
                if s.notice and s.notice[0].startswith("name_"):
                    s.notice = None
                s.lobby.join_error = None
                err = screens.name_error(s, ses.tr)
                page.write("name-error", err)
                page.attr("name-input", "aria-invalid", "true" if err else "false")
            if d.get("type") == "change":
                page.store("lexio:name", s.name.strip())
            page.send()
            return  # no re-render while typing (keeps the caret)
        if bind == "replay-step" and ses.replay is not None:
            ses.replay.go(int(value or 0))
            # The slider shows this step already: its region is not re-rendered under the pointer.
            page.cache["replay-slider-box"] = replay.slider(ses.replay, ses.tr)
            self.renderer.render()
            return
        if bind == "profile-vs" and ses.profile is not None:
            ses.profile.compare = value  # no re-render while typing (keeps the caret)
            return
        if bind == "chat":
            ses.chat.draft = value  # no re-render while typing (keeps the caret)
            return
        if bind == "link":
            s.lobby.link = value
            return  # no re-render while typing (keeps the caret)
        if bind == "turn_seconds":
            s.turn_seconds = int(value)
        elif bind == "public":
            s.public = bool(d.get("checked"))
        elif bind == "rated":
            s.rated = bool(d.get("checked"))
        elif bind == "bot_level":
            s.bot_level = value

    def on_key(self, d: UiEvent) -> None:
        s, page = self.session.state, self.page
        key = str(d.get("key", ""))
        if self.session.account.codes:
            return  # the recovery codes' dialog closes only by "I saved them" (never by Escape)
        if self.moderation.on_key(key):
            return  # the report dialog's keys (Escape closes it)
        if self.playnow.on_key(key):
            return  # the offer's dialog (Escape declines)
        if self.session.account.deleting:
            if key == "Escape":  # the deletion's dialog: Escape cancels it
                self.accounts.close_delete()
                self.renderer.render()
            return
        rs = self.session.replay
        if rs is not None:
            if rs.key(key):
                self.renderer.render()
            return
        had_dialog = s.dialog

        def act() -> None:
            used = s.key(key, shift=bool(d.get("shift")), ctrl=bool(d.get("ctrl")))
            # Where the focus goes travels in the key's own patch (one message to the page per key).
            if had_dialog and not s.dialog:
                self.return_focus()
            elif used and not s.dialog and s.screen == "table":
                page.patch["focus"] = "board"

        self.renderer.timed(act)
        self.conn.flush()

    def on_drop(self, d: UiEvent) -> None:
        s = self.session.state

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

        self.renderer.timed(act)
