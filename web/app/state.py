"""The UI state machine: screens, the pending placement, keyboard play, dialogs and server frames.

Pure Python: no browser module is imported. The browser glue (``web/src/main.py``) feeds it DOM events and
WebSocket frames, sends what it queues in ``outbox`` and re-renders with :mod:`app.render`.
Every method that changes the pending placement recomputes the live preview with ``engine.preview``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.lobby import Lobby
from app.resend import Unanswered, page_prefix
from app.timing import Backoff, ServerClock
from engine.game import NAME_MAX, is_bot_name
from engine.variants import BLANK, LETTERS, Kind, Variant, get_variant

PreviewFn = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]
LEVELS = ("beginner", "easy", "medium", "strong", "expert")
TURN_CHOICES = (30, 60, 90, 120, 180, 300, 600)


def _engine_preview() -> PreviewFn:
    # Imported lazily: the build renders the static shell before every engine module may exist.
    from engine import preview

    return preview  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Pending:
    """A tile placed on the board but not yet submitted."""

    sq: str
    rack_index: int
    letter: str  # upper case; for a blank, the letter it names
    blank: bool


class UiState:
    """Everything the screen shows, derived from the server's frames plus the local pending play."""

    def __init__(
        self, *, lang: str = "fr", rng: random.Random | None = None, preview_fn: PreviewFn | None = None
    ) -> None:
        self.lang = lang
        self.name = ""
        self.rng = rng or random.Random()
        self._preview_fn = preview_fn
        # connection
        self.conn = "idle"  # idle | connecting | online | offline | stopped
        self.retry_at: int | None = None  # local ms of the next reconnection attempt
        self.stop_reason: str | None = None
        self.backoff = Backoff(rng=self.rng)
        self.clock_sync = ServerClock()
        # lobby
        self.tables: list[dict[str, Any]] = []
        self.turn_seconds = 120
        self.public = True
        self.bot_level = "medium"
        self.notice: tuple[str, dict[str, Any]] | None = None  # (code, params) shown once
        self.lobby = Lobby()  # own tables, the invitation a link opened (app.lobby)
        self.watchers = 0  # how many watch this table (docs/protocol.md, "watchers")
        # table
        self.table_id: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.view: dict[str, Any] | None = None
        self.seq = -1
        # A resync is on its way: events until the snapshot are covered by it, so one request is enough.
        self.resyncing = False
        self.clock: dict[str, Any] = {}
        self.presence: dict[int, bool] = {}
        self.demo = False
        # the local play
        self.rack_order: list[int] = []
        self.pending: list[Pending] = []
        self.selected: int | None = None
        self.cursor: str | None = None
        self.across = True
        self.preview: dict[str, Any] | None = None
        self.preview_ms: list[float] = []
        self.rejected: list[str] = []
        self.error: tuple[str, dict[str, Any]] | None = None
        self.dialog: str | None = None  # blank | swap | pass
        self.blank_for: tuple[int, str] | None = None
        self.swap_sel: set[int] = set()
        self.outbox: list[dict[str, Any]] = []
        self._next_id = 0
        self._id_prefix = page_prefix()
        self.awaiting: dict[str, str] = {}  # frame id -> type, until ack/rejected/error
        self.unanswered = Unanswered()  # actions resent with the same id after a reconnect (app.resend)
        # after the end: the new table proposed for the same players ({"table", "link", "by"}), and where the
        # glue should navigate next (set when this tab asked for it: the asker goes there at once)
        self.rematch: dict[str, Any] | None = None
        self.goto: str | None = None
        self._rematch_asked = False
        self.rematch_error: tuple[str, dict[str, Any]] | None = None  # the refusal of our request
        # after the end: this seat's analysis (app.analysis), asked once
        self.analysis: list[dict[str, Any]] | None = None
        self.analysis_pending = False
        self.analysis_error: tuple[str, dict[str, Any]] | None = None

    # -- derived -----------------------------------------------------------------------------------------
    @property
    def screen(self) -> str:
        if self.view is None or self.table_id is None:
            # A link opened by someone not (yet) seated: the table's invitation, not the generic home.
            return "invite" if self.table_id is not None and self.lobby.invite is not None else "home"
        status = self.view.get("status")
        if status == "playing":
            return "table"
        if status == "ended":
            return "end"
        return "waiting"

    @property
    def variant(self) -> Variant:
        return get_variant(str((self.view or {}).get("variant", "lexio")))

    @property
    def rack(self) -> str:
        return str((self.view or {}).get("rack") or "")

    @property
    def my_turn(self) -> bool:
        v = self.view or {}
        return v.get("status") == "playing" and self.seat is not None and v.get("turn") == self.seat

    @property
    def cut_off(self) -> bool:
        """At a table but without a live connection to the relay: what others do is unknown meanwhile,
        and a move could not be sent (the demo table has no relay and is never cut off)."""
        return self.conn in ("connecting", "offline", "stopped")

    def board_map(self) -> dict[str, dict[str, Any]]:
        return {str(t["sq"]): t for t in (self.view or {}).get("board") or ()}

    def pending_at(self, sq: str) -> Pending | None:
        for p in self.pending:
            if p.sq == sq:
                return p
        return None

    def available(self) -> list[int]:
        """Rack indices in display order that are not on the board."""
        used = {p.rack_index for p in self.pending}
        return [i for i in self.rack_order if i not in used]

    def is_free(self, sq: str) -> bool:
        v = self.variant
        i = v.index.get(sq)
        if i is None or not v.playable[i]:
            return False
        return sq not in self.board_map() and self.pending_at(sq) is None

    def tiles_payload(self) -> list[dict[str, Any]]:
        return [{"sq": p.sq, "letter": p.letter, "blank": p.blank} for p in self.pending]

    def can_swap(self) -> bool:
        v = self.view or {}
        return self.my_turn and int(v.get("bag_size", 0)) >= 1

    def _frame_id(self, kind: str) -> str:
        self._next_id += 1
        fid = f"{kind[0]}{self._id_prefix}.{self._next_id}"
        self.awaiting[fid] = kind
        return fid

    def send(self, frame: dict[str, Any]) -> None:
        if "id" not in frame and frame["type"] not in ("resync",):
            frame["id"] = self._frame_id(frame["type"])
        self.unanswered.sent(frame)
        self.outbox.append(frame)

    # -- preview -----------------------------------------------------------------------------------------
    def refresh_preview(self) -> None:
        if not self.pending or self.view is None:
            self.preview = None
            return
        fn = self._preview_fn or _engine_preview()
        t0 = time.perf_counter()
        self.preview = fn(self.view, self.tiles_payload())
        self.preview_ms.append((time.perf_counter() - t0) * 1000)
        del self.preview_ms[:-200]

    def _changed(self) -> None:
        self.rejected = []
        self.error = None
        self.refresh_preview()

    # -- placing -----------------------------------------------------------------------------------------
    def place(self, rack_index: int, sq: str, letter: str | None = None) -> bool:
        """Put a rack tile on a free square; a blank without a letter opens the blank dialog first."""
        if rack_index not in self.available() or not self.is_free(sq) or self.screen != "table":
            return False
        tile = self.rack[rack_index]
        if tile == BLANK:
            if letter is None or letter.upper() not in LETTERS:
                self.dialog, self.blank_for = "blank", (rack_index, sq)
                return False
            self.pending.append(Pending(sq, rack_index, letter.upper(), True))
        else:
            self.pending.append(Pending(sq, rack_index, tile, False))
        self.selected = None
        self._changed()
        return True

    def choose_blank(self, letter: str) -> bool:
        if self.dialog != "blank" or self.blank_for is None or letter.upper() not in LETTERS:
            return False
        idx, sq = self.blank_for
        self.dialog, self.blank_for = None, None
        ok = self.place(idx, sq, letter)
        if ok and self.cursor == sq:
            self._advance_cursor()
        return ok

    def take_back(self, sq: str) -> bool:
        p = self.pending_at(sq)
        if p is None:
            return False
        self.pending.remove(p)
        self._changed()
        return True

    def backspace(self) -> bool:
        if not self.pending:
            return False
        p = self.pending.pop()
        self.cursor = p.sq
        self._changed()
        return True

    def recall_all(self) -> None:
        self.pending.clear()
        self.selected = None
        self.dialog = None if self.dialog == "blank" else self.dialog
        self._changed()

    def shuffle(self) -> None:
        self.rng.shuffle(self.rack_order)

    def move_rack_tile(self, rack_index: int, before: int | None) -> None:
        """Reorder the rack (drag within it): put ``rack_index`` before ``before`` (None: at the end)."""
        if rack_index not in self.rack_order or rack_index == before:
            return
        self.rack_order.remove(rack_index)
        pos = self.rack_order.index(before) if before in self.rack_order else len(self.rack_order)
        self.rack_order.insert(pos, rack_index)

    def click_rack(self, rack_index: int) -> None:
        if self.dialog == "swap":
            self.swap_sel ^= {rack_index}
            return
        if rack_index not in self.available():
            return
        self.selected = None if self.selected == rack_index else rack_index

    def click_square(self, sq: str) -> None:
        if self.selected is not None and self.is_free(sq):
            self.place(self.selected, sq)
            return
        if self.pending_at(sq) is not None:
            self.take_back(sq)
            self.cursor = sq
            return
        if self.cursor == sq:
            self.across = not self.across
        self.cursor = sq

    # -- keyboard ----------------------------------------------------------------------------------------
    def _step(self, sq: str, dc: int, dr: int) -> str | None:
        v = self.variant
        i = v.index.get(sq)
        if i is None:
            return None
        c, r = i % v.width + dc, i // v.width + dr
        if not (0 <= c < v.width and 0 <= r < v.height):
            return None
        return v.names[r * v.width + c]

    def _advance_cursor(self) -> None:
        if self.cursor is None:
            return
        dc, dr = (1, 0) if self.across else (0, 1)
        sq: str | None = self.cursor
        while sq is not None:
            sq = self._step(sq, dc, dr)
            if sq is None:
                return
            kind = self.variant.kind(sq)
            if kind is Kind.WALL:
                return
            if self.is_free(sq):
                self.cursor = sq
                return

    def move_cursor(self, dc: int, dr: int) -> None:
        if self.cursor is None:
            self.cursor = self.variant.source
            return
        sq: str | None = self.cursor
        # Walls are skipped so every playable square is reachable by arrows alone.
        while True:
            sq = self._step(sq, dc, dr) if sq else None
            if sq is None:
                return
            if self.variant.kind(sq) is not Kind.WALL:
                self.cursor = sq
                return

    def type_letter(self, ch: str) -> bool:
        """Place the typed letter at the cursor (a rack tile of that letter, else a blank naming it)."""
        letter = ch.upper()
        if letter not in LETTERS or self.screen != "table":
            return False
        if self.cursor is None:
            self.cursor = self.variant.source
        if not self.is_free(self.cursor):
            self._advance_cursor()
            if not self.is_free(self.cursor):
                return False
        rack = self.rack
        avail = self.available()
        idx = next((i for i in avail if rack[i] == letter), None)
        blank = False
        if idx is None:
            idx = next((i for i in avail if rack[i] == BLANK), None)
            blank = True
        if idx is None:
            return False
        ok = self.place(idx, self.cursor, letter if blank else None)
        if ok:
            self._advance_cursor()
        return ok

    def key(self, key: str, *, shift: bool = False, ctrl: bool = False) -> bool:
        """Handle one keydown on the board/rack area; returns True if the key was used."""
        if ctrl:
            return False
        if self.dialog == "blank":
            if key == "Escape":
                self.dialog, self.blank_for = None, None
                return True
            return len(key) == 1 and self.choose_blank(key)
        if self.dialog in ("swap", "pass"):
            if key == "Escape":
                self.close_dialog()
                return True
            if key == "Enter":
                self.confirm_dialog()
                return True
            return False
        moves = {"ArrowLeft": (-1, 0), "ArrowRight": (1, 0), "ArrowUp": (0, -1), "ArrowDown": (0, 1)}
        if key in moves:
            self.move_cursor(*moves[key])
            return True
        if key in (" ", "Spacebar"):
            self.across = not self.across
            return True
        if key == "Backspace":
            return self.backspace()
        if key == "Enter":
            return self.submit()
        if key == "Escape":
            self.recall_all()
            return True
        if len(key) == 1:
            return self.type_letter(key)
        return False

    # -- actions -----------------------------------------------------------------------------------------
    def submit(self) -> bool:
        if not self.pending or not self.my_turn or self.cut_off or "place" in self.awaiting.values():
            return False
        self.send({"type": "place", "tiles": self.tiles_payload()})
        return True

    def open_dialog(self, name: str) -> None:
        if name == "swap" and not self.can_swap():
            return
        if name in ("swap", "pass") and (not self.my_turn or self.cut_off):
            return
        self.dialog = name
        self.swap_sel = set()

    def close_dialog(self) -> None:
        self.dialog, self.blank_for = None, None
        self.swap_sel = set()

    def confirm_dialog(self) -> None:
        if self.dialog == "pass":
            self.send({"type": "pass"})
        elif self.dialog == "swap":
            if not self.swap_sel or len(self.swap_sel) > int((self.view or {}).get("bag_size", 0)):
                return
            self.send({"type": "swap", "tiles": "".join(self.rack[i] for i in sorted(self.swap_sel))})
        self.close_dialog()

    # -- lobby actions (the glue does the HTTP) ----------------------------------------------------------
    def name_problem(self) -> str | None:
        """What the table would refuse in ``name`` (a message code), or None: the engine's join rule, which
        the relay applies (docs/protocol.md), 1 to ``NAME_MAX`` printable characters after trimming.
        Uniqueness at the table only the table can tell (``bad_name``, reason ``taken``)."""
        name = self.name.strip()
        if not name:
            return "name_required"
        if len(name) > NAME_MAX:
            return "name_too_long"
        if not name.isprintable():
            return "name_unprintable"
        if is_bot_name(name):
            return "name_reserved"
        return None

    def valid_name(self) -> bool:
        return self.name_problem() is None

    def enter_table(self, table_id: str, token: str | None = None) -> None:
        self.table_id, self.token = table_id, token
        self.view, self.seq, self.seat = None, -1, None
        self.pending.clear()
        self.unanswered.clear()
        self.conn = "connecting"
        self._forget_rematch()

    def _forget_rematch(self) -> None:
        self.rematch, self.goto, self._rematch_asked = None, None, False
        self.rematch_error = None
        self.analysis, self.analysis_pending, self.analysis_error = None, False, None  # per table too

    # -- a new table with the same players (docs/protocol.md, "rematch") ------------------------------
    def request_rematch(self) -> bool:
        """The end screen's "new table, same players": ask the relay on this table's socket (it creates one
        table, tells every seat, and a second request gets the same one); once it answers, ``goto`` holds
        the new table. Already proposed: go there at once. Returns False when it cannot be asked now
        (game not over, a spectator, no connection)."""
        if self.screen != "end" or self.seat is None:
            return False
        if self.rematch is not None:
            self._prepare_rematch_join()
            self.goto = str(self.rematch["table"])
            return True
        if self.cut_off or self._rematch_asked:
            return False
        self._rematch_asked = True
        self.rematch_error = None
        self.send({"type": "rematch"})
        return True

    @property
    def rematch_pending(self) -> bool:
        """Asked for a new table; the relay has not answered yet."""
        return self._rematch_asked

    def rematch_proposer(self) -> str | None:
        """The name of whoever proposed the new table (None: nobody yet)."""
        if self.rematch is None:
            return None
        by = self.rematch.get("by")
        seats = (self.view or {}).get("seats") or ()
        for s in seats:
            if s.get("seat") == by:
                return str(s.get("name", "?"))
        return "?"

    def _prepare_rematch_join(self) -> None:
        # Joining the new table is a normal join by name: the stored one, else the name played under here.
        if self.valid_name() or self.seat is None:
            return
        seats = (self.view or {}).get("seats") or ()
        if 0 <= self.seat < len(seats):
            self.name = str(seats[self.seat].get("name", ""))

    def _on_rematch(self, frame: dict[str, Any]) -> None:
        table = frame.get("table")
        if not isinstance(table, str) or not table:
            return
        self.rematch = {"table": table, "link": frame.get("link"), "by": frame.get("by")}
        self._prepare_rematch_join()
        if self._rematch_asked:
            self._rematch_asked = False
            self.goto = table

    def join_frame(self) -> dict[str, Any]:
        if self.lobby.watching and not self.token:
            return {"type": "watch", "id": "w0"}
        if self.token:
            return {"type": "join", "id": "j0", "token": self.token}
        return {"type": "join", "id": "j0", "name": self.name.strip()}

    def leave_table(self) -> None:
        self.lobby.forget()
        self.watchers = 0
        self.table_id = self.token = None
        self.view, self.seat, self.seq = None, None, -1
        self.resyncing = False
        self.pending.clear()
        self.unanswered.clear()
        self.conn = "idle"
        self._forget_rematch()

    # -- server frames -----------------------------------------------------------------------------------
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
