"""Play on the board, mixed into :class:`app.state.UiState`: the pending placement (tiles put on the board
and not yet submitted, the blank's letter, the rack's order) and keyboard play (cursor, direction, typing).

Pure Python, like the rest of the state: no browser module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.variants import BLANK, LETTERS, Kind


@dataclass(frozen=True)
class Pending:
    """A tile placed on the board but not yet submitted."""

    sq: str
    rack_index: int
    letter: str  # upper case; for a blank, the letter it names
    blank: bool


class BoardPlay:
    """The pending placement and keyboard play; the rest of the state is :class:`app.state.UiState`'s."""

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
