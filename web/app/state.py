"""The UI state machine: screens, the pending placement, keyboard play, dialogs and server frames.

Pure Python: no browser module is imported. The browser glue (``app.glue``) feeds it DOM events and
WebSocket frames, sends what it queues in ``outbox`` and re-renders with :mod:`app.render`.
Every method that changes the pending placement recomputes the live preview (:mod:`app.live_preview`).
The state's fields live here; the rules that change them are its parts: :class:`~app.board_play.BoardPlay`
(the local play), :class:`~app.server_frames.ServerFrames` (the relay's frames),
:class:`~app.rematch_state.RematchFlow` (a new table with the same players).
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from typing import TYPE_CHECKING, cast

import wire
from app.board_play import BoardPlay, Pending
from app.live_preview import BoardKeptPreview, LivePreview
from app.lobby import Lobby
from app.rematch_state import RematchFlow
from app.resend import Unanswered, page_prefix
from app.server_frames import ServerFrames
from app.timing import Backoff, ServerClock
from engine.game import NAME_MAX, is_bot_name
from engine.variants import Variant, get_variant

if TYPE_CHECKING:
    from app.payloads import (
        AnalysisMove,
        ClientFrame,
        Clock,
        Notice,
        Rematch,
        ServerFrame,
        TableSummary,
        Tile,
        View,
    )
    from app.ratings_view import TableRatings

LEVELS = ("beginner", "easy", "medium", "strong", "expert")
TURN_CHOICES = (30, 60, 90, 120, 180, 300, 600)


class UiState:
    """Everything the screen shows, derived from the server's frames plus the local pending play."""

    def __init__(self, *, lang: str = "fr", rng: random.Random | None = None) -> None:
        self.lang = lang
        self.name = ""
        # The signed-in player's nickname (app.account): the relay seats them under it, whatever is typed.
        self.member: str | None = None
        self.rng = rng or random.Random()
        self._previews = BoardKeptPreview()
        # connection
        self.conn = "idle"  # idle | connecting | online | offline | stopped
        self.retry_at: float | None = None  # local ms of the next reconnection attempt
        self.stop_reason: str | None = None
        self.backoff = Backoff(rng=self.rng)
        self.clock_sync = ServerClock()
        # lobby
        self.tables: list[TableSummary] = []
        self.turn_seconds = 120
        self.public = True
        self.rated = False  # the next table is rated (a signed-in player's choice, issue 30)
        self.bot_level = "medium"
        self.notice: Notice | None = None  # (code, params) shown once
        self.lobby = Lobby()  # own tables, the invitation a link opened (app.lobby)
        self.watchers = 0  # how many watch this table (docs/protocol.md, "watchers")
        # table
        self.table_id: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.view: View | None = None
        self._board_of: View | None = None  # the view board_map's dict was made from
        self._board: dict[str, Tile] = {}
        self._variant_of: View | None = None  # the view the variant was looked up for
        self._variant: Variant | None = None
        self.seq = -1
        # A resync is on its way: events until the snapshot are covered by it, so one request is enough.
        self.resyncing = False
        self.clock: Clock = {}
        self.presence: dict[int, bool] = {}
        self.demo = False
        # the local play
        # Both replaced on every change, never changed in place: available() keeps its answer by them.
        self.rack_order: tuple[int, ...] = ()
        self.pending: tuple[Pending, ...] = ()
        self._available: tuple[tuple[int, ...], tuple[Pending, ...], tuple[int, ...]] = ((), (), ())
        self.selected: int | None = None
        self.cursor: str | None = None
        self.across = True
        self.preview: LivePreview | None = None
        self.preview_ms: list[float] = []
        self.rejected: list[str] = []
        self.error: Notice | None = None
        self.dialog: str | None = None  # blank | swap | pass
        self.blank_for: tuple[int, str] | None = None
        self.swap_sel: set[int] = set()
        self.outbox: list[ClientFrame] = []
        self._next_id = 0
        self._id_prefix = page_prefix()
        self.awaiting: dict[str, str] = {}  # frame id -> type, until ack/rejected/error
        self.unanswered = Unanswered()  # actions resent with the same id after a reconnect (app.resend)
        # after the end: the new table proposed for the same players ({"table", "link", "by"}), and where the
        # glue should navigate next (set when this tab asked for it: the asker goes there at once)
        self.rematch: Rematch | None = None
        self.goto: str | None = None
        self.rematch_asked = False  # asked; the relay has not answered yet
        self.rematch_error: Notice | None = None  # the refusal of our request
        # after the end: this seat's analysis (app.analysis), asked once
        self.analysis: list[AnalysisMove] | None = None
        # the registered players' ratings at this table (its ``ratings`` frame: app.ratings_view)
        self.ratings: TableRatings | None = None
        self.analysis_pending = False
        self.analysis_error: Notice | None = None
        # the rules, each on these fields
        self.play = BoardPlay(self)
        self.frames = ServerFrames(self)
        self.rematch_flow = RematchFlow(self)

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
        view = self.view
        if self._variant_of is not view or self._variant is None:  # looked up once per view
            self._variant_of, self._variant = view, get_variant(str((view or {}).get("variant", "lexio")))
        return self._variant

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

    def board_map(self) -> dict[str, Tile]:
        """Square → tile on the board (shared: not to be changed), made once per view (views are replaced,
        never changed in place)."""
        if self._board_of is not self.view:
            self._board_of = self.view
            self._board = {str(t["sq"]): t for t in (self.view or {}).get("board") or ()}
        return self._board

    def pending_at(self, sq: str) -> Pending | None:
        for p in self.pending:
            if p.sq == sq:
                return p
        return None

    def available(self) -> tuple[int, ...]:
        """Rack indices in display order that are not on the board (a key asks several times: worked out
        once per rack order and pending tiles)."""
        order, pending, free = self._available
        if order is not self.rack_order or pending is not self.pending:
            used = {p.rack_index for p in self.pending}
            free = tuple([i for i in self.rack_order if i not in used])
            self._available = (self.rack_order, self.pending, free)
        return free

    def is_free(self, sq: str) -> bool:
        v = self.variant
        i = v.index.get(sq)
        if i is None or not v.playable[i]:
            return False
        return sq not in self.board_map() and self.pending_at(sq) is None

    def can_swap(self) -> bool:
        v = self.view or {}
        return self.my_turn and int(v.get("bag_size", 0)) >= 1

    def _frame_id(self, kind: str) -> str:
        self._next_id += 1
        fid = f"{kind[0]}{self._id_prefix}.{self._next_id}"
        self.awaiting[fid] = kind
        return fid

    def send(self, frame: wire.ClientFrame | ClientFrame) -> None:
        """Queue ``frame``, numbered (a resync needs no answer, so no number) and kept until answered.
        A frame in its JSON form is read through the wire first (raises wire.ProtocolError if malformed)."""
        if isinstance(frame, dict):
            frame = wire.parse_client_frame(json.dumps(frame))
        if frame.id is None and not isinstance(frame, wire.Resync):
            frame = dataclasses.replace(frame, id=self._frame_id(frame.type))
        out = cast("ClientFrame", frame.to_json())
        self.unanswered.sent(out)
        self.outbox.append(out)

    # -- preview -----------------------------------------------------------------------------------------
    def refresh_preview(self) -> None:
        if not self.pending or self.view is None:
            self.preview = None
            return
        t0 = time.perf_counter()
        self.preview = self._previews(self.view, self.pending)
        self.preview_ms.append((time.perf_counter() - t0) * 1000)
        del self.preview_ms[:-200]

    def changed(self) -> None:
        """The pending placement changed: the last refusal is stale, the preview is recomputed."""
        self.rejected = []
        self.error = None
        self.refresh_preview()

    # -- actions -----------------------------------------------------------------------------------------
    def submit(self) -> bool:
        if not self.pending or not self.my_turn or self.cut_off or "place" in self.awaiting.values():
            return False
        tiles = tuple(wire.TileIn(p.sq, p.letter, p.blank) for p in self.pending)
        self.send(wire.Place(tiles=tiles))
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
            self.send(wire.Pass())
        elif self.dialog == "swap":
            if not self.swap_sel or len(self.swap_sel) > int((self.view or {}).get("bag_size", 0)):
                return
            self.send(wire.Swap(tiles="".join(self.rack[i] for i in sorted(self.swap_sel))))
        self.close_dialog()

    # -- lobby actions (the glue does the HTTP) ----------------------------------------------------------
    def name_problem(self) -> str | None:
        """What the table would refuse in ``name`` (a message code), or None: the engine's join rule, which
        the relay applies (docs/protocol.md), 1 to ``NAME_MAX`` printable characters after trimming.
        Uniqueness at the table only the table can tell (``bad_name``, reason ``taken``)."""
        if self.member is not None:
            return None  # the relay seats a signed-in player under their nickname
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
        self.pending = ()
        self.unanswered.clear()
        self.conn = "connecting"
        self._forget_table_end()

    def _forget_table_end(self) -> None:
        self.rematch, self.goto, self.rematch_asked = None, None, False
        self.rematch_error = None
        self.analysis, self.analysis_pending, self.analysis_error = None, False, None  # per table too
        self.ratings = None

    def join_frame(self) -> ClientFrame:
        frame: wire.Join | wire.Watch
        if self.lobby.watching and not self.token:
            frame = wire.Watch("w0")
        elif self.token:
            frame = wire.Join("j0", token=self.token)
        else:
            frame = wire.Join("j0", name=self.member or self.name.strip())
        return cast("ClientFrame", frame.to_json())

    def leave_table(self) -> None:
        self.lobby.forget()
        self.watchers = 0
        self.table_id = self.token = None
        self.view, self.seat, self.seq = None, None, -1
        self.resyncing = False
        self.pending = ()
        self.unanswered.clear()
        self.conn = "idle"
        self._forget_table_end()

    # -- the local play (app.board_play) -----------------------------------------------------------------
    def place(self, rack_index: int, sq: str, letter: str | None = None) -> bool:
        return self.play.place(rack_index, sq, letter)

    def choose_blank(self, letter: str) -> bool:
        return self.play.choose_blank(letter)

    def take_back(self, sq: str) -> bool:
        return self.play.take_back(sq)

    def recall_all(self) -> None:
        self.play.recall_all()

    def shuffle(self) -> None:
        self.play.shuffle()

    def move_rack_tile(self, rack_index: int, before: int | None) -> None:
        self.play.move_rack_tile(rack_index, before)

    def click_rack(self, rack_index: int) -> None:
        self.play.click_rack(rack_index)

    def click_square(self, sq: str) -> None:
        self.play.click_square(sq)

    def key(self, key: str, *, shift: bool = False, ctrl: bool = False) -> bool:
        return self.play.key(key, shift=shift, ctrl=ctrl)

    # -- the relay's frames (app.server_frames) and the new table (app.rematch_state) --------------------
    def on_frame(self, frame: ServerFrame, local_now: int) -> None:
        self.frames.on_frame(frame, local_now)

    def request_rematch(self) -> bool:
        return self.rematch_flow.request()

    @property
    def rematch_pending(self) -> bool:
        """Asked for a new table; the relay has not answered yet."""
        return self.rematch_asked

    def rematch_proposer(self) -> str | None:
        return self.rematch_flow.proposer()
