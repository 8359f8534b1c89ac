"""Shape checks, words formed and their score: :func:`analyse` (checked) and :func:`preview` (never raises).

Scoring, as the rules and decisions.md fix it:

- the words of a play are the word along the line of the placed tiles (if at least 2 long) and, for each
  placed tile, the word across it (if at least 2 long); a single tile forms up to two words and both count;
- a letter square multiplies the value of the tile placed on it, in every word using that tile;
- word squares multiply every word using the tile placed on them, and multiply each other;
- a crossing doubles both words through the tile placed on it, only if that tile is in two words of the play;
- a blank is worth 0 (even on a letter square) but word squares and crossings under it still multiply;
- only squares covered by this play count; placing ``rack_size`` tiles adds the bingo bonus after all that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

from engine.board import Board
from engine.errors import (
    BadLetter,
    BadNotation,
    BlankWithoutLetter,
    DuplicateSquare,
    EmptyPlay,
    Gap,
    InputError,
    LexioError,
    MissingSource,
    NotConnected,
    NotInLine,
    NoWord,
    Occupied,
    OffBoard,
    TooManyTiles,
    Wall,
)
from engine.moves import Tile, tiles_from_json
from engine.variants import LETTERS, Variant

__all__ = [
    "Breakdown",
    "LetterScore",
    "WordScore",
    "analyse",
    "check_placement",
    "preview",
    "score_placement",
]


class LetterScore(NamedTuple):
    """One letter of a scored word.  ``value`` is the tile's face value (0 for a blank); ``letter_mult`` is
    the letter square's multiplier when the tile is new this play, else 1.  (Named tuples: immutable and
    cheap to build, as :func:`analyse` sits on the hot path of move generation.)"""

    sq: str
    letter: str
    value: int
    letter_mult: int
    blank: bool
    new: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see docs/architecture.md)."""
        return {
            "sq": self.sq,
            "letter": self.letter,
            "value": self.value,
            "letter_mult": self.letter_mult,
            "blank": self.blank,
            "new": self.new,
        }


_LETTER_OF = itemgetter(1)  # a LetterScore's letter, read in C (analyse's hot loop)


class WordScore(NamedTuple):
    """One word of a play.  ``score = sum(value * letter_mult) * word_mult``; ``word_mult`` is the product
    of the word squares covered and of the crossings that applied (``crossing`` tells whether one did)."""

    word: str
    main: bool
    squares: tuple[str, ...]
    letters: tuple[LetterScore, ...]
    word_mult: int
    crossing: bool
    score: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see docs/architecture.md)."""
        return {
            "word": self.word,
            "main": self.main,
            "squares": list(self.squares),
            "letters": [x.to_dict() for x in self.letters],
            "word_mult": self.word_mult,
            "crossing": self.crossing,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Everything a play scores: its words (main first, then cross words in line order), the number of tiles
    placed, the bingo bonus (0 or the variant's) and the total."""

    words: tuple[WordScore, ...]
    tiles: int
    bingo: int
    total: int

    @property
    def word_list(self) -> tuple[str, ...]:
        """The words formed, as strings (blanks as their named letter), main word first."""
        return tuple(w.word for w in self.words)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see docs/architecture.md)."""
        return {
            "words": [w.to_dict() for w in self.words],
            "tiles": self.tiles,
            "bingo": self.bingo,
            "total": self.total,
        }


def line_is_across(v: Variant, order: Sequence[int]) -> bool:
    """Whether the squares ``order`` (sorted, at least two) lie in one row (True) or one column (False).

    Raises :class:`~engine.errors.NotInLine` if they lie in neither."""
    first, last = order[0], order[-1]
    width = v.width
    if first // width == last // width:
        return True
    if all(i % width == first % width for i in order):
        return False
    raise NotInLine(
        f"tiles {', '.join(v.names[i] for i in order)} are not in one row or one column",
        squares=" ".join(v.names[i] for i in order),
    )


def check_placement(
    board: Board, tiles: Sequence[Tile], first_move: bool | None = None
) -> tuple[dict[int, str], list[tuple[list[int], bool]], set[int]]:
    """Checked core of :func:`analyse`: returns (placed cells by square number, words as (square numbers,
    is-main), squares whose crossing applies).  Raises the shape errors listed on :func:`analyse`, and
    :class:`~engine.errors.InputError` / :class:`~engine.errors.BadNotation` for a ``board`` that is not a
    :class:`Board` or ``tiles`` that are not a sequence of :class:`Tile`."""
    if not isinstance(board, Board):
        raise InputError(f"{board!r:.40} is not a Board", board=repr(board)[:40])
    if not isinstance(tiles, tuple | list):
        try:
            tiles = tuple(tiles)
        except TypeError:
            raise BadNotation(f"tiles {tiles!r:.40} are not a sequence", tiles=repr(tiles)[:40]) from None
    v = board.variant
    cells = board.cells
    n = len(tiles)
    if n == 0:
        raise EmptyPlay("a placement needs at least one tile", count=0)
    if n > v.rack_size:
        raise TooManyTiles(f"{n} tiles placed; at most {v.rack_size}", count=n, limit=v.rack_size)
    index = v.index
    playable = v.playable
    placed: dict[int, str] = {}
    for t in tiles:
        if not isinstance(t, Tile):
            raise BadNotation(f"{t!r:.40} is not a Tile", tile=repr(t)[:40])
        sq = t.square
        i = index.get(sq) if type(sq) is str else None
        if i is None:
            raise OffBoard(f"square {sq} is off the {v.name} board", square=str(sq))
        if not playable[i]:
            raise Wall(f"square {sq} is a wall", square=sq)
        existing = cells[i]
        if existing is not None:
            raise Occupied(f"square {sq} is already occupied by {existing.upper()}", square=sq)
        if i in placed:
            raise DuplicateSquare(f"square {sq} is used twice", square=sq)
        letter = t.letter
        if not isinstance(letter, str):
            if t.blank and letter is None:
                raise BlankWithoutLetter(f"the blank on {sq} must name its letter", square=sq)
            raise BadLetter(
                f"{letter!r:.20} on {sq} is not a tile letter", square=sq, letter=repr(letter)[:20]
            )
        if letter in LETTERS:
            placed[i] = letter.lower() if t.blank else letter
        elif t.blank or letter in ("?", ""):
            if letter.upper() in LETTERS:  # a blank given with its letter in lower case
                placed[i] = letter.lower()
            else:
                raise BlankWithoutLetter(f"the blank on {sq} must name its letter", square=sq)
        else:
            raise BadLetter(f"{letter!r} on {sq} is not a tile letter", square=sq, letter=str(letter))

    order = sorted(placed)
    first_i, last_i = order[0], order[-1]
    across = True
    if n > 1:
        across = line_is_across(v, order)
        fwd = v.right if across else v.down
        j = first_i
        while j != last_i:
            j = fwd[j]
            if j == -1 or (j not in placed and cells[j] is None):
                hole = v.names[j] if j != -1 else "a wall"
                raise Gap(
                    f"tiles {v.names[first_i]}..{v.names[last_i]} leave {hole} empty",
                    first=v.names[first_i],
                    last=v.names[last_i],
                )

    if first_move is None:
        first_move = not any(cells)
    if first_move:
        if v.source_index not in placed:
            raise MissingSource(f"the first play must cover the source {v.source}", source=v.source)
    else:
        left, right, up, down = v.left, v.right, v.up, v.down
        for i in order:
            if (
                (left[i] != -1 and cells[left[i]] is not None)
                or (right[i] != -1 and cells[right[i]] is not None)
                or (up[i] != -1 and cells[up[i]] is not None)
                or (down[i] != -1 and cells[down[i]] is not None)
            ):
                break
        else:
            raise NotConnected(
                f"tiles {' '.join(v.names[i] for i in order)} touch no tile on the board",
                squares=" ".join(v.names[i] for i in order),
            )

    # The board with this play's tiles on it: a word runs while its squares are filled.
    filled = list(cells)
    for i, c in placed.items():
        filled[i] = c

    def word_at(i: int, back: tuple[int, ...], fwd: tuple[int, ...]) -> list[int]:
        start = i
        b = back[start]
        while b != -1 and filled[b] is not None:
            start = b
            b = back[start]
        out = [start]
        j = fwd[start]
        while j != -1 and filled[j] is not None:
            out.append(j)
            j = fwd[j]
        return out

    words: list[tuple[list[int], bool]] = []
    crossed: set[int] = set()
    crossing = v.crossing
    if n == 1:
        i = first_i
        h = word_at(i, v.left, v.right)
        d = word_at(i, v.up, v.down)
        if len(h) > 1:
            words.append((h, True))
        if len(d) > 1:
            words.append((d, not words))
        if len(words) == 2 and crossing[i]:
            crossed.add(i)
    else:
        if across:
            main = word_at(first_i, v.left, v.right)
            cback, cfwd = v.up, v.down
        else:
            main = word_at(first_i, v.up, v.down)
            cback, cfwd = v.left, v.right
        words.append((main, True))
        for i in order:
            w = word_at(i, cback, cfwd)
            if len(w) > 1:
                words.append((w, False))
                if crossing[i]:
                    crossed.add(i)
    if not words:
        sq = v.names[first_i]
        raise NoWord(f"tile {sq} alone forms no word of 2 or more tiles", square=sq)
    return placed, words, crossed


def analyse(board: Board, tiles: Sequence[Tile], *, first_move: bool | None = None) -> Breakdown:
    """Check the shape of a placement on ``board`` and score it.

    ``first_move`` defaults to "the board is empty".  Does not check a rack or the words.

    Raises (all :class:`~engine.errors.ShapeError`): ``EmptyPlay``, ``TooManyTiles``, ``OffBoard``, ``Wall``,
    ``Occupied``, ``DuplicateSquare``, ``BlankWithoutLetter``, ``BadLetter``, ``NotInLine``, ``Gap``,
    ``MissingSource``, ``NotConnected``, ``NoWord``.  Input of the wrong type is refused too, never with
    another exception: ``BadNotation`` for ``tiles`` that are not a sequence of :class:`Tile`, ``InputError``
    for a ``board`` that is not a :class:`Board` (a square that is not a string is ``OffBoard``, a letter
    that is not a string ``BadLetter``).
    """
    placed, words, crossed = check_placement(board, tiles, first_move)
    v = board.variant
    cells = board.cells
    values, lmult, wmult, names = v.values, v.letter_mult, v.word_mult, v.names
    new = tuple.__new__  # builds the named tuples without their Python-level __new__ (hot path)
    letter_of = _LETTER_OF
    scored: list[WordScore] = []
    total = 0
    for idxs, main in words:
        s = 0
        wm = 1
        was_crossed = False
        letters: list[LetterScore] = []
        for j in idxs:
            c = placed.get(j)
            if c is None:
                c = cells[j]
                assert c is not None
                value = values[c]
                s += value
                letters.append(new(LetterScore, (names[j], c.upper(), value, 1, c.islower(), False)))
                continue
            lm = lmult[j]
            value = values[c]
            s += value * lm
            wm *= wmult[j]
            if j in crossed:
                wm *= 2
                was_crossed = True
            letters.append(new(LetterScore, (names[j], c.upper(), value, lm, c.islower(), True)))
        score = s * wm
        total += score
        word = "".join(map(letter_of, letters))
        squares = tuple(map(names.__getitem__, idxs))
        scored.append(new(WordScore, (word, main, squares, tuple(letters), wm, was_crossed, score)))
    bingo = v.bingo_bonus if len(placed) == v.rack_size else 0
    return Breakdown(tuple(scored), len(placed), bingo, total + bingo)


def score_placement(
    board: Board, tiles: Sequence[Tile], *, first_move: bool | None = None
) -> tuple[int, tuple[str, ...]]:
    """``(total, words)`` of a placement: the same checks and numbers as :func:`analyse` without building
    the breakdown (for move generators).  Raises what :func:`analyse` raises."""
    placed, words, crossed = check_placement(board, tiles, first_move)
    v = board.variant
    cells = board.cells
    values, lmult, wmult = v.values, v.letter_mult, v.word_mult
    total = 0
    out: list[str] = []
    for idxs, _main in words:
        s = 0
        wm = 1
        letters: list[str] = []
        for j in idxs:
            c = placed.get(j)
            if c is not None:
                s += values[c] * lmult[j]
                wm *= wmult[j]
                if j in crossed:
                    wm *= 2
            else:
                c = cells[j]
                assert c is not None
                s += values[c]
            letters.append(c)
        total += s * wm
        out.append("".join(letters).upper())
    if len(placed) == v.rack_size:
        total += v.bingo_bonus
    return total, tuple(out)


def preview(view: dict[str, Any], tiles: list[dict[str, Any]]) -> dict[str, Any]:
    """What a placement would score on the board of a seat's :func:`engine.view` snapshot.

    For the browser: never raises.  Returns ``{"ok": True, "breakdown": Breakdown.to_dict()}`` or
    ``{"ok": False, "error": {"code", "message", "params"}}``.  Checks shape only, not rack nor words.
    """
    try:
        return {"ok": True, "breakdown": analyse(preview_board(view), tiles_from_json(tiles)).to_dict()}
    except Exception as err:  # a browser preview must never throw, whatever it is handed
        return {"ok": False, "error": preview_error(err)}


def preview_board(view: object) -> Board:
    """The board of a seat's :func:`engine.view` snapshot, as :func:`preview` reads it.  Raises
    :class:`~engine.errors.InputError` for a view that is not an object, and what :meth:`Board.from_json`
    raises for its variant or tiles."""
    if not isinstance(view, dict):
        raise InputError("the view to preview is not an object")
    return Board.from_json(view.get("variant", "lexio"), view.get("board", []))


def preview_error(err: Exception) -> dict[str, Any]:
    """The ``error`` object :func:`preview` answers when ``err`` was raised: a :class:`LexioError`'s own
    ``to_dict()``, anything else as ``bad_input`` (for a caller that runs :func:`analyse` itself and must
    word its refusals as the preview does).  Never raises."""
    if isinstance(err, LexioError):
        return err.to_dict()
    return {"code": "bad_input", "message": f"cannot preview: {err}", "params": {}}
