"""Server frames, mixed into :class:`app.state.UiState`: welcome, snapshot, events folded into the view,
clock, presence, answers and refusals (docs/protocol.md).
"""

from __future__ import annotations

from typing import Any


class ServerFrames:
    """Folds the relay's frames into the state; the rest of the state is :class:`app.state.UiState`'s."""

    def on_frame(self, frame: dict[str, Any], local_now: int) -> None:
        """Fold one server frame into the state (docs/protocol.md). Unknown types are ignored."""
        if isinstance(frame.get("now"), int):
            self.clock_sync.observe(frame["now"], local_now)
        kind = frame.get("type")
        fid = frame.get("id")
        answered = self.awaiting.pop(fid, None) if isinstance(fid, str) else None
        stale = kind in ("ack", "rejected", "error") and self.unanswered.answered(fid)
        if kind == "welcome":
            self.seat = frame.get("seat")
            self.token = frame.get("token") or self.token
            self.table_id = frame.get("table") or self.table_id
            self.conn = "online"
            self.backoff.reset()
            # Answers to frames sent on a dropped socket never come: the snapshot that follows is the truth.
            self.awaiting.clear()
            # Except for actions: only the relay knows whether one was applied. Sent again with the same id,
            # it is applied if it was not, and answered as the first time if it was (app.resend).
            self.outbox.extend(self.unanswered.again())
        elif kind == "snapshot":
            self.seq = int(frame.get("seq", 0))
            self.resyncing = False
            self.clock = frame.get("clock") or {}
            self.presence = {int(p["seat"]): bool(p["connected"]) for p in frame.get("presence") or ()}
            self.watchers = int(frame.get("watchers") or 0)
            self.lobby.joining = False
            self._set_view(frame["view"])
            if isinstance(frame.get("rematch"), dict):
                # Proposed while this tab was away (or its answer was lost with the old socket).
                self._on_rematch(frame["rematch"])
            else:
                self.rematch = None
                # A request lost with a dropped socket (welcome forgot it) may be sent again.
                self._rematch_asked = "rematch" in self.awaiting.values()
        elif kind == "rematch":
            self._on_rematch(frame)
        elif kind == "analysis":
            from app.analysis import on_analysis

            on_analysis(self, frame)
        elif kind == "event":
            seq = int(frame.get("seq", -1))
            if seq <= self.seq or self.resyncing:
                return  # already seen, or covered by the snapshot on its way
            if seq != self.seq + 1:
                self.ask_resync()
                return
            self.seq = seq
            if isinstance(frame.get("clock"), dict):
                self.clock = frame["clock"]
            self._fold_event(frame.get("event") or {})
        elif kind == "clock":
            self.clock = frame.get("clock") or {}
        elif kind == "watchers":
            self.watchers = int(frame.get("count") or 0)
        elif kind == "presence":
            self.presence = {int(p["seat"]): bool(p["connected"]) for p in frame.get("seats") or ()}
        elif kind == "rejected":
            self.rejected = [str(w) for w in frame.get("words") or ()]
            if self.view is not None and isinstance(frame.get("reserve"), dict):
                self.view = {**self.view, "reserve": frame["reserve"]}
        elif kind == "error" and stale:
            pass  # a resent action refused now (e.g. the turn moved on meanwhile): the snapshot says why
        elif kind == "error":
            code = str(frame.get("code", "internal_error"))
            self.error = (code, dict(frame.get("params") or {}))
            if answered is None:
                # Not an answer to an action: it may be the refused resync (e.g. rate_limited), so the
                # next out-of-order event must be free to ask again rather than wait for a lost snapshot.
                self.resyncing = False
            if answered == "rematch":
                self._rematch_asked = False
                self.rematch_error = self.error
            elif answered == "analyse":
                from app.analysis import on_analysis_error

                on_analysis_error(self, self.error)
            refused_join = fid == "j0" and self.view is None and self.seat is None
            no_seat = code in ("table_full", "already_started")
            if refused_join and self.lobby.invite is not None and not no_seat:
                # Said next to the name field of the invitation; the player fixes it and joins again.
                self.lobby.join_error, self.lobby.joining = self.error, False
                self.error = None
                self.conn = "idle"
            elif self.view is None:
                self.notice = (
                    self.error
                )  # no table on screen yet (e.g. a refused join): show it in the banner
            if code == "bad_token":
                # The seat is gone (freed before the start): come back as a new arrival.
                self.token = None
            elif code in ("table_full", "already_started") and self.seat is None and fid == "j0":
                # No seat to take: watch the game instead (the table sees what every seat sees).
                self.lobby.watching = True
                self.notice = None
                self.outbox.append({"type": "watch", "id": "w0"})

    def _set_view(self, view: dict[str, Any]) -> None:
        old_rack = self.rack
        old_board = self.board_map()
        self.view = view
        if view.get("you") is not None:
            self.seat = int(view["you"])
        rack = self.rack
        if sorted(rack) != sorted(old_rack) or len(self.rack_order) != len(rack):
            self.rack_order = list(range(len(rack)))
            self.pending.clear()
            self.selected = None
        board = self.board_map()
        if board != old_board:
            self.pending = [p for p in self.pending if p.sq not in board]
        if view.get("status") != "playing":
            self.pending.clear()
            self.dialog = None
        self.refresh_preview()

    def ask_resync(self) -> None:
        """Ask for a snapshot, once until it arrives: after a seq gap, or an event that reshapes the view."""
        if not self.resyncing:
            self.resyncing = True
            self.outbox.append({"type": "resync", "since": self.seq})

    def _fold_event(self, event: dict[str, Any]) -> None:
        """Apply one redacted event (engine.redact_event) to the view.

        Moves are folded locally (board, score, rack sizes, bag, own rack, turn from the frame's clock);
        seating, the start and the end ask the relay for a snapshot instead, since they reshape the view.
        """
        if self.view is None:
            self.ask_resync()
            return
        v = dict(self.view)
        v["journal"] = [*(v.get("journal") or ()), event]
        v["version"] = self.seq
        etype = str(event.get("type", ""))
        seat = event.get("seat")
        seats = [dict(x) for x in v.get("seats") or ()]
        mover = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else None
        if etype in ("placed", "swapped", "passed", "timed_out") and mover is not None:
            if etype == "placed":
                v["board"] = [*(v.get("board") or ()), *(event.get("tiles") or ())]
                mover["score"] = int(mover.get("score", 0)) + int(event.get("score", 0))
                v["scoreless_turns"] = 0
            else:
                v["scoreless_turns"] = int(v.get("scoreless_turns", 0)) + 1
            if "rack_size" in event:
                mover["rack_size"] = event["rack_size"]
            if "bag_size" in event:
                v["bag_size"] = event["bag_size"]
            if seat == self.seat and "rack" in event:
                v["rack"] = event["rack"]
            v["seats"] = seats
            if "turn" in self.clock:
                v["turn"] = self.clock["turn"]
            v["turn_started_ms"] = event.get("at", v.get("turn_started_ms"))
            self._set_view(v)
            return
        self.view = v
        if etype != "rejected":
            self.ask_resync()
