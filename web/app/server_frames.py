"""Server frames, for :class:`app.state.UiState`: welcome, snapshot, events folded into the view, clock,
presence, answers and refusals (docs/protocol.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import wire
from app.ratings_view import TableRatings
from engine.fold import fold_view

if TYPE_CHECKING:
    from app.payloads import ClientFrame, GameEvent, Presence, ServerFrame, View
    from app.state import UiState


def _presence(items: list[Presence] | None) -> dict[int, bool]:
    return {int(p["seat"]): bool(p["connected"]) for p in items or ()}


class ServerFrames:
    """Folds the relay's frames into ``state``."""

    def __init__(self, state: UiState) -> None:
        self.state = state

    def on_frame(self, frame: ServerFrame, local_now: int) -> None:
        """Fold one server frame into the state (docs/protocol.md). Unknown types are ignored."""
        s = self.state
        now = frame.get("now")
        if isinstance(now, int):
            s.clock_sync.observe(now, local_now)
        kind = frame.get("type")
        fid = frame.get("id")
        answered = s.awaiting.pop(fid, None) if isinstance(fid, str) else None
        stale = kind in ("ack", "rejected", "error") and s.unanswered.answered(fid)
        if kind == "welcome":
            s.seat = frame.get("seat")
            s.token = frame.get("token") or s.token
            s.table_id = frame.get("table") or s.table_id
            s.conn = "online"
            s.backoff.reset()
            # Answers to frames sent on a dropped socket never come: the snapshot that follows is the truth.
            s.awaiting.clear()
            # Except for actions: only the relay knows whether one was applied. Sent again with the same id,
            # it is applied if it was not, and answered as the first time if it was (app.resend).
            s.outbox.extend(s.unanswered.again())
        elif kind == "snapshot":
            s.seq = int(frame.get("seq", 0))
            s.resyncing = False
            s.clock = frame.get("clock") or {}
            s.presence = _presence(frame.get("presence"))
            s.watchers = int(frame.get("watchers") or 0)
            s.lobby.joining = False
            self.set_view(frame["view"])
            offer = frame.get("rematch")
            if isinstance(offer, dict):
                # Proposed while this tab was away (or its answer was lost with the old socket).
                s.rematch_flow.on_rematch(offer.get("table"), offer.get("link"), offer.get("by"))
            else:
                s.rematch = None
                # A request lost with a dropped socket (welcome forgot it) may be sent again.
                s.rematch_asked = "rematch" in s.awaiting.values()
        elif kind == "rematch":
            s.rematch_flow.on_rematch(frame.get("table"), frame.get("link"), frame.get("by"))
        elif kind == "analysis":
            from app.analysis import on_analysis

            on_analysis(s, frame)
        elif kind == "event":
            seq = int(frame.get("seq", -1))
            if seq <= s.seq or s.resyncing:
                return  # already seen, or covered by the snapshot on its way
            if seq != s.seq + 1:
                self.ask_resync()
                return
            s.seq = seq
            clock = frame.get("clock")
            if isinstance(clock, dict):
                s.clock = clock
            self._fold_event(frame.get("event") or {})
        elif kind == "ratings":
            s.ratings = TableRatings.from_frame(frame)
        elif kind == "clock":
            s.clock = frame.get("clock") or {}
        elif kind == "watchers":
            s.watchers = int(frame.get("count") or 0)
        elif kind == "presence":
            s.presence = _presence(frame.get("seats"))
        elif kind == "rejected":
            s.rejected = [str(w) for w in frame.get("words") or ()]
            reserve = frame.get("reserve")
            if s.view is not None and isinstance(reserve, dict):
                s.view = {**s.view, "reserve": reserve}
        elif kind == "error" and stale:
            pass  # a resent action refused now (e.g. the turn moved on meanwhile): the snapshot says why
        elif kind == "error":
            self._on_error(frame, fid, answered)

    def _on_error(self, frame: ServerFrame, fid: str | None, answered: str | None) -> None:
        s = self.state
        code = str(frame.get("code", "internal_error"))
        s.error = error = (code, dict(frame.get("params") or {}))
        if answered is None:
            # Not an answer to an action: it may be the refused resync (e.g. rate_limited), so the
            # next out-of-order event must be free to ask again rather than wait for a lost snapshot.
            s.resyncing = False
        if answered == "rematch":
            s.rematch_asked = False
            s.rematch_error = error
        elif answered == "analyse":
            from app.analysis import on_analysis_error

            on_analysis_error(s, error)
        refused_join = fid == "j0" and s.view is None and s.seat is None
        no_seat = code in ("table_full", "already_started")
        if refused_join and s.lobby.invite is not None and not no_seat:
            # Said next to the name field of the invitation; the player fixes it and joins again.
            s.lobby.join_error, s.lobby.joining = error, False
            s.error = None
            s.conn = "idle"
        elif s.view is None:
            s.notice = error  # no table on screen yet (e.g. a refused join): show it in the banner
        if code == "bad_token":
            # The seat is gone (freed before the start): come back as a new arrival.
            s.token = None
        elif no_seat and s.seat is None and fid == "j0":
            # No seat to take: watch the game instead (the table sees what every seat sees).
            s.lobby.watching = True
            s.notice = None
            s.outbox.append(cast("ClientFrame", wire.Watch("w0").to_json()))

    def set_view(self, view: View) -> None:
        s = self.state
        old_rack = s.rack
        old_board = s.board_map()
        was_mine = s.my_turn
        s.view = view
        you = view.get("you")
        if you is not None:
            s.seat = int(you)
        rack = s.rack
        if sorted(rack) != sorted(old_rack) or len(s.rack_order) != len(rack):
            s.rack_order = tuple(range(len(rack)))
            s.pending = ()
            s.selected = None
        board = s.board_map()
        if board != old_board:
            s.pending = tuple([p for p in s.pending if p.sq not in board])
        if view.get("status") != "playing":
            s.pending = ()
            s.dialog = None
        if was_mine and not s.my_turn:
            # The turn left this seat (a time-out, or a move answered): the turn's debris must not follow
            # the player into the next turn, where a stale "pass?" confirm would pass that turn too.
            self.clear_turn()
        s.refresh_preview()

    def clear_turn(self) -> None:
        """Forget what belonged to this seat's turn: pending tiles, the last refusal, an open dialog."""
        s = self.state
        s.pending = ()
        s.selected = None
        s.rejected = []
        s.error = None
        s.close_dialog()

    def ask_resync(self) -> None:
        """Ask for a snapshot, once until it arrives: after a seq gap, or an event that reshapes the view."""
        s = self.state
        if not s.resyncing:
            s.resyncing = True
            s.outbox.append(cast("ClientFrame", wire.Resync(since=s.seq).to_json()))

    def _fold_event(self, event: GameEvent) -> None:
        """Apply one redacted event (engine.redact_event) to the view with the engine's own fold
        (:func:`engine.fold_view`: board, score, rack sizes, bag, own rack; the turn from the frame's clock).
        Seating, the start and the end reshape the view: the relay is asked for a snapshot instead."""
        s = self.state
        if s.view is None:
            self.ask_resync()
            return
        turn = s.clock["turn"] if "turn" in s.clock else s.view.get("turn")
        try:
            folded = fold_view(s.view, event, turn=turn)
        except (KeyError, IndexError, TypeError, ValueError):
            folded = None  # a malformed event: the snapshot asked below is the truth
        if folded is None:
            s.view = {**s.view, "journal": [*(s.view.get("journal") or ()), event], "version": s.seq}
            self.ask_resync()
        elif event.get("type") == "rejected":
            s.view = cast("View", folded)
        else:
            self.set_view(cast("View", folded))
