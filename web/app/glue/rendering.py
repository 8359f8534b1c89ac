"""Rendering: each screen's regions written into the next patch, only where their HTML changed."""

from __future__ import annotations

from app import chat, render
from app.signals import last_seconds_text, notify_button, sound_button


class Rendering:
    """The page's regions from the state (app.render); the turn's signals (app.signals)."""

    def write(self, region: str, html: str) -> None:
        if self.cache.get(region) != html:
            self.cache[region] = html
            self.patch.setdefault("r", {})[region] = html

    def render(self) -> None:
        s, tr = self.state, self.tr
        now = self.local_now()
        self.observe_turn(now)
        # The turn's sound and notifications matter at a table only, once joined (seated or watching): not on
        # its invitation, where nobody's turn concerns the visitor yet.
        at_table = s.table_id is not None and s.view is not None and self.replay is None and not s.demo
        extra = sound_button(self.signals, tr) + notify_button(self.notify_perm, tr) if at_table else ""
        self.write("hdr", render.shell_header(s, tr, extra))
        self.write("banner", render.banner(s, tr, now))
        screen = "replay" if self.replay is not None else s.screen
        # The table's skeleton is sized for its board (13 columns, or 15 for classic).
        key = f"{screen}:{tr.lang}" + (f":{s.variant.width}" if screen == "table" else "")
        if key != self.screen_key:
            self.cache = {k: v for k, v in self.cache.items() if k in ("hdr", "banner")}
            self.cells = {}
            self.side_for = None
        if screen == "replay":
            self.render_replay(key)
        elif screen == "table":
            if key != self.screen_key:  # the skeleton depends on the language and the board's width
                self.write("main", render.table_skeleton(tr, s.variant.width))
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
        # At the table and cut off from the relay: the page gives its message a line of its own (lexio.css).
        cut_off = "1" if screen == "table" and s.cut_off else "0"
        if self.cache.get("main[data-cut-off]") != cut_off:
            self.cache["main[data-cut-off]"] = cut_off
            self.patch.setdefault("a", []).append(["main", "data-cut-off", cut_off])
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
