"""Moves as small frozen values: :class:`Place` (of :class:`Tile`), :class:`Swap` and :class:`Pass`.

These are plain values: constructing one checks nothing about the board or the rack.  The checked entry points
are :func:`engine.analyse` (shape and score) and :func:`engine.decide` (the whole rule set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import BadNotation

__all__ = ["Move", "Pass", "Place", "Swap", "Tile", "square_key", "tile_from_dict", "tiles_from_json"]


def square_key(square: str) -> tuple[int, int]:
    """Sort key of a square name: (row, column).  Malformed names sort last, in a stable way."""
    if isinstance(square, str) and len(square) >= 2 and square[0].isalpha() and square[1:].isdecimal():
        return (int(square[1:]), ord(square[0].upper()))
    return (1 << 30, 0)


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile of a placement: its square (``"G7"``), its letter (upper case ``A``-``Z``; for a blank, the
    letter it names) and whether it is a blank."""

    square: str
    letter: str
    blank: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"sq", "letter", "blank"}``."""
        return {"sq": self.square, "letter": self.letter, "blank": self.blank}

    @property
    def rack_letter(self) -> str:
        """The rack tile this placement uses: the letter, or ``?`` for a blank."""
        return "?" if self.blank else self.letter


@dataclass(frozen=True, slots=True)
class Place:
    """Place tiles on the board.  The tiles are kept sorted by square (row, then column), so two placements
    of the same tiles are equal whatever order they were given in."""

    tiles: tuple[Tile, ...]

    def __post_init__(self) -> None:
        tiles = self.tiles
        if type(tiles) is tuple and len(tiles) < 2:
            return  # nothing to sort (a one-tile play: most plays of a game's end)
        ordered = tuple(sorted(tiles, key=lambda t: square_key(t.square)))
        if ordered != tiles:
            object.__setattr__(self, "tiles", ordered)

    @property
    def rack_letters(self) -> str:
        """The rack tiles this placement uses (``?`` for blanks), in square order."""
        return "".join(t.rack_letter for t in self.tiles)


@dataclass(frozen=True, slots=True)
class Swap:
    """Return ``tiles`` (letters, ``?`` for a blank) to the bag and draw as many."""

    tiles: str


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing and end the turn."""


Move = Place | Swap | Pass


def tile_from_dict(data: Any) -> Tile:
    """Tile from ``{"sq", "letter", "blank"}`` (square and letter in any case; ``blank`` defaults to false).

    Raises :class:`engine.errors.BadNotation` if the dict is malformed.  Letter validity is checked by
    :func:`engine.analyse`.
    """
    if not isinstance(data, dict):
        raise BadNotation(f"tile {data!r} is not an object", tile=repr(data)[:40])
    sq, letter, blank = data.get("sq"), data.get("letter"), data.get("blank", False)
    if not isinstance(sq, str) or not isinstance(letter, str) or not isinstance(blank, bool):
        raise BadNotation(
            f"tile {data!r} needs a string sq, a string letter, a boolean blank", tile=repr(data)[:40]
        )
    # Case carries no meaning in JSON (the blank flag does): normalise it.
    return Tile(sq.strip().upper(), letter.upper(), blank)


def tiles_from_json(items: Any) -> tuple[Tile, ...]:
    """Tiles from a JSON list of ``{"sq", "letter", "blank"}``.  Raises :class:`engine.errors.BadNotation`."""
    if not isinstance(items, list | tuple):
        raise BadNotation(f"tiles {items!r} are not a list", tiles=repr(items)[:40])
    return tuple(tile_from_dict(d) for d in items)
