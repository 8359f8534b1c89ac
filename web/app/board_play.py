"""Play on the board, for :class:`app.state.UiState`: the pending placement (tiles put on the board and not
yet submitted, the blank's letter, the rack's order) and keyboard play (cursor, direction, typing).

Pure Python, like the rest of the state: no browser module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.moves import Tile
from engine.variants import BLANK, LETTERS, Kind

if TYPE_CHECKING:
    from app.state import UiState


@dataclass(frozen=True)
class Pending:
    """A tile placed on the board but not yet submitted."""

    sq: str
    rack_index: int
    letter: str  # upper case; for a blank, the letter it names
    blank: bool
    # The engine's tile for this placement, made once: each key asks the engine about every pending tile
    # again (app.live_preview).
    tile: Tile = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile", Tile(self.sq, self.letter, self.blank))


class BoardPlay:
    """The rules of the local play on ``state`` (whose fields hold it: ``pending``, ``cursor``, ...)."""

    def __init__(self, state: UiState) -> None:
        self.state = state

    def place(self, rack_index: int, sq: str, letter: str | None = None) -> bool:
        """Put a rack tile on a free square; a blank without a letter opens the blank dialog first."""
        s = self.state
        if rack_index not in s.available() or not s.is_free(sq) or s.screen != "table":
            return False
        tile = s.rack[rack_index]
        if tile == BLANK:
            if letter is None or letter.upper() not in LETTERS:
                s.dialog, s.blank_for = "blank", (rack_index, sq)
                return False
            s.pending = (*s.pending, Pending(sq, rack_index, letter.upper(), True))
        else:
            s.pending = (*s.pending, Pending(sq, rack_index, tile, False))
        s.selected = None
        s.changed()
        return True

    def choose_blank(self, letter: str) -> bool:
        s = self.state
        if s.dialog != "blank" or s.blank_for is None or letter.upper() not in LETTERS:
            return False
        idx, sq = s.blank_for
        s.dialog, s.blank_for = None, None
        ok = self.place(idx, sq, letter)
        if ok and s.cursor == sq:
            self._advance_cursor()
        return ok

    def take_back(self, sq: str) -> bool:
        s = self.state
        p = s.pending_at(sq)
        if p is None:
            return False
        s.pending = tuple([q for q in s.pending if q is not p])
        s.changed()
        return True

    def backspace(self) -> bool:
        s = self.state
        if not s.pending:
            return False
        p = s.pending[-1]
        s.pending = s.pending[:-1]
        s.cursor = p.sq
        s.changed()
        return True

    def recall_all(self) -> None:
        s = self.state
        s.pending = ()
        s.selected = None
        s.dialog = None if s.dialog == "blank" else s.dialog
        s.changed()

    def shuffle(self) -> None:
        order = list(self.state.rack_order)
        self.state.rng.shuffle(order)
        self.state.rack_order = tuple(order)

    def move_rack_tile(self, rack_index: int, before: int | None) -> None:
        """Reorder the rack (drag within it): put ``rack_index`` before ``before`` (None: at the end)."""
        order = list(self.state.rack_order)
        if rack_index not in order or rack_index == before:
            return
        order.remove(rack_index)
        pos = order.index(before) if before in order else len(order)
        order.insert(pos, rack_index)
        self.state.rack_order = tuple(order)

    def click_rack(self, rack_index: int) -> None:
        s = self.state
        if s.dialog == "swap":
            s.swap_sel ^= {rack_index}
            return
        if rack_index not in s.available():
            return
        s.selected = None if s.selected == rack_index else rack_index

    def click_square(self, sq: str) -> None:
        s = self.state
        if s.selected is not None and s.is_free(sq):
            self.place(s.selected, sq)
            return
        if s.pending_at(sq) is not None:
            self.take_back(sq)
            s.cursor = sq
            return
        if s.cursor == sq:
            s.across = not s.across
        s.cursor = sq

    # -- keyboard ----------------------------------------------------------------------------------------
    def _step(self, sq: str, dc: int, dr: int) -> str | None:
        v = self.state.variant
        i = v.index.get(sq)
        if i is None:
            return None
        c, r = i % v.width + dc, i // v.width + dr
        if not (0 <= c < v.width and 0 <= r < v.height):
            return None
        return v.names[r * v.width + c]

    def _advance_cursor(self) -> None:
        s = self.state
        if s.cursor is None:
            return
        dc, dr = (1, 0) if s.across else (0, 1)
        sq: str | None = s.cursor
        while sq is not None:
            sq = self._step(sq, dc, dr)
            if sq is None:
                return
            kind = s.variant.kind(sq)
            if kind is Kind.WALL:
                return
            if s.is_free(sq):
                s.cursor = sq
                return

    def move_cursor(self, dc: int, dr: int) -> None:
        s = self.state
        if s.cursor is None:
            s.cursor = s.variant.source
            return
        sq: str | None = s.cursor
        # Walls are skipped so every playable square is reachable by arrows alone.
        while True:
            sq = self._step(sq, dc, dr) if sq else None
            if sq is None:
                return
            if s.variant.kind(sq) is not Kind.WALL:
                s.cursor = sq
                return

    def type_letter(self, ch: str) -> bool:
        """Place the typed letter at the cursor (a rack tile of that letter, else a blank naming it)."""
        s = self.state
        letter = ch.upper()
        if letter not in LETTERS or s.screen != "table":
            return False
        if s.cursor is None:
            s.cursor = s.variant.source
        if not s.is_free(s.cursor):
            self._advance_cursor()
            if not s.is_free(s.cursor):
                return False
        rack = s.rack
        avail = s.available()
        idx = next((i for i in avail if rack[i] == letter), None)
        blank = False
        if idx is None:
            idx = next((i for i in avail if rack[i] == BLANK), None)
            blank = True
        if idx is None:
            return False
        ok = self.place(idx, s.cursor, letter if blank else None)
        if ok:
            self._advance_cursor()
        return ok

    def key(self, key: str, *, shift: bool = False, ctrl: bool = False) -> bool:
        """Handle one keydown on the board/rack area; returns True if the key was used."""
        s = self.state
        if ctrl:
            return False
        if s.dialog == "blank":
            if key == "Escape":
                s.dialog, s.blank_for = None, None
                return True
            return len(key) == 1 and self.choose_blank(key)
        if s.dialog in ("swap", "pass"):
            if key == "Escape":
                s.close_dialog()
                return True
            if key == "Enter":
                s.confirm_dialog()
                return True
            return False
        moves = {"ArrowLeft": (-1, 0), "ArrowRight": (1, 0), "ArrowUp": (0, -1), "ArrowDown": (0, 1)}
        if key in moves:
            self.move_cursor(*moves[key])
            return True
        if key in (" ", "Spacebar"):
            s.across = not s.across
            return True
        if key == "Backspace":
            return self.backspace()
        if key == "Enter":
            return s.submit()
        if key == "Escape":
            self.recall_all()
            return True
        if len(key) == 1:
            return self.type_letter(key)
        return False
