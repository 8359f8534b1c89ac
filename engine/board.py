"""The board: an immutable grid of tiles for one :class:`~engine.variants.Variant`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.errors import BadLetter, BadNotation, BlankWithoutLetter, Occupied
from engine.moves import Tile, tiles_from_json
from engine.variants import LETTERS, Kind, Variant, get_variant

__all__ = ["Board"]

Cell = str | None

_PICTURE = {
    Kind.WALL: "#",
    Kind.PLAIN: ".",
    Kind.SOURCE: "*",
    Kind.WORD3: "T",
    Kind.WORD2: "D",
    Kind.LETTER3: "t",
    Kind.LETTER2: "d",
    Kind.CROSSING: "X",
}


class Board:
    """An immutable board.  Each cell holds ``None`` (empty), an upper-case letter (a tile) or a lower-case
    letter (a blank standing for that letter).  Create with :meth:`empty` or :meth:`from_json`; derive new
    boards with :meth:`with_tiles`.  Equal boards (same variant, same tiles) compare and hash equal."""

    __slots__ = ("_cells", "_hash", "variant")

    variant: Variant
    _cells: tuple[Cell, ...]

    def __init__(self, variant: Variant, cells: tuple[Cell, ...]) -> None:
        """Unchecked: ``cells`` must have ``width * height`` entries, ``None`` on walls.  Prefer
        :meth:`empty`, :meth:`with_tiles` and :meth:`from_json`."""
        self.variant = variant
        self._cells = cells
        self._hash: int | None = None

    # -- construction -------------------------------------------------------------------------------------
    @classmethod
    def empty(cls, variant: Variant | str = "lexio") -> Board:
        """An empty board.  Raises :class:`~engine.errors.UnknownVariant` for an unknown name."""
        v = variant if isinstance(variant, Variant) else get_variant(variant)
        return cls(v, (None,) * (v.width * v.height))

    def with_tiles(self, tiles: Iterable[Tile]) -> Board:
        """A new board with ``tiles`` added.  Checks each square (raises :class:`~engine.errors.OffBoard`,
        :class:`~engine.errors.Wall`, :class:`~engine.errors.Occupied`) and letter
        (:class:`~engine.errors.BadLetter`, :class:`~engine.errors.BlankWithoutLetter`), not the rules of
        shape: use :func:`engine.analyse` for those.  Anything that is not a :class:`Tile` raises
        :class:`~engine.errors.BadNotation`."""
        cells = list(self._cells)
        try:
            tiles = tuple(tiles)
        except TypeError:
            raise BadNotation(f"tiles {tiles!r:.40} are not a sequence", tiles=repr(tiles)[:40]) from None
        for t in tiles:
            if not isinstance(t, Tile):
                raise BadNotation(f"{t!r:.40} is not a Tile", tile=repr(t)[:40])
            i = self.variant.square_index(t.square)
            if cells[i] is not None:
                raise Occupied(f"square {t.square} is already occupied by {cells[i]}", square=t.square)
            cells[i] = _cell(t)
        return Board(self.variant, tuple(cells))

    def with_cells_unchecked(self, placed: Iterable[tuple[int, str]]) -> Board:
        """Unchecked primitive: a new board with ``(square number, cell)`` pairs set.  The caller guarantees
        the squares are playable and empty and the cells well-formed (the game fold uses it on tiles that
        :func:`engine.analyse` already accepted)."""
        cells = list(self._cells)
        for i, c in placed:
            cells[i] = c
        return Board(self.variant, tuple(cells))

    @classmethod
    def from_json(cls, variant_name: str, tiles: Any) -> Board:
        """Board from a variant name and ``[{"sq", "letter", "blank"}, ...]``.  Raises
        :class:`~engine.errors.UnknownVariant`, :class:`~engine.errors.BadNotation` and what
        :meth:`with_tiles` raises."""
        return cls.empty(variant_name).with_tiles(tiles_from_json(tiles))

    def to_json(self) -> list[dict[str, Any]]:
        """``[{"sq", "letter", "blank"}, ...]`` row by row: the inverse of :meth:`from_json`."""
        return [t.to_dict() for t in self.tiles()]

    # -- queries ------------------------------------------------------------------------------------------
    @property
    def cells(self) -> tuple[Cell, ...]:
        """Raw cells by square number (see the class docstring)."""
        return self._cells

    @property
    def is_empty(self) -> bool:
        """True when no tile is on the board (the next play is the first)."""
        return not any(self._cells)

    def __len__(self) -> int:
        """Number of tiles on the board."""
        return sum(1 for c in self._cells if c)

    def tiles(self) -> tuple[Tile, ...]:
        """Every tile on the board, row by row."""
        names = self.variant.names
        return tuple(
            Tile(names[i], c.upper(), c.islower()) for i, c in enumerate(self._cells) if c is not None
        )

    def get(self, square: str) -> Tile | None:
        """The tile on a square, or ``None``.  Raises :class:`~engine.errors.OffBoard`/``Wall``."""
        c = self._cells[self.variant.square_index(square)]
        return None if c is None else Tile(square, c.upper(), c.islower())

    def __getitem__(self, square: str) -> str | None:
        """The letter on a square (upper case even for a blank), or ``None``."""
        t = self.get(square)
        return None if t is None else t.letter

    def __contains__(self, square: object) -> bool:
        """True if the named square holds a tile."""
        i = self.variant.index.get(square) if isinstance(square, str) else None
        return i is not None and self._cells[i] is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.variant.name == other.variant.name and self._cells == other._cells

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.variant.name, self._cells))
        return self._hash

    def __repr__(self) -> str:
        return f"<Board {self.variant.name} {len(self)} tiles>"

    def __str__(self) -> str:
        """A text picture: column letters, row numbers, tiles (lower case: blanks) and, on empty squares,
        the Lexio legend (``#`` wall, ``*`` source, ``T D t d X`` premiums, ``.`` plain)."""
        v = self.variant
        lines = ["    " + " ".join(v.names[c][0] for c in range(v.width))]
        for r in range(v.height):
            row = []
            for c in range(v.width):
                i = r * v.width + c
                cell = self._cells[i]
                row.append(cell if cell is not None else _PICTURE[v.kinds[i]])
            lines.append(f"{r + 1:>3} " + " ".join(row))
        return "\n".join(lines)


def _cell(t: Tile) -> str:
    """The cell for a tile.  Raises BlankWithoutLetter / BadLetter."""
    letter = t.letter
    if not isinstance(letter, str):
        if t.blank and letter is None:
            raise BlankWithoutLetter(f"blank on {t.square} must name its letter", square=t.square)
        raise BadLetter(
            f"{letter!r:.20} on {t.square} is not a tile letter", square=t.square, letter=repr(letter)[:20]
        )
    if t.blank:
        if letter.upper() not in LETTERS:
            raise BlankWithoutLetter(f"blank on {t.square} must name its letter", square=t.square)
        return letter.lower()
    if letter not in LETTERS:
        raise BadLetter(f"{letter!r} on {t.square} is not a tile letter", square=t.square, letter=str(letter))
    return letter
