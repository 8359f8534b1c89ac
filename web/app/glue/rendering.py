"""Rendering: each screen's regions written into the next patch, only where their HTML changed."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from app import (
    account_screens,
    chat,
    leaderboard_screen,
    moderation,
    playnow,
    profile_screens,
    render,
    replay,
    screens,
)
from app.account import same_nickname, seat_tokens
from app.glue.playnow import write_live
from app.profile_screens import long_date
from app.signals import last_seconds_text, notify_button, sound_button
from app.state import UiState

if TYPE_CHECKING:
    from app.glue.doors import Clock
    from app.glue.session import PagePatch, Session
    from app.i18n import Translator
    from app.payloads import View

# Regions every screen has: kept in the cache when the screen changes.
CHROME = ("hdr", "banner")
# Tests set this: a region skipped because its inputs are unchanged (Renderer.keyed) is drawn anyway and must
# come out the same, which proves that its key names every input it is drawn from.
CHECK_KEYS = False


class Renderer:
    """The page's regions from the state (app.render) and the turn's signals (app.signals), into the
    page's next patch; what each region and board square holds is remembered, to send only changes."""

    def __init__(self, session: Session, page: PagePatch, clock: Clock) -> None:
        self.session = session
        self.page = page
        self.clock = clock
        self.screen_key = ""  # the screen and language the page's main region was drawn for
        self.screen_sub = ""  # the screen whose title has had the focus
        self.cells: dict[str, str] = {}  # board square -> its HTML on the page
        self.cell_inputs = render.CellInputs(None, {}, frozenset(), None, True)  # at the last drawing
        self.board_key: tuple[int, str] = (-1, "")
        # the view, language and presence the side panels were drawn for
        self.side_for: View | None = None
        self.side_tr: Translator | None = None
        self.side_presence: tuple[object, ...] = ()
        self.chat_key: tuple[object, ...] = ()
        # region -> (the inputs it was last drawn from, that drawing): see keyed
        self.memo: dict[str, tuple[tuple[object, ...], str]] = {}
        self.rack_frame: tuple[str, str] = ("", "")  # the rack's opening tag and what follows its tiles
        self.drawn: dict[str, int] = {}  # region -> how many times it was drawn (tests count them)
        self.preview_ms: list[float] = []  # action → patch handed to the page, per timed action
        self.codes_shown = False  # the recovery codes' dialog is on the page (its focus was given once)
        self.quiet_for: tuple[object, ...] | None = None  # quiet_table() at the last full render

    def render(self, *, local_play: bool = False) -> None:
        """The page's next patch from the state, sent. At a quiet table (:meth:`quiet_table` unchanged since
        the last full render: a key on the board, a tile moved) only the table's regions are drawn; what
        changes with time alone there (the countdown, the last seconds' warning, a notice's end, play now's
        seconds) is the tick's (app.glue.client). ``local_play``: see :meth:`render_table`."""
        now = self.clock.now_ms()
        quiet = self.quiet_table()
        if quiet is not None and quiet == self.quiet_for:
            self.render_table(now, ticking=False, local_play=local_play)
            if CHECK_KEYS:  # the full render must add nothing: proves that quiet_table names every input
                drawn = copy.deepcopy(self.page.patch)
                self.render_page(now, ticking=False)
                assert self.page.patch == drawn, f"quiet table: {quiet!r} misses an input"
        else:
            self.render_page(now)
            self.quiet_for = self.quiet_table()
        self.page.send()

    def quiet_table(self) -> tuple[object, ...] | None:
        """Everything a table's page draws from besides the table's own regions (header, banner, chat, the
        dialogs, the screen's title and focus, the turn's title), or None when that page is not quiet: another
        screen, a dialog or menu open, a seek or report under way."""
        ses = self.session
        s, acc, pn = ses.state, ses.account, ses.playnow
        if (
            s.screen != "table"
            or s.dialog
            or ses.replay is not None
            or ses.profile is not None
            or ses.board is not None
            or acc.page is not None
            or acc.menu_open
            or acc.codes
            or acc.deleting
            or ses.report.open
            or pn.status != "idle"
            or pn.offer is not None
        ):
            return None
        return (
            ses.tr,
            s.view,
            s.conn,
            s.retry_at,
            s.stop_reason,
            s.seat,
            s.demo,
            s.member,
            s.notice,
            s.watchers,
            s.table_id,
            s.lobby.invite_status,
            ses.chat.rev,
            ses.signals.sound_on,
            ses.notify_perm,
            acc.known,
            acc.nickname,
            self.screen_key,
            self.screen_sub,
        )

    def render_page(self, now: int, ticking: bool = True) -> None:
        """Every region of the page's screen, each written where its HTML changed (not sent); ``ticking``:
        see :meth:`render_table`."""
        ses, page = self.session, self.page
        s, tr = ses.state, ses.tr
        self.observe_turn(now)
        # The turn's sound and notifications matter at a table only, once joined (seated or watching): not on
        # its invitation, where nobody's turn concerns the visitor yet.
        at_table = s.table_id is not None and s.view is not None and ses.replay is None and not s.demo
        extra = sound_button(ses.signals, tr) + notify_button(ses.notify_perm, tr) if at_table else ""
        home = s.screen == "home" and ses.replay is None and ses.account.page is None and ses.profile is None
        extra = playnow.chip(ses.playnow, tr, on_home=home) + extra  # a seek goes on: said off home
        menu_open = ses.account.menu_open
        self.keyed(
            "hdr",
            (tr, s.conn, s.demo, s.member, extra, menu_open),
            lambda: render.shell_header(s, tr, extra, menu_open=menu_open),
        )
        page.write("banner", render.banner(s, tr, now))
        screen = "replay" if ses.replay is not None else s.screen
        if ses.account.page is not None:
            screen = "account"
        elif ses.profile is not None:
            screen = "profile"
        elif ses.board is not None:
            screen = "leaderboard"
        # The table's skeleton is sized for its board (13 columns, or 15 for classic).
        # A spectator's table has no reserve of refusals to explain (render.help_text).
        key = f"{screen}:{tr.lang}" + (f":{s.variant.width}:{s.seat is None}" if screen == "table" else "")
        if ses.replay is not None:  # a table's record has no file picker nor game list: a frame of its own
            key += f":{ses.replay.table or ''}"
        if screen == "account":  # each account screen has its own frame (title)
            key += f":{ses.account.page}:{ses.account.nickname is None}"
        if ses.profile is not None and screen == "profile":  # each profile, each head-to-head: a new screen
            key += f":{ses.profile.nickname}:{ses.profile.vs}"
        if ses.board is not None and screen == "leaderboard":  # each class and page: a new screen
            key += f":{ses.board.speed}:{ses.board.page}"
        if key != self.screen_key:
            page.cache = {k: v for k, v in page.cache.items() if k in CHROME}
            self.cells = {}
            self.side_for = None
        if screen == "account":
            self.render_account()
        elif screen == "replay":
            self.render_replay(key)
        elif screen == "table":
            if key != self.screen_key:  # the skeleton depends on the language and the board's width
                page.write("main", render.table_skeleton(tr, s.variant.width, watcher=s.seat is None))
            self.render_table(now, ticking)
        elif screen == "profile" and ses.profile is not None:
            ps, me = ses.profile, ses.account.nickname
            shown = ps.shown_name or ps.nickname
            own = me is not None and same_nickname(shown, me)
            block = moderation.block_button(shown, ses.account, tr) if ps.status == "ok" and not own else ""
            page.write("main", profile_screens.screen(ses.profile, tr, ses.account.nickname, block))
        elif screen == "leaderboard" and ses.board is not None:
            page.write("main", leaderboard_screen.screen(ses.board, tr, ses.account.nickname is not None))
        elif screen == "home":
            mine = profile_screens.my_games(ses.my_games, tr, s.member)
            mine = moderation.ban_notice(ses.account, tr) + mine + leaderboard_screen.link(tr)
            listed = {g.table for g in ses.my_games.live} if mine else set()
            page.write("main", screens.home(s, tr, playnow.card(ses.playnow, tr, s.member) + mine, listed))
        elif screen == "invite":
            page.write("main", screens.invite(s, tr))
        elif screen == "waiting":
            page.write("main", render.waiting(s, tr, ses.addr.share_link(s.table_id)) + chat.skeleton(tr))
        else:
            gcg = f"{ses.addr.relay}/api/tables/{s.table_id}/gcg"
            replay_url = ses.addr.page(f"t/{s.table_id}/replay")
            page.write("main", render.end(s, tr, gcg, replay_url) + chat.skeleton(tr))
        if screen in ("table", "waiting", "end"):
            if "main" in page.patch.get("r", {}):  # the chat's regions were written afresh, empty
                for region in chat.REGIONS:
                    page.cache.pop(region, None)
            self.render_chat()
        if screen in ("home", "invite"):
            # Also written alone while the name is typed: keep the region's cache true to the page.
            page.write("name-error", screens.name_error(s, tr))
        # A new screen (not the same one in another language): the focus goes to its h1 (exactly one). Not
        # the lobby drawn first: the static shell showed it already (a player may be typing in it), and a
        # focus there would make the page's first patch lay the page out in its own task.
        title_key = screen + (f":{s.lobby.invite_status}" if screen == "invite" else "")
        if screen in ("account", "profile", "leaderboard"):
            title_key = key
        shown_by_shell = self.screen_sub == "" and screen == "home" and not ses.addr.path.startswith("/t/")
        if title_key != self.screen_sub and "focus" not in page.patch and not shown_by_shell:
            page.patch["focus"] = "title"
        self.screen_key, self.screen_sub = key, title_key
        codes = account_screens.codes_dialog(ses.account, tr)  # the recovery codes, shown once
        deleting = account_screens.delete_dialog(ses.account, tr)  # its focus is set where it opens
        report = moderation.report_dialog(ses.report, s.view, s.seat, tr) if screen != "account" else ""
        offer = playnow.offer_dialog(ses.playnow, tr)  # a table found by play now, on any screen
        page.write("dialog-root", codes or deleting or report or offer or render.dialog(s, tr))
        if s.dialog or (codes and "dialog-root" in page.patch.get("r", {}) and not self.codes_shown):
            page.patch["focus"] = "modal"
        self.codes_shown = bool(codes)
        # At the table and cut off from the relay: the page gives its message a line of its own (lexio.css).
        cut_off = "1" if screen == "table" and s.cut_off else "0"
        if page.cache.get("main[data-cut-off]") != cut_off:
            page.cache["main[data-cut-off]"] = cut_off
            page.attr("main", "data-cut-off", cut_off)
        write_live(page, ses.playnow, tr, now)  # play now's wait and seconds left, in their own regions

    def render_account(self) -> None:
        """An account screen: its frame once, its body and its answer line when they change (the body's
        field error is written alone while the player types: app.glue.accounts)."""
        ses, page = self.session, self.page
        acc, tr = ses.account, ses.tr
        page.write("main", account_screens.frame(acc, tr))
        if "main" in page.patch.get("r", {}):
            page.cache.pop("acct-body", None)
            page.cache.pop("acct-msg", None)
        export = f"{ses.addr.relay}/api/account/export"
        body = account_screens.body(acc, tr, len(seat_tokens(page.storage)), export)
        if acc.page == "account" and acc.nickname is not None:
            dates = {n: tr.t("blocked_since", date=long_date(ms, tr)) for n, ms in acc.blocked.items()}
            body = moderation.ban_notice(acc, tr) + body + moderation.blocked_section(acc, tr, dates)
        page.write("acct-body", body)
        if "acct-body" in page.patch.get("r", {}):
            page.cache.pop("nick-error", None)  # drawn inside the body afresh
        page.cache["nick-error"] = account_screens.nick_error(acc, tr)
        page.write("acct-msg", account_screens.message(acc, tr))

    def render_table(self, now: int, ticking: bool = True, *, local_play: bool = False) -> None:
        """The table's regions; ``ticking``: the status line's countdown too (not from a quiet table's
        render: the tick moves it on, four times a second). ``local_play``: drawn right after an action on
        the local play alone (:meth:`timed`: a key, a click on the board or the rack, a drop), which moves
        squares, the rack and the preview, never what the announcement, the status line and the side panels
        are drawn from (the view, the clock, presence): those stay as the last render drew them (under
        ``CHECK_KEYS`` the full render that follows proves it)."""
        s, tr, page = self.session.state, self.session.tr, self.page
        inputs = render.cell_inputs(s)
        board_key = (len((s.view or {}).get("board") or ()), s.variant.name)
        if not self.cells or board_key != self.board_key:
            self.cells = render.board_cells(s, tr, inputs=inputs)
            page.cache.pop("t-board", None)
            page.write("t-board", render.board(s, tr, self.cells))
        else:
            # Only squares whose pending tile, previewed word or cursor changed can look different.
            dirty = render.changed_squares(self.cell_inputs, inputs)
            if CHECK_KEYS:  # every square the local play touches, before or after, is as drawn
                for sq, html in render.board_cells(s, tr, only=self.cell_inputs.hot() | inputs.hot()).items():
                    assert sq in dirty or self.cells.get(sq) == html, f"cell {sq} changed, not redrawn"
            fresh = render.board_cells(s, tr, only=dirty, inputs=inputs) if dirty else {}
            changed = {sq: html for sq, html in fresh.items() if self.cells.get(sq) != html}
            if changed:
                self.cells.update(changed)
                page.patch.setdefault("c", {}).update(changed)
                if s.cursor:
                    page.attr("board", "aria-activedescendant", "sq-" + s.cursor)
        self.cell_inputs, self.board_key = inputs, board_key
        # Each region is drawn again only when what it is drawn from changed (see keyed): a key on the board
        # redraws the rack and the preview when a tile moved, never the status line nor the announcement.
        view, seat, cut_off = s.view, s.seat, s.cut_off
        rack_key = (tr, view, seat, s.demo, s.watchers, s.available(), s.selected, s.dialog)
        swap = tuple(sorted(s.swap_sel)) if s.dialog == "swap" else ()
        play_key = (cut_off, bool(s.awaiting), s.across, bool(s.pending), swap)
        self.write_rack(rack_key + play_key)
        preview_key = (tr, view, seat, s.demo, tuple(s.rejected), s.error, s.preview)
        self.keyed("t-preview", preview_key, lambda: render.preview(s, tr))
        if local_play:
            return
        self.write_announce()
        self.write_status(now, ticking)
        side_key = (s.conn, s.presence, s.member, s.ratings)
        if s.view is not self.side_for or tr is not self.side_tr or side_key != self.side_presence:
            # Players, unseen tiles and the journal depend only on the server's view and the connection
            # (offline, nobody's presence is known): not on the local play. (Presence is changed in place:
            # a copy is kept.)
            self.side_for, self.side_tr = s.view, tr
            self.side_presence = (s.conn, dict(s.presence), s.member, s.ratings)
            report = moderation.report_button(s.view, s.seat, s.member, tr)
            page.write("t-players", render.players(s, tr) + report)
            page.write("t-unseen", render.unseen(s, tr))
            page.write("t-journal", render.journal(s, tr))

    def write_rack(self, key: tuple[object, ...]) -> None:
        """The rack's region, as :meth:`keyed` writes it; when only its tiles changed (a tile placed or taken
        back) and the page shows this renderer's last drawing, ``#rack``'s tiles alone go in the patch."""
        s, tr, page = self.session.state, self.session.tr, self.page
        memo = self.memo.get("t-rack")
        shown = page.cache.get("t-rack")
        if memo is not None and memo[0] == key and shown is memo[1]:
            if CHECK_KEYS:
                assert render.rack_area(s, tr) == memo[1], f"t-rack: its key {key!r} misses an input"
            return
        self.drawn["t-rack"] = self.drawn.get("t-rack", 0) + 1
        head, tiles, tail = render.rack_parts(s, tr)
        html = head + tiles + tail
        same_frame = self.rack_frame == (head, tail)
        if head and memo is not None and shown is memo[1] and same_frame and shown != html:
            page.cache["t-rack"] = html
            page.patch.setdefault("r", {})["rack"] = tiles
        else:
            page.write("t-rack", html)
        self.rack_frame = (head, tail)
        self.memo["t-rack"] = (key, page.cache["t-rack"])

    def write_status(self, now: int, ticking: bool = True) -> None:
        """The status line (turn, countdown, bag, reserve): drawn again when the view changed or a second
        of its countdown or of the reserve's refill went by (render.status_clock); not ``ticking``, only
        when something else than time changed."""
        s, tr = self.session.state, self.session.tr
        memo = self.memo.get("t-status")
        inputs = (tr, s.view, s.clock, s.seat, s.cut_off, s.watchers)
        if (
            not ticking
            and memo is not None
            and memo[0][:-1] == inputs
            and self.page.cache.get("t-status") is memo[1]
        ):
            return
        server_now = s.clock_sync.server_now(now)
        key = (*inputs, render.status_clock(s, server_now))
        self.keyed("t-status", key, lambda: render.status(s, tr, server_now))

    def write_announce(self) -> None:
        """The live region saying whose turn it is: drawn again only when the turn or what was played did
        (a screen reader then says it; an unchanged region says nothing)."""
        s = self.session.state
        key = (self.session.tr, s.view, s.seat, self.session.signals.warning)
        self.keyed("t-announce", key, self.announce_html)

    def keyed(self, region: str, key: tuple[object, ...], draw: Callable[[], str]) -> None:
        """Write ``region`` as ``draw()`` makes it, unless ``key`` (everything it is drawn from, compared with
        ``==``; the view and the preview by identity, as they are replaced, never changed in place) is the
        same as at its last drawing and the page still holds that drawing (nothing else wrote the region
        since, no new screen emptied the cache)."""
        page = self.page
        memo = self.memo.get(region)
        if memo is not None and memo[0] == key and page.cache.get(region) is memo[1]:
            if CHECK_KEYS:
                fresh = draw()
                assert fresh == memo[1], f"{region}: its key {key!r} misses an input"
            return
        self.drawn[region] = self.drawn.get(region, 0) + 1
        page.write(region, draw())
        self.memo[region] = (key, page.cache[region])

    def render_chat(self) -> None:
        ses = self.session
        s, tr = ses.state, ses.tr
        if s.screen not in ("table", "waiting", "end") or ses.replay is not None:
            return
        seats = (s.view or {}).get("seats") or ()
        me = next((str(x.get("name")) for x in seats if x.get("seat") == s.seat), None)
        key = (ses.chat.rev, tr.lang, s.seat, me)
        if key == self.chat_key and all(r in self.page.cache for r in chat.REGIONS):
            return  # nothing changed (a keystroke on the board does not touch the chat)
        self.chat_key = key
        self.page.write("t-chat-log", chat.log(ses.chat, tr, seated=s.seat is not None, me=me))
        self.page.write("t-chat-form", chat.form(ses.chat, tr, seated=s.seat is not None))

    def render_replay(self, key: str) -> None:
        rs, tr = self.session.replay, self.session.tr
        assert rs is not None
        if key != self.screen_key:
            self.page.write("main", replay.frame(rs, tr))

        def board_html(view: View) -> str:
            ui = UiState(lang=tr.lang)
            ui.view = view
            return render.board(ui, tr)

        for region, html in replay.regions(rs, tr, board_html).items():
            self.page.write(region, html)

    def observe_turn(self, now: int) -> None:
        """The turn's signals (app.signals): title, sound, notification; the last seconds' warning."""
        s, page = self.session.state, self.page
        sig = self.session.signals.observe(s, self.session.tr, s.clock_sync.server_now(now))
        if sig.title is not None:
            page.patch["title"] = sig.title
        if sig.sound:
            page.patch["sound"] = 1
        if sig.notify is not None:
            page.patch["notify"] = list(sig.notify)
        if sig.last_seconds and s.screen == "table":
            self.write_announce()

    def announce_html(self) -> str:
        tr = self.session.tr
        html = render.announce(self.session.state, tr)
        return html + (" " + last_seconds_text(tr) if self.session.signals.warning else "")

    def timed(self, action: Callable[[], object]) -> None:
        """Run a play-changing action, render, and record action → patch handed to the page (ms).

        The timings travel in the next patch to ``#perf`` (read by bench/browser.py)."""
        page = self.page
        page.mark("lexio-action")
        engine_ms = self.session.state.preview_ms
        last = engine_ms[-1] if engine_ms else None
        t0 = time.perf_counter()
        action()
        # Only new samples (the page keeps the series): the previous action's time, this one's engine time.
        page.patch["perf"] = [
            round(self.preview_ms[-1], 3) if self.preview_ms else None,
            round(engine_ms[-1], 3) if engine_ms and engine_ms[-1] is not last else None,
        ]
        page.posted_at = None
        self.render(local_play=True)
        # Up to the hand-over of the patch, not the return of postMessage: waking the page's thread to
        # apply it may deschedule this one for a while (2 shared cores), after its work is done.
        end = time.perf_counter() if page.posted_at is None else page.posted_at
        self.preview_ms.append((end - t0) * 1000)
        del self.preview_ms[:-200]
        if page.posted_at is None:
            page.mark("lexio-handover")  # nothing to send: the action ends here
