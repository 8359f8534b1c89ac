"""Variants as data: a board layout text, a tile table, a rack size, a bingo bonus and a start square.

A :class:`Variant` is built from plain text (see :mod:`engine.variants.lexio` and
:mod:`engine.variants.classic`) and precomputes the per-square tables the hot paths use: squares are
numbered ``row * width + col`` internally; names (``"G7"``: column letter, then row number from 1) are used
at the edge.

Layout legend (one character per square, one line per row; both the Lexio letters and macondo's symbols work):

======================  =========  ======
kind                    Lexio      macondo
======================  =========  ======
wall                    ``#``
plain                   ``.``      space
source                  ``*``
word x3                 ``T``      ``=``
word x2                 ``D``      ``-``
letter x3               ``t``      ``"``
letter x2               ``d``      ``'``
crossing                ``X``
======================  =========  ======
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from engine.errors import BadSetting, OffBoard, UnknownVariant, Wall
from engine.variants import classic as _classic
from engine.variants import lexio as _lexio

__all__ = [
    "BLANK",
    "DEFAULT_VARIANT",
    "LETTERS",
    "VARIANTS",
    "Kind",
    "TileSpec",
    "Variant",
    "get_variant",
]

BLANK: Final = "?"
LETTERS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
COLUMNS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Kind(StrEnum):
    """What a square is."""

    WALL = "wall"
    PLAIN = "plain"
    SOURCE = "source"
    WORD2 = "word2"
    WORD3 = "word3"
    LETTER2 = "letter2"
    LETTER3 = "letter3"
    CROSSING = "crossing"

    @property
    def premium(self) -> bool:
        """True for the squares that can pay: word and letter multipliers and crossings."""
        return self not in (Kind.WALL, Kind.PLAIN, Kind.SOURCE)


LEGEND: Final = MappingProxyType(
    {
        "#": Kind.WALL,
        ".": Kind.PLAIN,
        " ": Kind.PLAIN,
        "*": Kind.SOURCE,
        "T": Kind.WORD3,
        "=": Kind.WORD3,
        "D": Kind.WORD2,
        "-": Kind.WORD2,
        "t": Kind.LETTER3,
        '"': Kind.LETTER3,
        "d": Kind.LETTER2,
        "'": Kind.LETTER2,
        "X": Kind.CROSSING,
    }
)

_LETTER_MULT: Final = {Kind.LETTER2: 2, Kind.LETTER3: 3}
_WORD_MULT: Final = {Kind.WORD2: 2, Kind.WORD3: 3}


@dataclass(frozen=True, slots=True)
class TileSpec:
    """One line of a tile table: a letter (``?`` for the blank), how many copies, what each is worth."""

    letter: str
    count: int
    value: int


def parse_tile_table(text: str) -> tuple[TileSpec, ...]:
    """Parse ``"LETTER COUNT VALUE"`` lines. Raises :class:`BadSetting` on a malformed line."""
    specs: list[TileSpec] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 3 or not (parts[0] in LETTERS or parts[0] == BLANK):
            raise BadSetting(f"tile table line {number} is not 'LETTER COUNT VALUE': {line!r}", line=number)
        try:
            count, value = int(parts[1]), int(parts[2])
        except ValueError:
            raise BadSetting(f"tile table line {number} has a non-integer: {line!r}", line=number) from None
        specs.append(TileSpec(parts[0], count, value))
    return tuple(specs)


@dataclass(frozen=True)
class Variant:
    """A rule set's data.  Build one with :meth:`from_text`; fetch the shipped ones with :func:`get_variant`.

    ``width``/``height`` come from the layout.  The remaining attributes are lookup tables indexed by square
    number (``row * width + col``); they are derived, read-only and excluded from equality.
    """

    name: str
    layout: str
    tiles: tuple[TileSpec, ...]
    rack_size: int
    bingo_bonus: int
    source: str
    width: int = field(init=False)
    height: int = field(init=False)
    # Derived tables (square number -> ...). -1 in a neighbour table means "no square there".
    kinds: tuple[Kind, ...] = field(init=False, repr=False, compare=False)
    playable: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    letter_mult: tuple[int, ...] = field(init=False, repr=False, compare=False)
    word_mult: tuple[int, ...] = field(init=False, repr=False, compare=False)
    crossing: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    index: MappingProxyType[str, int] = field(init=False, repr=False, compare=False)
    values: MappingProxyType[str, int] = field(init=False, repr=False, compare=False)
    left: tuple[int, ...] = field(init=False, repr=False, compare=False)
    right: tuple[int, ...] = field(init=False, repr=False, compare=False)
    up: tuple[int, ...] = field(init=False, repr=False, compare=False)
    down: tuple[int, ...] = field(init=False, repr=False, compare=False)
    source_index: int = field(init=False, repr=False, compare=False)

    @classmethod
    def from_text(
        cls,
        name: str,
        layout: str,
        tiles: str,
        *,
        rack_size: int,
        bingo_bonus: int,
        source: str | None = None,
    ) -> Variant:
        """Build a variant from layout text and tile-table text.

        ``source`` defaults to the layout's ``*`` square.  Raises :class:`BadSetting` if the data is
        inconsistent (ragged rows, unknown legend characters, no or several sources, a walled source...) or
        of the wrong type.
        """
        if not isinstance(layout, str) or not isinstance(tiles, str):
            raise BadSetting(f"layout and tile table of {name!r:.20} must be text", variant=str(name)[:20])
        if source is None:
            rows = layout.splitlines()
            found = [
                f"{COLUMNS[c]}{r + 1}"
                for r, row in enumerate(rows)
                for c, ch in enumerate(row)
                if ch == "*" and c < len(COLUMNS)
            ]
            if len(found) != 1:
                raise BadSetting(
                    f"layout of {name!r} must mark exactly one source '*' or name one", variant=name
                )
            source = found[0]
        return cls(name, layout, parse_tile_table(tiles), rack_size, bingo_bonus, source)

    def __post_init__(self) -> None:
        ints = (self.rack_size, self.bingo_bonus)
        if (
            not isinstance(self.name, str)
            or not isinstance(self.layout, str)
            or not isinstance(self.source, str)
            or not isinstance(self.tiles, tuple)
            or not all(isinstance(t, TileSpec) for t in self.tiles)
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in ints)
        ):
            raise BadSetting(
                f"variant {self.name!r:.20} has data of the wrong type", variant=str(self.name)[:20]
            )
        rows = self.layout.splitlines()
        if not rows:
            raise BadSetting(f"layout of {self.name!r} is empty", variant=self.name)
        width, height = len(rows[0]), len(rows)
        if any(len(row) != width for row in rows) or not 2 <= width <= 26:
            raise BadSetting(f"layout of {self.name!r} has ragged or too wide rows", variant=self.name)
        kinds: list[Kind] = []
        for row in rows:
            for ch in row:
                kind = LEGEND.get(ch)
                if kind is None:
                    raise BadSetting(f"layout of {self.name!r} uses unknown square {ch!r}", variant=self.name)
                kinds.append(kind)
        names = tuple(f"{COLUMNS[i % width]}{i // width + 1}" for i in range(width * height))
        index = {n: i for i, n in enumerate(names)}
        if self.source not in index or kinds[index[self.source]] is Kind.WALL:
            raise BadSetting(
                f"source {self.source!r} of {self.name!r} is not a playable square", variant=self.name
            )
        letters = [t.letter for t in self.tiles]
        if len(set(letters)) != len(letters) or any(t.count < 0 or t.value < 0 for t in self.tiles):
            raise BadSetting(
                f"tile table of {self.name!r} repeats a letter or has a negative", variant=self.name
            )
        if self.rack_size < 1 or self.bingo_bonus < 0:
            raise BadSetting(f"rack size / bingo of {self.name!r} out of range", variant=self.name)

        def step(dc: int, dr: int) -> tuple[int, ...]:
            out: list[int] = []
            for i in range(width * height):
                c, r = i % width + dc, i // width + dr
                j = r * width + c
                ok = 0 <= c < width and 0 <= r < height and kinds[j] is not Kind.WALL
                out.append(j if ok else -1)
            return tuple(out)

        setter = object.__setattr__
        setter(self, "width", width)
        setter(self, "height", height)
        setter(self, "kinds", tuple(kinds))
        setter(self, "playable", tuple(k is not Kind.WALL for k in kinds))
        setter(self, "letter_mult", tuple(_LETTER_MULT.get(k, 1) for k in kinds))
        setter(self, "word_mult", tuple(_WORD_MULT.get(k, 1) for k in kinds))
        setter(self, "crossing", tuple(k is Kind.CROSSING for k in kinds))
        setter(self, "names", names)
        setter(self, "index", MappingProxyType(index))
        values = {t.letter: t.value for t in self.tiles}
        # A placed blank is stored as its lower-case letter: worth nothing.
        values.update({letter.lower(): 0 for letter in LETTERS})
        values.setdefault(BLANK, 0)
        setter(self, "values", MappingProxyType(values))
        setter(self, "left", step(-1, 0))
        setter(self, "right", step(1, 0))
        setter(self, "up", step(0, -1))
        setter(self, "down", step(0, 1))
        setter(self, "source_index", index[self.source])

    # -- squares ------------------------------------------------------------------------------------------
    def square_index(self, square: str) -> int:
        """Square number of a name such as ``"G7"``.  Raises :class:`OffBoard` (also for a name that is not
        a string) or :class:`Wall`."""
        i = self.index.get(square) if isinstance(square, str) else None
        if i is None:
            raise OffBoard(f"square {square} is off the {self.name} board", square=str(square))
        if not self.playable[i]:
            raise Wall(f"square {square} is a wall", square=square)
        return i

    def kind(self, square: str) -> Kind:
        """The kind of a named square.  Raises :class:`OffBoard` for a name not on the grid."""
        i = self.index.get(square) if isinstance(square, str) else None
        if i is None:
            raise OffBoard(f"square {square} is off the {self.name} board", square=str(square))
        return self.kinds[i]

    def squares(self) -> tuple[str, ...]:
        """Names of every playable square, row by row."""
        return tuple(n for n, ok in zip(self.names, self.playable, strict=True) if ok)

    # -- tiles --------------------------------------------------------------------------------------------
    def value(self, letter: str) -> int:
        """Value of a tile letter (``?`` or a lower-case placed blank: 0).  Raises KeyError if unknown."""
        return self.values[letter]

    def rack_value(self, rack: str) -> int:
        """Sum of the values of a rack's tiles (blanks cost nothing).  Unchecked: raises KeyError for a
        character that is not a tile."""
        values = self.values
        return sum(values[t] for t in rack)

    def full_bag(self) -> tuple[str, ...]:
        """Every tile of the game, in tile-table order (shuffle a copy before use)."""
        return tuple(t.letter for t in self.tiles for _ in range(t.count))

    @property
    def tile_count(self) -> int:
        """Number of tiles in a full bag (102 for Lexio)."""
        return sum(t.count for t in self.tiles)


VARIANTS: Final[dict[str, Variant]] = {
    v.name: v
    for v in (
        Variant.from_text(
            m.NAME, m.LAYOUT, m.TILES, rack_size=m.RACK_SIZE, bingo_bonus=m.BINGO_BONUS, source=m.SOURCE
        )
        for m in (_lexio, _classic)
    )
}
DEFAULT_VARIANT: Final = "lexio"


def get_variant(name: str) -> Variant:
    """The shipped variant called ``name``.  Raises :class:`UnknownVariant`."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise UnknownVariant(
            f"unknown variant {name!r} (known: {', '.join(sorted(VARIANTS))})", variant=str(name)
        ) from None
