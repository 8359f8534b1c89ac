"""UI events (one JSON string each, from the bootstrap): clicks, keys, bound fields, drops, focus."""

from __future__ import annotations

from typing import Any

from app import chat, render, replay, replay_analysis
from app.analysis import request_analysis
from app.i18n import Translator
from app.signals import SOUND_KEY


class UiEvents:
    """What each UI event does to the state, then the render it asks for."""

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
